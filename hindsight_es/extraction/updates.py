"""A grammar of choices and their updates: which lexicon values a sentence says the speaker now uses.

A lexicon value (a database, an editor, a drink, …) mentioned in a clause is the speaker's current
choice when the clause frames it as one: a verb of use before it ("we host everything on Azure",
"I write all my code in VS Code", "我们的服务都部署在阿里云上"), an attribute noun ("our main database
is MySQL"), or a frame after it ("I'm a Vim person now", "DHL handles everything now", "it's green tea
for me now"). It is the old value, not the choice, when an update cue governs it: "off MySQL", "from
Java", "instead of AWS", "do not use UPS any more", "gave up coffee", "不用VS Code了", "把MySQL换成…".
The owner is the speaker (or the team, by pronoun), a relative named before it ("my wife only drinks
green tea" is ``wife/drink``), or someone else, whose choices are not the speaker's and are dropped.

Reported words are not the speaker's statements: a quoted clause ('the CTO keeps saying "we should move
to AWS"') is left out, and so is a sentence relaying someone else's request to the assistant ("my
colleague asked you to answer in French", "我朋友让你用日语回答"). Pure; ``rules.py`` applies it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from functools import lru_cache

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.compounds import modified, singular
from hindsight_es.extraction.matching import MANY
from hindsight_es.extraction.names_zh import opens_with_a_name

# fmt: off
_CLAUSE = re.compile(r"[,，;；:：—–]|\s+-\s+|\s+(?:and|but|so|while|whereas)\s+|而且|但是|不过|所以", re.I)
# A verb of use (or a measure of a drink) anywhere before the value in its clause.
_USE_EN = re.compile(
    r"\b(?:use[sd]?|using|run[s]?|running|ran|host(?:s|ed|ing)?|deploy(?:s|ed|ing)?|build(?:s|ing)?|built"
    r"|(?:re-?)?(?:write|writes|writing|wrote|written|built|build)|code|codes|coding|coded|via|through|develop(?:s|ed|ing)?|program(?:s|med|ming)?"
    r"|ship(?:s|ped|ping)?|send(?:s|ing)?|drink(?:s|ing)?|(?:cups?|glass(?:es)?|mugs?|pots?|bottles?)\s+of"
    r"|port(?:s|ed|ing)?|install(?:s|ed|ing)?|rel(?:y|ies|ied)\s+on|switch(?:ed|ing)?|mov(?:e|ed|ing)|migrat(?:e|ed|ing)|went\s+with|go(?:ing)?\s+with"
    r"|chose|chosen|picked|settled\s+on|stick(?:ing)?\s+with|(?:am|are|is|was|were)\s+(?:\w+\s+)?on"
    r"|work(?:s|ing)?\s+(?:with|in)|(?:went|gone|going|go|came|come|got|get)\s+back\s+to|returned\s+to|prefer(?:s|red)?|(?:has|have)\s+(?:been\s+)?on)\b"
    r"|\b(?:keep|keeps|kept|stor(?:e|es|ed|ing)|put|puts)\b.*\b(?:in|on)\s+$"  # "keep the logs in ClickHouse"
    r"|\b(?:codebase|code|stack|backend|frontend|app|apps|service|services|api|site|website|project|laptop|computer"
    r"|machine|desktop|pc|server|servers|phone|everything|infrastructure|infra|data)\b.*\b(?:is|are|was|runs?|all|lives?"
    r"|sits?)\b"  # "our codebase is X"
    r"|\bit\s+is\s+(?:just|all|only|mostly|now)?\s*(?:\w+\s+)?$"  # "it is just black X now"
    r"|\b(?:standardi[sz]ed|swears?|swore)\s+(?:on|by)\b",
    re.I,
)
_USE_ZH = re.compile(
    r"(?:电脑|笔记本|系统|后端|前端|网站|项目|代码|服务|手机)[^，。！？；,!?;]{0,6}是"
    r"|用|使用|采用|部署|跑在|托管|放在|存在|存放在|存储在|存到|迁到|迁移|换成|换到|改成|切换|转到|喝|寄|发货|写|开发|选|走|装"
)
# A frame after the value that makes it the choice.
_AFTER_EN = re.compile(
    r"^\s*(?:person|fan|user|shop|house|guy|girl|drinker|lover|addict|all the way|handles|does|takes care of"
    r"|it is|is what (?:i|we)|(?:is|are|was|has been|have been)\s+(?:now\s+)?(?:my|our)\s+(?:\w+\s+)?"
    r"(?:ide|editor|database|db|language|cloud|os"
    r"|drink|carrier|courier|stack|tool|default|go-to)"
    r"|for (?:me|us|everything|all)|(?:is|are)\s+(?:now\s+)?(?:my|our)\s+(?:go-to|default|main|daily)"
    r"|(?:on\s+)?instead)\b",  # "put Fedora on instead"
    re.I,
)
# A drink naming a place after it ("a tea shop", "奶茶店") is the place, not the speaker's drink.
_PLACE_AFTER = re.compile(r"^\s*(?:shops?|houses?|bars?|stores?|stands?|stalls?|plantations?|farms?|店|馆|铺)", re.I)
_HAVE = re.compile(r"\b(?:have|has|having|had|order|orders|ordered|grab|get)\b", re.I)
_AFTER_ZH = re.compile(r"^(?:写|开发|发货|寄|部署|托管)")
# An update cue that makes the value the one given up (its scope: the few words before the value).
_OLD_BEFORE_EN = re.compile(
    r"\b(?:off|from|instead\s+of|rather\s+than|over|replac(?:e|ed|ing)|away\s+from|not|cannot|never|no\s+longer(?:\s+\w+)?"
    r"|stop(?:ped)?\s+\w+|quit(?:ting)?|gave\s+up|given\s+up|giving\s+up|drop(?:ped)?|ditch(?:ed)?|left|cut\s+out"
    r"|cut\s+(?:\w+\s+)?back\s+on|scratch|done\s+with|finished\s+with|got\s+rid\s+of"
    r"|used\s+to\s+\w+|out\s+of|renamed|renaming)\s+(?:\S+\s+){0,2}$",
    re.I,
)
_OLD_AFTER_EN = re.compile(
    r"^\s*(?:any\s*more|no\s+more|is\s+behind|is\s+gone|is\s+out|was\s+(?:too|so))\b"
    r"|^'s\s+name\s+to\b|^\s+is\s+(?:now\s+)?officially\s+(?:called\s+|named\s+)?(?-i:[A-Z])",  # a name changed
    re.I,
)
_OLD_BEFORE_ZH = re.compile(
    r"(?:不用|不再用|不再使用|不再|不喝|别用|别再用|没再用|停用|弃用|放弃|从|把|而不是|不是|不想用|以前用|之前用|原来用"
    r"|以前是|之前是|以前|原来|离开|退出)[^，。！？；,!?;]{0,4}$"
    r"|(?:那时候|那会儿|那时|当时|小时候|当年)[^，。！？；,!?;]{0,10}$"  # a time gone by: what it says held then
)
_OLD_AFTER_ZH = re.compile(r"^(?:换成|改成|换掉|不用|太)")
# Who the clause is about: a relative named before the value, or someone else.
_RELATIVE_EN = re.compile(rf"\bmy\s+(?P<r>{px._REL_EN})\b(?!\s*'s)", re.I)
_RELATIVE_ZH = re.compile(rf"我的?(?P<r>{px._REL_ZH})")
_NAMED_EN = re.compile(r"\s+(?!I\b)(?-i:[A-Z][a-z]+)\b")  # "my colleague Tom …": the relation, then a name
# "我同事小李", "我朋友老张": 小, 老 or 阿 before a common surname, which the tagger splits (小 / 李) or reads as a noun
_NICKNAME_ZH = re.compile(
    "[小老阿][王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔"
    "钟谭陆汪范金石廖贾夏付方白邹孟熊秦邱江尹薛段雷侯龙史陶黎贺顾毛郝龚邵钱严武戴孔汤]"
)
_OTHER_EN = re.compile(  # a pronoun, or a name (of up to three words, or its "'s team") as the subject of a verb
    # in the third person or the past ("Dana only drinks tea", "Tariq Petrov drinks", "Grace Novak's team migrated")
    r"(?:^|\s)(?i:he|she|they|his|her|their)\b|^\s*(?![A-Z][a-z]*(?:ly|ed|ing)\b)(?P<name>[A-Z][a-z]+)(?:\s+[A-Z][a-z]+){0,2}(?:'s\s+\w+)?\s+"
    r"(?:(?:from|at|in|on)\s+(?:the\s+)?[\w-]+\s+)?"  # "Lucas from accounting drinks …": known by where he works
    r"(?:(?!(?i:i|we|you|they|he|she|it)\b)[a-z]+\s+)?"
    r"(?:uses|drinks|runs|writes|codes|prefers|works|ships|hosts|deploys|has|is|was|likes|loves|swears|lives|grew"
    r"|teaches|studies|owns|[a-z]+ed)\b"
)
# Another party named by its role towards the speaker ("our competitor", "my landlord", "我们的客户"): its choices
# are its own, not the team's or the speaker's.
_PARTY_EN = re.compile(
    r"\b(?:our|my|the)\s+(?:\w+\s+)?(?:competitors?|rivals?|clients?|customers?|partners?|vendors?|suppliers?"
    r"|landlords?|neighbou?rs?|investors?|contractors?)\b(?!\s*'s)",
    re.I,
)
_PARTY_ZH = re.compile(r"(?:我们|我)的?(?:竞争对手|对手|客户|合作方|合作伙伴|供应商|房东|邻居|投资人)")
_OTHER_ZH = re.compile(r"(?<!我)(?:他|她)(?!们的?[\u4e00-\u9fff]{0,2}(?:我|咱))")
# Reported words: a quoted clause, a third party's request relayed to the assistant.
_QUOTED = re.compile(r"\"[^\"]*\s[^\"]*\s[^\"]*\"|“[^”]{4,}”|「[^」]{4,}」|(?<!\w)'[^']*\s[^']*\s[^']*'(?!\w)")
_REPORTED_EN = re.compile(
    rf"\b(?:my\s+(?:{px._REL_EN})|he|she|they|(?:the|our|my|his|her|their)\s+(?:[\w-]+\s+){{0,2}}?[\w-]+"
    r"|(?-i:[A-Z][a-z]+))\s+(?:\w+\s+)?(?:said|says|saying|told|tells|asked|asks|suggested|suggests|thinks|wants|wanted"
    r"|insists|insisted)\s+(?:that\s+)?(?:you\b|we\s+(?:should|must|need)|to\b)",
    re.I,
)
_REPORTED_ZH = re.compile(
    rf"(?:{px._REL_ZH}|他|她|他们|她们|别人)[^，。！？；]{{0,4}}?(?:说|觉得|认为|建议|要求|让|叫|要)(?:过)?(?:你|我们应该|应该)"
)
# fmt: on


def unquote(sentence: str) -> str:
    """The sentence without its quoted clauses (a quoted name or a word in quotes stays)."""
    return _QUOTED.sub(" ", sentence)


def reported(sentence: str) -> bool:
    """Someone else's request or suggestion relayed ("my colleague asked you to…", "老板说我们应该…")."""
    return bool(_REPORTED_EN.search(sentence) or _REPORTED_ZH.search(sentence))


_CONJUNCT = re.compile(r"\s*(?:[,;，；]|\b(?:and|but)\b)\s*", re.I)


def unreported(sentence: str) -> str:
    """The speaker's own part of a sentence: the clauses before one that relays someone else's request ("My
    birthday's March 3rd and my husband wants to throw a party" says the birthday); "" when it opens with it."""
    found = _REPORTED_EN.search(sentence) or _REPORTED_ZH.search(sentence)
    if found is None:
        return sentence
    cut = max((m.start() for m in _CONJUNCT.finditer(sentence, 0, found.start())), default=0)
    return sentence[:cut].strip()


def clause_of(text: str, at: int) -> tuple[str, str]:
    """The text of ``at``'s clause before it and after it. The clause marks are found once per text: a
    sentence naming hundreds of values asks this of each, and a scan per value was quadratic."""
    starts, ends = _clause_marks(text)
    i = bisect.bisect_right(ends, at)  # the marks ending at or before ``at``; the next one may span it
    if i < len(starts) and starts[i] < at:  # ``at`` inside a mark: scanned up to it alone, as it reads there
        start = max((m.end() for m in _CLAUSE.finditer(text, 0, at)), default=0)
        end = next((m.start() for m in _CLAUSE.finditer(text, at)), len(text))
        return text[start:at], text[at:end]
    return text[ends[i - 1] if i else 0 : at], text[at : starts[i] if i < len(starts) else len(text)]


@lru_cache(maxsize=32)
def _clause_marks(text: str) -> tuple[list[int], list[int]]:
    marks = list(_CLAUSE.finditer(text))
    return [m.start() for m in marks], [m.end() for m in marks]


# A clause that names whom it is about: a pronoun or possessive, a capitalised name; 我, 你, 他, …
_OWN_SUBJECT_EN = re.compile(
    r"\b(?:i|we|you|he|she|they|it|my|our|your|his|her|their|let's)\b|\b(?-i:[A-Z][a-z]+)\b", re.I
)
_OWN_SUBJECT_ZH = re.compile(r"[我咱你他她它]")


def _whose(text: str, at: int, before: str) -> str | None:
    """``owner`` of the clause that says the value at ``at``. A later clause with no subject of its own is the
    sentence's ("my brother lives in Leeds and uses Vim", "我老公在华为上班，天天喝茶"), not the speaker's."""
    who = owner(before)
    if who != "user" or at == len(before) or _OWN_SUBJECT_EN.search(before) or _OWN_SUBJECT_ZH.search(before):
        return who
    return None if opens_with_a_name(before) else owner(_CLAUSE.split(text, maxsplit=1)[0])


def owner(before: str) -> str | None:
    """``user`` (the speaker or the team: decided by pronoun later), a relative's subject, or None when the
    clause is about someone else ("he uses Vim", "Dana drinks tea", "他用Vim")."""
    if m := _RELATIVE_EN.search(before) or _RELATIVE_ZH.search(before):
        who = lx.RELATIONS.get(m["r"].lower())
        # One of many, named ("my colleague Tom", "我的同事小王"): that person, not the relation's one key, which
        # the next colleague named would supersede ("colleague/drink": Anna's coffee replacing Tom's tea).
        rest = before[m.end() :]
        named = _NAMED_EN.match(rest) if m.re is _RELATIVE_EN else _NICKNAME_ZH.match(rest) or opens_with_a_name(rest)
        return None if who in MANY and named else who
    if _PARTY_EN.search(before) or _PARTY_ZH.search(before):
        return None
    other = _OTHER_EN.search(before)
    if other and not (other["name"] and other["name"].lower() in lx.EN_STOPWORDS | set(vx.ALIASES)):
        return None
    return None if _OTHER_ZH.search(before) or opens_with_a_name(before) else "user"


_NEW_SIDE = re.compile(r"\b(?:to|into|onto)\s+$|(?:换成|改成|改用|换用|迁到|转到)了?$", re.I)
# "we replaced MongoDB with PostgreSQL", "I swapped Emacs for Vim", "I ditched Sublime for Neovim": the value
# after with/for is the new one
_REPLACED_WITH = re.compile(
    r"\b(?:replac|swapp|substitut|exchang|trad|ditch|dump)\w*\s+(?:out\s+)?[^,;.!?]{1,40}?\s+(?:with|for|by)\s+$", re.I
)


_CUE_REACH = 160  # characters before a value its cues are read in: the last words, every pattern ends with ``$``


def is_old(before: str, after: str) -> bool:
    """The value is the one given up: an update cue governs it ("from Python to Go": Go is the new side).
    Only the last words before it are read (from a word's start): searched whole, a long sentence with
    a value every few words was read once per value."""
    if len(before) > _CUE_REACH:
        tail = before[-_CUE_REACH:]
        before = tail[tail.find(" ") + 1 :] if not before[-_CUE_REACH - 1].isspace() else tail
    if _NEW_SIDE.search(before) or _REPLACED_WITH.search(before):
        return False
    return bool(
        _OLD_BEFORE_EN.search(before)
        or _OLD_AFTER_EN.match(after)
        or _OLD_BEFORE_ZH.search(before)
        or _OLD_AFTER_ZH.match(after)
    )


def _framed(before: str, after: str, category: str) -> bool:
    if category == "drink" and _PLACE_AFTER.match(after):  # "I run a small tea shop": a place, not a drink
        return False
    nouns = {name for name, attr in lx.ATTRIBUTES.items() if attr == category}
    noun = any(re.search(rf"\b{re.escape(n)}\b" if n.isascii() else re.escape(n), before, re.I) for n in nouns)
    drunk = category == "drink" and _HAVE.search(before)  # "every afternoon I have a latte"
    used = _USE_EN.search(before) or _USE_ZH.search(before) or _REPLACED_WITH.search(before)
    return bool(noun or drunk or used or _AFTER_EN.match(after) or _AFTER_ZH.match(after))


def mentions(text: str, lead: str = "") -> Iterator[tuple[int, str, str, str]]:
    """Each lexicon value the text mentions: (position, alias as said, category, canonical). Of a common noun
        named with another of its kind before it ("oat milk lattes", "燕麦奶拿铁"), the last: the head of the
        compound (the drink is a latte, made with oat milk); a drink with modifiers that are not drinks, the whole
    as said, its own value (``compounds.modified``: "喝港式奶茶" is 港式奶茶). ``lead``: the sentence before ``text``,
    where the verb taking the drink may be."""
    found = list(vx.ALIAS_RE.finditer(text))
    for m, after in zip(found, [*found[1:], None], strict=False):
        category, canonical, _ = vx.ALIASES[m[0].lower()]
        if (
            after is not None
            and category in lx.NOT_ENTITY_CATEGORIES
            and vx.ALIASES[after[0].lower()][0] == category
            and not text[m.end() : after.start()].strip(" -")
        ):
            continue
        if (whole := modified(lead + text, len(lead) + m.start(), m[0], category)) and whole[0] >= len(lead):
            yield whole[0] - len(lead), whole[1], category, whole[1]  # "喝港式奶茶": 港式奶茶
            continue
        if category == "drink" and m[0].isascii() and canonical in (said := singular(m[0])) and said != canonical:
            canonical = said  # the drink as said when it names more than the lexicon's head: "rooibos tea"
        yield m.start(), m[0], category, canonical
    for m in vx.GO_RE.finditer(text):
        yield m.end() - 2, "Go", "programming_language", "go"


_CAPITALISED_NEXT = re.compile(r"\s+[A-Z]")
_CAPITALISED_LAST = re.compile(r"[A-Z][\w'&.-]*\s+$")


def _in_a_name(text: str, at: int, said: str, category: str) -> bool:
    """A common noun's mention capitalised between capitalised words is part of a name ("Delta Water Authority")."""
    if category not in lx.NOT_ENTITY_CATEGORIES or not said[:1].isupper() or at == 0:
        return False
    return bool(_CAPITALISED_LAST.search(text[:at]) or _CAPITALISED_NEXT.match(text, at + len(said)))


def choices(text: str, skip: set[str]) -> list[tuple[str, str]]:
    """The (key, value) of each category the text states a current choice in, one value per category;
    ``skip``: categories and values the rule table already took from this sentence."""
    new: dict[str, set[tuple[str, str]]] = {}
    for at, said, category, canonical in mentions(text):
        short = len(said) <= 3 and said.isascii() and said.islower() and category not in lx.NOT_ENTITY_CATEGORIES
        if category in skip or canonical in skip or short or _in_a_name(text, at, said, category):
            continue  # "ups and downs"; a drink is a common noun, "the Delta Water Authority" a name
        before, after = clause_of(text, at)
        after = after[len(said) :]
        who = _whose(text, at, before)
        if who is None or is_old(before, after) or not _framed(before, after, category):
            continue
        if who == "user":
            key, value = vx.category_kv((category, canonical), text)
        else:
            key, value = f"{who}/{category}", canonical
        new.setdefault(category, set()).add((key, value))
    return [next(iter(found)) for found in new.values() if len(found) == 1]


@lru_cache(maxsize=32)
def _mentioned(sentence: str) -> tuple[tuple[int, str, str, str], ...]:
    """``mentions``, once per sentence: each of its typed values asks for them."""
    return tuple(mentions(sentence))


def relative_of(sentence: str, value: str) -> str | None:
    """For a category choice the rule table keyed on the speaker: the relative whose choice it is
    ("我老公还是每天喝咖啡"), ``other`` when someone else's, else None."""
    for at, _, _, canonical in _mentioned(sentence):
        if canonical != value:
            continue
        before, _ = clause_of(sentence, at)
        who = _whose(sentence, at, before)
        if who != "user":
            return who or "other"
    return None
