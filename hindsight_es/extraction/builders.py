"""Keys of the rule extractor: what a matched pattern means (``match -> (key, value)``, or several).

One builder per kind of statement; a builder returns None to reject the match. Keys name the subject (``user``,
``team``, a relative: ``sister``) and the attribute, with the entity where the attribute is about one
(``preference:sushi``, ``pet:cat``, ``shipping_carrier:international``); values are normalized in ``values.py``.
``rules.py`` holds the rule table."""

from __future__ import annotations

import re
from collections.abc import Callable

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import nouns
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction import updates as ux
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.names_zh import is_person_name

KeyValue = tuple[str | None, str | None]
Built = KeyValue | list[KeyValue] | None
Builder = Callable[[re.Match[str]], Built]


def _group(m: re.Match[str], name: str) -> str | None:
    return m.groupdict().get(name)


# ---- builders: match -> (key, value), or None to reject the match -----------------------------
def place(attr: str) -> Builder:
    def build(m: re.Match[str]) -> Built:
        if attr == "employer":  # "Airbus in Toulouse": where the work is, too
            return [kv for kv in (vx.workplace(m["v"]), vx.work_place("user", m["v"])) if kv] or None
        if found := vx.category(m["v"]):  # "we moved to Postgres" is a choice
            return vx.category_kv(found, m)
        v = vx.place_named(m["v"])
        if attr == "location" and vx.visiting(m[0], m.string):  # "staying at a hotel for the first week"
            return None
        if attr == "location" and vx.ORGANISATION.search(v):  # "moved over to Sutter Health": a new employer
            return vx.workplace(m["v"])
        return None if vx.vague(v) or v.isdigit() else (f"user/{attr}", v)  # "born in 1990" is no place

    return build


def _cleaned(attr: str, raw: str) -> str:
    """A value as said, cleaned; an age in Chinese numerals as digits ("二十八" -> "28"); a job as ``vx.job``."""
    v = vx.clean(raw)
    return vx.digits(v) if attr == "age" else vx.job(v) if attr == "occupation" else v


def fixed(attr: str, value: str | None = None) -> Builder:
    def build(m: re.Match[str]) -> Built:
        v = value or _cleaned(attr, m["v"])
        return None if vx.vague(v) else (f"{vx.subject(attr, m[0])}/{attr}", v)

    return build


def name(require_capital: bool, person: bool = False) -> Builder:
    def build(m: re.Match[str]) -> Built:
        raw = m["v"].strip()
        if require_capital and raw[:1].isascii() and not raw[:1].isupper():  # "call me tomorrow"
            return None
        if person and not is_person_name(raw):  # "我是许晴", not "我是老师"
            return None
        if capitalised := vx.CAPITALISED.match(raw):  # a capitalised name ends at a word that is not: "Tom by the way"
            raw = capitalised[0]
        v = vx.attribute_value("name", vx.clean(raw))
        return None if vx.vague(v) else ("user/name", v)

    return build


def relation(attr: str) -> Builder:
    """A relative's or a colleague's attribute: "my sister lives in Chengdu" -> ``sister/location``."""

    def build(m: re.Match[str]) -> Built:
        who = lx.RELATIONS.get(vx.clean(m["r"]))
        raw = vx.PLACE_CUT.sub("", m["v"]) if attr in ("location", "employer") else m["v"]
        v = _cleaned(attr, vx.work_tail(raw)[0] if attr == "employer" else raw)
        if who is None or (vx.vague(v) and not v.isdigit()):
            return None
        if attr == "employer" and (at := vx.work_place(who, raw)):  # "my sister works at Airbus in Toulouse"
            return [(f"{who}/employer", v), at]
        # a clause is no name: "我闺女在深圳读完研就留那工作了" says where she lives
        if attr in ("employer", "school") and re.search(r"[就了那这着把被]", v) and (place := vx.PLACE_RE.match(v)):
            return f"{who}/location", place[0]
        return f"{who}/{'location' if attr in ('employer', 'school') and v in vx.ZH_PLACES else attr}", v

    return build


def relation_avoid(m: re.Match[str]) -> Built:
    """What a relative does not eat: "my daughter can't have dairy" -> ``daughter/diet:dairy`` = ``not:dairy``."""
    who, v = lx.RELATIONS.get(vx.clean(m["r"])), vx.object_of(m["v"])
    return (f"{who}/diet:{vx.slug(v)}", f"not:{v}") if who and not vx.vague(v) else None


def relation_allergy(m: re.Match[str]) -> Built:
    """A relative's allergy, keyed by what they are allergic to as the speaker's is: ``mother/allergy:花粉``."""
    who, v = lx.RELATIONS.get(vx.clean(m["r"])), vx.clean(m["v"])
    return None if who is None or vx.vague(v) else (f"{who}/allergy:{vx.slug(v)}", v)


def teacher(m: re.Match[str]) -> Built:
    """ "I teach biology": the occupation a subject taught names."""
    return "user/occupation", f"{m['v'].lower()} teacher"


_WORKS = re.compile(r"\bwork|工作|上班|任职", re.I)
_STUDIES = re.compile(r"\b(?:goes to|attends|is at|studies)\b|上学|读书", re.I)


def relation_job_at(m: re.Match[str]) -> Built:
    """A relative's job and where: a place they live in ("在成都", "in Chengdu"), or a named employer."""
    who, job = lx.RELATIONS.get(vx.clean(m["r"])), _cleaned("occupation", m["v"])
    at = ("user/location", m["p"]) if m["at"] == "in" else vx.workplace(m["p"])
    out: list[KeyValue] = [] if who is None or vx.vague(job) else [(f"{who}/occupation", job)]
    return out + [(f"{who}/{at[0].partition('/')[2]}", vx.clean(at[1]))] if out and at else out or None


def relation_place(m: re.Match[str]) -> Built:
    """Where a relative lives, works or studies (the verb of the match says which)."""
    attr = "employer" if _WORKS.search(m[0]) else "school" if _STUDIES.search(m[0]) else "location"
    return relation(attr)(m)


def relation_in(m: re.Match[str]) -> Built:
    """ "我哥哥还在成都": a relative's place, when 在 names a known place (not "在开会")."""
    who, v = lx.RELATIONS.get(vx.clean(m["r"])), vx.clean(m["v"])
    return (f"{who}/location", v) if who and v in vx.ZH_PLACES else None


def relation_likes(m: re.Match[str]) -> Built:
    who = lx.RELATIONS.get(vx.clean(m["r"]).lower())
    found = [v for v in vx.objects(m["v"]) if not vx.vague(v)]
    return [(f"{who}/preference:{vx.slug(v)}", v) for v in found] if who and found else None


def relation_pet(m: re.Match[str]) -> Built:
    """A relative's pet: "my mom has a cat named Luna" -> ``mother/pet:cat``."""
    who, animal = lx.RELATIONS.get(vx.clean(m["r"])), lx.PETS.get(vx.clean(m["a"]))
    v = vx.clean(m["v"])
    return None if who is None or animal is None or vx.vague(v) else (f"{who}/pet:{animal}", v)


def pet(m: re.Match[str]) -> Built:
    animal = lx.PETS.get(m["a"].strip().lower()) or lx.PETS.get(vx.clean(m["a"]))  # "二哈": not a particle
    v = vx.clean(m["v"])
    return None if animal is None or vx.vague(v) else (f"user/pet:{animal}", v)


def employment(m: re.Match[str]) -> Built:
    """ "I work at Google as a data scientist", "我在华为做测试工程师": the employer and the occupation."""
    role = vx.clean(m["v"])
    out: list[KeyValue] = [where] if (where := vx.workplace(m["e"])) else []
    return out + ([] if vx.vague(role) else [("user/occupation", role)]) or None


_CLAUSE_END = re.compile(r"[,;.!?，；。！？]")


def chosen(raw: str, before: str = "") -> tuple[str, str] | None:
    """The lexicon value a span chooses: its first one not given up ("DHL instead of UPS" is DHL; "instead
    of UPS" alone, the tail of "Ship with DHL from now on instead of UPS", chooses nothing). ``before``: the
    sentence up to the span, whose last words may give the value up ("我以前喝咖啡")."""
    before = _CLAUSE_END.split(before)[-1]  # its own clause: "we no longer use MySQL, only PostgreSQL"
    for at, said, category, canonical in ux.mentions(raw, before):
        if not ux.is_old(before + raw[:at], raw[at + len(said) :]):
            return category, canonical
    return None


_GIVEN_UP_USE = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+)?(?:(?:no longer|do not|never|stopped)\s+(?:use|drink|using|drinking|ship with|code in)"
    r"|gave up|quit|dropped|cut out|am off|are off)\s+[^,;.!?]{1,40}$",
    re.I,
)


def only_now(m: re.Match[str]) -> Built:
    """ "…, only green tea now" after a use given up ("I no longer drink coffee"): the new value, if a choice."""
    return categorical(m) if _GIVEN_UP_USE.search(m.string, 0, m.start()) else None


def categorical(m: re.Match[str]) -> Built:
    found = chosen(m["v"], m.string[: m.start("v")])
    return vx.category_kv(found, m) if found else None


_ZH_TOOL_VERB = frozenset({"用", "使用", "改用", "换成", "换用", "选", "选用"})
_ZH_TOPIC_NOISE = re.compile(rf"^(?:{px.ZI})?{px.ZADV}|{px.ZADV}$")


def used_for(m: re.Match[str]) -> Built:
    """ "以后开会都用腾讯会议": a category choice, else the tool chosen for the activity (``choice:开会``)."""
    if (found := categorical(m)) is not None or m["verb"] not in _ZH_TOOL_VERB:
        return found
    activity, v = _ZH_TOPIC_NOISE.sub("", m["g"]), vx.object_of(m["v"])
    if not 2 <= len(activity) <= 6 or "我" in activity + v or vx.vague(v):  # "用微信通知我" acts on the speaker
        return None
    return _tool_for(activity, v, m)


def _tool_for(activity: str, tool: str, m: re.Match[str]) -> tuple[str, str]:
    """The key and value of the tool chosen for an activity: ``<subject>/choice:<activity>``."""
    return f"{vx.subject('choice', m.string)}/choice:{vx.slug(activity)}", tool


# Only after "use": "switched to decaf for health reasons" and "moved to Lisbon for the sunshine" name a
# reason after "for", not an activity.
_USED = re.compile(r"\b(?:use|using)\s+$", re.I)
_NOT_ACTIVITIES = frozenset({"everything", "anything", "all", "now", "good", "ever", "a while", "the rest"})
_FOR_ACTIVITY = re.compile(
    r"^(?P<tool>.+?)\s+for\s+(?:(?:our|my|the|all|any|every)\s+)?(?P<activity>[a-z][a-z -]{2,30})$"
)


_ACTS_ON_ME = re.compile(r"[\u4e00-\u9fff]我|\b(?:me|us)\b", re.I)
_USE_VERB = re.compile(r"(?:用|使用)$")


def choice(m: re.Match[str]) -> Built:
    """A choice among alternatives: a lexicon category, a favorite's facet the value names ("更喜欢喝普洱"
    -> ``favorite:tea``), else a preference keyed by the head noun ("window seats" -> ``preference:seats``)."""
    raw = vx.CHOICE_CUT.sub("", m["v"])
    if vx.category(raw):
        found = chosen(raw, m.string[: m.start("v")])
        return vx.category_kv(found, m) if found else None
    if _USED.search(m.string, 0, m.start("v")) and (said := _FOR_ACTIVITY.match(vx.clean(m["v"]))):
        v = vx.object_of(said["tool"])  # "use Zoom for calls"
        if not vx.vague(v) and not _ACTS_ON_ME.search(m["v"]) and said["activity"] not in _NOT_ACTIVITIES:
            return _tool_for(said["activity"], v, m)
    if _ACTS_ON_ME.search(raw):  # "以后都用微信通知我": a way to act on the speaker is an instruction, not a taste
        verb = _USE_VERB.search(m.string, 0, m.start("v"))
        return f"user/instruction:{vx.slug((verb[0] if verb else '') + vx.clean(raw))}", "always"
    v = vx.object_of(raw)
    if vx.vague(v):
        return None
    if facet := vx.facet(v):
        return f"user/favorite:{facet}", v
    head = v.split()[-1] if v.isascii() and len(v.split()) > 1 else v
    return f"user/preference:{vx.slug(head)}", v


def likes(negated: bool) -> Builder:
    def build(m: re.Match[str]) -> Built:
        found = [v for v in vx.objects(m["v"]) if not vx.vague(v)]
        return [(f"user/preference:{vx.slug(v)}", f"not:{v}" if negated else v) for v in found] or None

    return build


# "帮我想几句生日文案，别太肉麻": a "don't" after a request in the same sentence is how to do that request,
# not a standing rule, unless it says it stands (别再, 以后, 每次 …)
_REQUESTED_ZH = re.compile(r"(?:帮我|给我|替我|请你?帮)[^。！？]*$")
_STANDING_ZH = re.compile(r"再|以后|今后|每次|总是|一直|永远|从现在|任何时候|都")


# A permission that opens an instruction ("also you can", "go ahead and"), and a verb that takes something out of
# the replies: "you can drop the comments from now on" is an instruction never to give them.
_ALLOWED_LEAD = re.compile(
    r"^(?:(?:also|so|and|just|pls|please|(?:you|u)\s+can|go\s+ahead\s+and|feel\s+free\s+to)\s+)+", re.I
)
_LEAVE_OUT = re.compile(r"^(?:drop|skip|ditch|lose|remove|get\s+rid\s+of|leave\s+out|stop\s+\w+ing)\s+(?=\S)", re.I)


def directive(polarity: str) -> Builder:
    def build(m: re.Match[str]) -> Built:
        if polarity == "never" and _REQUESTED_ZH.search(m.string, 0, m.start()) and not _STANDING_ZH.search(m[0]):
            return None
        raw, said = _ALLOWED_LEAD.sub("", (_group(m, "g") or "") + m["v"]), polarity
        if polarity == "always" and (out := _LEAVE_OUT.match(raw)):
            raw, said = raw[out.end() :], "never"
        if polarity == "always" and vx.category(raw):
            found = chosen(raw)
            return vx.category_kv(found, m) if found else None
        v = vx.directive_action(raw)
        return None if vx.vague(v) else (f"user/instruction:{vx.slug(v)}", said)

    return build


def avoid(prefix: str) -> Builder:
    def build(m: re.Match[str]) -> Built:
        v = vx.object_of(m["v"])
        return None if vx.vague(v) else (f"user/{prefix}:{vx.slug(v)}", f"not:{v}")

    return build


def left(attribute: str) -> Builder:
    """A place or employer left ("I quit my job at Amazon", "我从百度离职了"): ``not:<it>`` on its key."""

    def build(m: re.Match[str]) -> Built:
        v = vx.clean(m["v"])
        return None if vx.vague(v) else (f"user/{attribute}", f"not:{v}")

    return build


def eats(m: re.Match[str]) -> Built:
    """ "我现在能吃辣了": the diet restriction on it is lifted (same key, positive value)."""
    v = vx.object_of(m["v"])
    return None if vx.vague(v) else (f"user/diet:{vx.slug(v)}", v)


def budget(m: re.Match[str]) -> Built:
    v = re.sub(r"^([$€£¥]) ", r"\1", " ".join(m["v"].split()).rstrip(",.").lower())
    owner = m.string[max(0, m.start() - 8) : m.end()]  # "our budget" / "我们的预算"
    return f"{vx.subject('budget', owner)}/budget", v


def email(m: re.Match[str]) -> Built:
    return "user/email", m["v"].lower().rstrip(".")


def reply_language(m: re.Match[str]) -> Built:
    return "user/reply_language", lx.REPLY_LANGUAGES[m["v"].lower()]


_NO_LONGER = re.compile(r"^(?:no longer|not|never)\b|^(?:已经)?(?:不再是|不是|不再)", re.I)


def favorite(m: re.Match[str]) -> Built:
    """ "my favourite X is Y", "Y is my favourite X" and, without X, the facet Y names ("ramen" -> food). A
    favourite that is no longer one ("… is no longer pizza", "…不是红色了") is the value given up: nothing."""
    raw = re.sub(r"(?:现在|目前|如今)$", "", vx.clean(_group(m, "a") or ""))  # "最喜欢的水果现在是…"
    if _NO_LONGER.match(m["v"].strip()) or raw.endswith(("不", "不再", "已经不")):
        return None
    v = vx.object_of(m["v"])
    if vx.vague(v):
        return None
    facet = lx.FAVORITES.get(raw, vx.slug(raw)) if raw else vx.facet(v)
    return (f"user/favorite:{facet}", v) if facet else ("user/favorite", v)


def attribute(m: re.Match[str]) -> Built:
    if _NO_LONGER.match(m["v"].strip()):  # "my favourite food is no longer pizza": the value given up
        return None
    if nouns.not_stated(m):
        return None
    raw_attr = re.sub(r"^(?:new|current|old|actual|real|own)\s+|^(?:新的?|现在的|目前的|新)", "", vx.clean(m["a"]))
    owner = re.fullmatch(r"([\w ]+?)'s ([\w ]+)", raw_attr)
    who, attr = "user", lx.ATTRIBUTES.get(raw_attr)
    if raw_attr in lx.REPLY_LANGUAGES or raw_attr in vx.BODY:  # "my English is fine", "my feet are killing me"
        return None
    if owner:
        if owner[1] in lx.PETS and owner[2] == "name":  # "my dog's name is Rex"
            v = vx.clean(m["v"])
            return None if vx.vague(v) else (f"user/pet:{lx.PETS[owner[1]]}", v)
        if owner[1] not in lx.RELATIONS and owner[2] != "name":  # "my neighbour's cat is …" is not the user's
            return None
        who = lx.RELATIONS.get(owner[1], "user")
        attr = lx.ATTRIBUTES.get(owner[2]) if who != "user" else f"{owner[1]}_{owner[2]}".replace(" ", "_")
    if attr is None and (owner is not None or vx.category(m["v"]) or (attr := nouns.named(raw_attr, m[0])) is None):
        return None
    if attr in lx.CATEGORIES and (found := vx.category(m["v"])):
        return vx.category_kv(found, m)
    v = vx.clean(vx.PLACE_CUT.sub("", m["v"]) if attr in {"location", "hometown", "employer"} else m["v"])
    v = vx.attribute_value(attr, v)
    return None if vx.vague(v) else (f"{who if who != 'user' else vx.subject(attr, m[0])}/{attr}", v)


# A job taken up ("改当老师", "转行做程序员"): the update names the occupation whatever the old job was called
_TAKES_UP_JOB = re.compile(rf"(?:当|做|干|担任)了?(?:一名|一位|一个|名)?(?:{px._JOBS_ZH})$")


def updated(m: re.Match[str]) -> Built:
    """The new side of an update whose attribute is the replaced value's (``anchors``): ``<subject>/?``."""
    v = vx.clean(m["v"])
    if vx.vague(v) or vx.category(v):  # a category's frames are ``updates.choices``
        return None
    if _TAKES_UP_JOB.search(m[0]) and re.fullmatch(rf"[^\s]{{0,6}}?(?:{px._JOBS_ZH})", v):
        return "user/occupation", v
    typed = vx.typed_attribute(v)  # a value whose form names its attribute: "new email: ray@…"
    return (f"user/{typed}", v) if typed else ("user/?", v)


def keyless(m: re.Match[str]) -> Built:
    v = vx.clean(m["v"])
    return None if vx.vague(v) else (None, v)


def decision(m: re.Match[str]) -> Built:
    found = vx.category(m["v"])
    return vx.category_kv(found, m) if found else keyless(m)
