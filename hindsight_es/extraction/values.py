"""Values of the rule extractor: how a matched span becomes a normalized value, and which lexicon
category, facet or region it names. Pure; ``builders.py`` turns matches into keys with these.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction.regions import region

# ---- lexicon indexes --------------------------------------------------------------------------
ALIASES: dict[str, tuple[str, str, str]] = {
    alias: (category, canonical, display)
    for category, items in lx.CATEGORIES.items()
    for canonical, (display, aliases) in items.items()
    for alias in aliases
}
# A drink said in the plural ("two espressos every morning"): each English drink alias's plural, unless it
# is an alias of its own.
ALIASES.update(
    {
        plural: entry
        for alias, entry in list(ALIASES.items())
        if entry[0] == "drink"
        and alias.isascii()
        and alias[-1:].isalpha()
        and (plural := alias + ("es" if alias.endswith(("s", "sh", "ch", "x")) else "s")) not in ALIASES
    }
)
# Longest alias first; the boundaries keep "java" out of "javascript" and let "我用vim" match. An alias that is
# also a common noun names the value only capitalized ("switched to Cursor", not "moved the cursor").
ALIAS_RE = re.compile(
    r"(?<![a-z0-9])(?:"
    + "|".join(
        f"(?-i:{re.escape(a.capitalize())})" if a in lx.CAPITALIZED_ALIASES else re.escape(a)
        for a in sorted(ALIASES, key=len, reverse=True)
    )
    + r")(?![a-z0-9])",
    re.I,
)
# "Go" the language only when capitalized and not opening the sentence ("rewrite it in Go", "换成 Go").
# A CJK character is a word character to ``\b``: "用Go写后端" has no boundary around "Go", so the edges are
# "not a Latin letter or digit" instead.
_GO = re.compile(
    r"(?<=[^\s.!?])\s*(?<![A-Za-z0-9])Go(?![A-Za-z0-9])(?!\s+(?:ahead|back|home|out|for it|on)\b)"
    r"|(?<=[\u4e00-\u9fff])\s*Go(?![A-Za-z0-9])"
)
GO_RE = _GO
ZH_PLACES = frozenset(lx.ZH_PLACES)
PLACE_RE = re.compile("|".join(sorted(lx.ZH_PLACES, key=len, reverse=True)))
WE = re.compile(r"\b(?:we|our|ours|us)\b|我们|咱们|咱", re.I)
ME = re.compile(r"\b(?:i|my|me|mine)\b|我(?!们)", re.I)

# ---- normalization ----------------------------------------------------------------------------
_LEAD_ARTICLE = re.compile(r"^(?:(?:the|a|an|some)\s+)+", re.I)
_TRAIL_FILLER = re.compile(
    r"(?:\s+(?:anymore|any more|now|too|as well|either|instead|please|again|these days|nowadays|for now"
    r"|from now on|a lot|very much|so much|lol|haha|though|tbh|honestly|really|mostly|full time|for me|to me"
    r"|at the moment|right now|lately|recently|every day|every morning|at work|at home|more|better|the most|most"
    r"|than ever|a bit|a little|after all|anyway|anyways|at all|for good|any longer|pls|plz|thx|btw|fyi|asap"
    r"|by the way))+$",
    re.I,
)
_ZH_PARTICLES = re.compile(r"[了吧啊呀哦呢啦嘛的哈～~]+$")
_ZH_TRAIL = re.compile(r"(?:了|吧|啊|呀|呢|啦|嘛|就行|就好|就可以)+$")
# Eating and drinking name their object ("喝奶茶" is about milk tea); other activities are the verb and its
# object ("看书" is reading, not books).
_OBJECT_LEAD = re.compile(r"^(?:(?:to|drinking|eating|using|having|playing|watching|喝|吃|用)\s*)", re.I)
PLACE_CUT = re.compile(
    r"\s+(?:with|for|since|last|next|this|ago|now|right now|over|during|throughout|until|after|before|recently"
    r"|about|around|nearly|almost|roughly"
    r"|currently|at the moment|in\s+\d{4}|these days|originally|by birth"
    rf"|nowadays|two|three|a few|several|many|as\s|in\s+(?:{px.MONTHS_EN}|the\s+\w+|spring|summer|fall|autumn|winter)"
    r"|a\s+(?:while|year|month|week|couple|bit)|back\s+in|to\s+(?:be|get|live|work|study|stay|start|join|look))\b.*$"
    # "在北京工作快三年了": 快 and 有 before a count, not the names 快手 and 有道
    r"|(?:老家|工作|上班|生活|读书|已经|好多年|很多年|(?:快|有)(?=\d|[一二两三四五六七八九十半几])"
    r"|第[一二两三四五六七八九十\d]+(?:周|天|个月|年)).*$"
    # "合肥蜀山区", "厦门思明区那边": the city, not its district
    r"|(?<=[\u4e00-\u9fff]{2})[\u4e00-\u9fff]{1,3}(?:区|县|镇|街道)(?:那边|附近|一带|这边)?$|(?:那边|附近|一带|这边)$",
    re.I,
)
CHOICE_CUT = re.compile(
    r"\s+(?:over|rather than|instead of|than|to|on|for|in|at|when|whenever|during|because|since|if)\s+.*$"
    r"|(?:而不是|不是).*$"
    # "改用Go重写了": the tool, not the work
    r"|(?<=[A-Za-z0-9+#])(?:来|去)?(?:重写|重构|改写|写|开发|部署|实现|跑)了?$",
    re.I,
)
_DIRECTIVE_LEAD = re.compile(r"^(?:(?:i will|we will|please|always|you should|you will|make sure to)\s+)+", re.I)
# What a standing instruction is about is its verb and object: trailing conditions are left out
# ("cc my manager on status emails" -> "cc my manager"), times are kept ("call me before 9am").
# A day or a time after "on" is kept too ("never schedule calls on Mondays"), and "for me" (whom it is for).
_DIRECTIVE_CUT = re.compile(
    # the assistant's own output is where every instruction applies: "in your answers" names nothing
    r"\s+in\s+(?:your\s+|the\s+|all\s+(?:of\s+)?(?:your\s+)?|any\s+(?:of\s+)?(?:your\s+)?)(?:answers?|repl(?:y|ies)|responses?"
    r"|messages?|output|texts?)\b.*$|"
    r"\s+with\s+me\s*$|\s+at\s+the\s+(?:end|start|top|bottom|beginning)\s+of\b.*$|"
    r"\s+(?:on(?!\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|weekdays?|the\s+weekend|holidays?)\b)"
    r"|for(?!\s+(?:me|us)\b)|when|whenever|if|during|unless|while|because|since|so)\s+.*$",
    re.I,
)
# A verb and a pronoun alone ("call me", "put me") say nothing without their condition: only a clause of
# cause or condition is cut then ("never call me during dinner", "never put me on red-eye flights").
_BARE_ACTION = re.compile(r"\S+\s+(?:me|us|him|her|them|it)", re.I)
_CLAUSE_CUT = re.compile(r"\s+(?:when|whenever|if|unless|while|because|since|so)\s+.*$", re.I)
_GERUNDS = {"using": "use", "sending": "send", "calling": "call", "emailing": "email", "texting": "text"}
_GERUNDS |= {"booking": "book", "adding": "add", "suggesting": "suggest", "recommending": "recommend"}
_GERUNDS |= {"putting": "put", "giving": "give", "asking": "ask", "writing": "write", "making": "make"}
_VAGUE = frozenset(
    "it this that them these those him her you me us myself yourself one something anything everything "
    "else others other anything_else 它 这 那 这个 那个 你 他 她 他们 她们 你们 这些 那些 的 别的 其他 其它 别家 "
    "别人 别人家 其他的 其它的 别".split()
)
_VAGUE_LEAD = frozenset(
    "it its this that these those your his her their them you what how when where if is are was were be been has had"
    " 的 它 这 那 你 他 她".split()
)
_ZH_FILLERS = frozenset("好对行来去是有做吃喝用看说走完啥")
_FILLER_OBJECTS = frozenset({"it", "this", "that", "going"})
_LIST = re.compile(r"\s*(?:、|，|,|和|与|及|以及|还有|\band\b|\bor\b|或者)\s*")


def clean(raw: str) -> str:
    """Lowercase, trimmed value without articles, trailing fillers or Chinese particles."""
    v = " ".join(raw.strip(" \t'\"“”‘’()[]「」《》").split()).lower()
    v = _TRAIL_FILLER.sub("", _LEAD_ARTICLE.sub("", v))
    return _ZH_TRAIL.sub("", _ZH_PARTICLES.sub("", v)).strip(" \t'\"“”‘’()[]「」《》")


def object_of(raw: str) -> str:
    """The thing liked/avoided: cleaned, leading verb dropped, canonical when it is a known alias; "anything
    with sesame in it" is sesame."""
    v = clean(_OBJECT_LEAD.sub("", clean(raw)))
    v = m["x"] if (m := _ANYTHING_WITH.fullmatch(v)) else v
    return ALIASES[v][1] if v in ALIASES else v


_ANYTHING_WITH = re.compile(
    r"(?:anything|any\s+food|food|dishes|things)\s+(?:with|containing)\s+(?P<x>.+?)(?:\s+in\s+it)?", re.I
)


def objects(raw: str) -> list[str]:
    """The items of a list ("绘画、弹钢琴和品茶", "hiking and swimming"), each an ``object_of``."""
    return [o for o in (object_of(part) for part in _LIST.split(raw)) if o]


def choice_object(raw: str) -> str:
    return object_of(CHOICE_CUT.sub("", raw))


def directive_action(raw: str) -> str:
    said = _DIRECTIVE_LEAD.sub("", raw.strip())
    v = clean(_DIRECTIVE_CUT.sub("", said))
    if _BARE_ACTION.fullmatch(v):
        v = clean(_CLAUSE_CUT.sub("", said))
    first, _, rest = v.partition(" ")
    v = f"{_GERUNDS.get(first, first)} {rest}".strip() if first.endswith("ing") else v
    return re.sub(r"^在(?=[\u4e00-\u9fff])", "", v)


def vague(v: str) -> bool:
    # Pronouns, one-character leftovers and "make it (happen)" carry no memory; "辣" does.
    words = v.split()
    first = words[0] if v.isascii() and words else v[:1]
    short = len(v) < 2 and (v.isascii() or v in _ZH_FILLERS)
    filler = len(words) <= 3 and any(w in _FILLER_OBJECTS for w in words[1:])
    bare = clean(_OBJECT_LEAD.sub("", v))
    return not v or short or v in _VAGUE or bare in _VAGUE or first in _VAGUE_LEAD or filler or len(v) > 80


_ON_DATE = re.compile(r"^(?:on\s+)?(?:the\s+)?", re.I)
_DAY_OF = re.compile(rf"^(\d{{1,2}}(?:st|nd|rd|th)?)\s+(?:of\s+)?({px.MONTHS_EN})$", re.I)


def attribute_value(attr: str, v: str) -> str:
    """A "my <attribute> is …" value as kept: a name's first three words, a budget without spaces, a
    date as "june 2nd" ("on June 2nd", "the 2nd of June")."""
    if attr == "name":
        return " ".join(v.split()[:3])
    if attr == "budget":
        return v.replace(" ", "")
    if attr == "birthday":
        date = _ON_DATE.sub("", v)
        return f"{m[2]} {m[1]}" if (m := _DAY_OF.match(date)) else date
    return v


INDEFINITE = re.compile(r"\s*(?:an?|some)\s", re.I)  # "at a dental practice": a kind of place, none named
_HELD = re.compile(
    r"^(?:freelance|freelancing|self-employed|part-time|part time|full-time|full time|contract|兼职|全职)\s*"
)
# A name ending in one of these is an organisation, not a place ("moved over to Sutter Health")
ORGANISATION = re.compile(
    r"\s(?:health|healthcare|hospital|clinic|bank|group|labs?|inc|ltd|llc|plc|corp|corporation|systems|technologies"
    r"|university|college|council|studios?|partners|capital|foods|motors|airlines?|pharma|insurance|media|software"
    r"|solutions|consulting|logistics|energy|games|robotics|analytics|ventures)\.?$",
    re.I,
)

# A stay that ends: lodging, someone else's home, or a bounded time ("staying at a hotel near the beach for the
# first week", "staying at my sister's place this week"): a visit, not where one lives
VISIT = re.compile(
    r"\b(?:hotels?|hostels?|motels?|airbnbs?|resorts?|inns?|b&bs?|guest\s*houses?|campsites?|rentals?)\b|'s\s+(?:place"
    r"|house|flat|apartment)\b|\bfor\s+(?:the\s+)?(?:a\s+few|a\s+couple\s+of|a|\d+|one|two|three|four|five|six|seven|first"
    r"|last|next)\s+(?:\w+\s+)?(?:nights?|days?|weeks?|weekends?)\b|\b(?:this|next)\s+(?:week|weekend)\b|\btonight\b",
    re.I,
)
_STAYING = re.compile(r"\bstay(?:ing|s|ed)?\b", re.I)


def visiting(said: str, sentence: str) -> bool:
    """``said`` (a match of a place one is at) is a stay that ends, so no place one lives (``VISIT``)."""
    return _STAYING.search(said) is not None and VISIT.search(sentence) is not None


def job(v: str) -> str:
    """A job without how it is held: "freelance illustrator" is an illustrator, "兼职会计" an accountant."""
    return _HELD.sub("", v) or v


SLUG_MAX = 40  # a key's slug stops here (keys already stored depend on it: never change it)


def slug(v: str) -> str:
    return re.sub(r"[^\w+#.-]+", "_", v.lower()).strip("_.")[:SLUG_MAX].rstrip("_")


def subject(attr: str, span: str) -> str:
    default = lx.PRONOUN_SCOPED.get(attr)
    if default is None:
        return "user"
    if WE.search(span):
        return "team"
    return "user" if ME.search(span) else default


def category(text: str) -> tuple[str, str] | None:
    m = ALIAS_RE.search(text)
    if m:
        return ALIASES[m.group(0).lower()][:2]
    return ("programming_language", "go") if text.strip() == "Go" or _GO.search(text) else None


_PHONE = re.compile(r"\+?\d[\d -]{6,}\d")
_EMAIL_VALUE = re.compile(r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+")


def typed_attribute(value: str) -> str | None:
    """The attribute a bare corrected value can only be ("I meant 32", "不对，是138…"): an age, an email, a
    phone number; None when its form does not say."""
    if _EMAIL_VALUE.fullmatch(value):
        return "email"
    if _PHONE.fullmatch(value):
        return "phone"
    return "age" if value.isdigit() and 0 < int(value) < 120 else None


_LANGUAGE_RE = re.compile(
    "|".join(
        rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w)
        for w in sorted(lx.REPLY_LANGUAGES, key=len, reverse=True)
    ),
    re.I,
)


def reply_language(text: str) -> str | None:
    """The reply language a text names ("用粤语" -> cantonese), if any."""
    m = _LANGUAGE_RE.search(text)
    return lx.REPLY_LANGUAGES[m[0].lower()] if m else None


def facet(value: str) -> str | None:
    """The facet of a favorite named by its value ("ramen" -> food), if the lexicon knows it."""
    if value in lx.FACET_OF:
        return lx.FACET_OF[value]
    found = ALIASES.get(value)
    return "drink" if found and found[0] == "drink" else None


def category_kv(found: tuple[str, str], where: re.Match[str] | str) -> tuple[str, str]:
    """The key and value of a category choice; ``where``: the rule's match (or the statement) that made it."""
    category_name, canonical = found
    span = where[0] if isinstance(where, re.Match) else where
    return f"{subject(category_name, span)}/{category_name}{region(category_name, where)}", canonical


_CN_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千]+")


def digits(value: str) -> str:
    """A count said in Chinese numerals, as digits ("二十八" -> "28"); any other value as it is."""
    if _CN_NUMERAL.fullmatch(value):
        import cn2an  # here, not at the top: its import (0.2-0.3 s) would be paid by every CLI command

        return str(int(cn2an.cn2an(value, "smart")))
    return value


# home, an unnamed company, or a kind of workplace alone ("我在银行当柜员" names the job, not the bank)
_NO_EMPLOYER_ZH = re.compile(
    r"家(?:里|中)?$|(?:一|某)(?:家|个|间|所)|^(?:社区|附近的?|本地|当地|私立|公立|乡镇|镇上|村里?)?(?:公司|单位|厂里|工厂|银行|医院|学校|店里|商场|超市|餐厅|饭店|工地|外企|国企|私企"
    r"|这里|那里|这儿|那儿|小学|中学|初中|高中|大学|幼儿园|诊所|药店|门诊|[\u4e00-\u9fff]{1,3}科)$"
)
_AND_MORE = re.compile(r"\s+and\s+(?=[a-z]).*$")  # "Walgreens and her feet hurt": not "Marks and Spencer"
_PROVINCE = re.compile(
    r"^(?:河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|贵州|云南|陕西|甘肃|青海|台湾"
    r"|内蒙古?|广西|西藏|宁夏|新疆)省?(?=[\u4e00-\u9fff]{2,4}$)"
)
# Parts of the body: "my feet are killing me" says how they feel, not an attribute of the speaker's
BODY = frozenset(
    "feet foot back head knees knee eyes eye hands hand legs leg arms arm neck shoulders shoulder stomach skin hair"
    " teeth tooth ears ear nose throat hips hip wrist wrists ankle ankles joints muscles".split()
)


def city(v: str) -> str:
    """A Chinese place said with its province, as the city alone ("湖南衡阳" -> "衡阳")."""
    return _PROVINCE.sub("", v)


_NAMED_THE = re.compile(r"(?-i:The\s+[A-Z])")


def place_named(raw: str) -> str:
    """A place as said, cleaned: its article kept when it is part of the name ("The Hague", "The Bronx")."""
    v = city(clean(PLACE_CUT.sub("", raw)))
    return f"the {v}" if _NAMED_THE.match(raw) else v


# Where in an employer one works is no part of its name: a team ("Shopify on the payments team"), a place
# ("Airbus in Toulouse", capitalized), which is where the work is.
_WORK_TEAM = re.compile(
    r"(?i)\s+(?:on|in|with)\s+(?:the|a|my|our)\s+[\w -]{0,30}?\b(?:team|department|dept|squad|unit|ward|desk)\b.*$"
)
_WORK_IN = re.compile(r"\s+in\s+(?-i:(?P<at>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))\s*$")


def work_tail(said: str) -> tuple[str, str | None]:
    """An employer as said, without where in it one works, and the place it names (None when it names none)."""
    said = _WORK_TEAM.sub("", said)
    at = None if INDEFINITE.match(said) else _WORK_IN.search(said)  # "a hospital in Boston" is the workplace
    return (said[: at.start()], at["at"]) if at else (said, None)


def work_place(who: str, said: str) -> tuple[str, str] | None:
    """The location of ``who`` an employer said with its place names ("Airbus in Toulouse" -> Toulouse)."""
    at = work_tail(said)[1]
    return (f"{who}/location", place_named(at)) if at and not vague(clean(at)) else None


def workplace(said: str) -> tuple[str, str] | None:
    """Where one works: an employer; a city is a location ("我在上海工作"); home, a firm unnamed: none."""
    if INDEFINITE.match(said):  # "a receptionist at a dental practice": a kind of workplace, not a named one
        return None
    v = clean(PLACE_CUT.sub("", _AND_MORE.sub("", work_tail(said)[0])))
    if v in ZH_PLACES or v[:-1] in ZH_PLACES and v[-1:] in "区市县":  # "海淀区" is a place
        return "user/location", v
    return None if vague(v) or _NO_EMPLOYER_ZH.match(v) else ("user/employer", v)


def allergen(said: str, *, negated: bool) -> tuple[str, str] | None:
    """The speaker's allergy to what is ``said`` (``not:`` it when ``negated``), keyed by the allergen."""
    v = clean(said)
    if vague(v):
        return None
    return f"user/allergy:{slug(v)}", f"not:{v}" if negated else v


# Kin words in Chinese, which a person named after them opens with ("同事王芳")
ZH_KIN = tuple(w for w in lx.RELATIONS if not w.isascii())
# A capitalised name, through the particles some names hold ("Ludwig van Beethoven"), to the first word that is not
CAPITALISED = re.compile(r"[A-Z][\w'-]*(?:\s+(?:(?:van|von|de|da|del|der|di|le|la|bin|al)\s+)?[A-Z][\w'-]*)*")
