"""Deterministic bilingual (zh + en) rule extractor: one turn -> one episode + typed candidates.

Keys are "<subject>/<attribute>". Personal attributes are always "user" so I/we/我/我们 statements
collide; database, programming_language, cloud_provider and budget follow the pronoun ("we"/"let's"/
我们 -> "team", "I"/我 -> "user", else lexicon.PRONOUN_SCOPED). Attributes: a lexicon category
(shipping_carrier, database, programming_language, editor, cloud_provider, os, drink), name, location,
hometown, employer, occupation, age, email, ...; favorite:<facet>; preference:<object> (value
"not:<object>" when negated); allergy:<x>; diet, diet:<x>; budget; reply_language; instruction:<action>
(value "always"/"never"). Plans, and decisions without a category, have no key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from hindsight_es.extraction import allergies, casual, kin, passing, pets, replies
from hindsight_es.extraction import builders as b
from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction import updates as ux
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.anchors import UNKNOWN
from hindsight_es.extraction.builders import Builder, KeyValue
from hindsight_es.extraction.entities import entities
from hindsight_es.extraction.filler import is_filler
from hindsight_es.extraction.matching import matching_copy
from hindsight_es.extraction.pronouns import resolved
from hindsight_es.extraction.quotes import quoted
from hindsight_es.extraction.schema import Candidate, MemoryKind
from hindsight_es.extraction.scripts import plain, written
from hindsight_es.extraction.speech import EMOJI_END, asserted, meant_once, one_off
from hindsight_es.extraction.statements import statement
from hindsight_es.text import flattened

# ---- the rule table (order is priority: an earlier rule claims its span first) ----------------
_CJK, _LATIN = re.compile(r"[\u3400-\u9fff]"), re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: MemoryKind
    en: tuple[str, ...]  # regex sources run only on sentences with Latin letters
    zh: tuple[str, ...]  # run only on sentences with CJK characters
    build: Builder
    importance: float
    confidence: float
    agreed: bool = False  # a shared decision: also taken from assistant turns


def _rule(
    kind: MemoryKind, sources: tuple[str, ...], build: Builder, imp: float, conf: float, agreed: bool = False
) -> _Rule:
    en = tuple(s for s in sources if not _CJK.search(s))
    return _Rule(kind, en, tuple(s for s in sources if _CJK.search(s)), build, imp, conf, agreed)


@cache
def _compiled(source: str) -> re.Pattern[str]:
    """A rule's pattern, compiled when a sentence first needs it: compiling the whole table took a quarter
    of a second of every process start (serve, recall and stats never extract), and ``re``'s own cache
    (512 patterns) is smaller than the rules and everything else a process compiles."""
    return re.compile(source, re.I)


RULES: tuple[_Rule, ...] = (
    _rule("fact", px.EMAIL, b.email, 0.6, 0.85),
    _rule("preference", replies.REPLY_LANGUAGE, b.reply_language, 0.6, 0.85),
    _rule("constraint", px.ALLERGY, allergies.listed, 0.9, 0.85),
    _rule("constraint", allergies.ALLERGY_BARE, allergies.allergy, 0.9, 0.8),
    _rule("constraint", px.DIET, casual.diet, 0.8, 0.8),
    _rule("constraint", casual.DIET_EAT + casual.DIET_NAMED_ZH, casual.diet, 0.8, 0.75),
    _rule("constraint", passing.HEALTH, passing.condition, 0.8, 0.75),
    _rule("constraint", passing.DIET_ON, casual.diet, 0.8, 0.75),
    _rule("constraint", casual.DIET_VEGAN_ZH, b.fixed("diet", "vegan"), 0.8, 0.8),
    _rule("constraint", px.DIET_ZH, b.fixed("diet", "vegetarian"), 0.8, 0.8),
    _rule("constraint", px.DIET_OK, b.eats, 0.7, 0.75),
    _rule("constraint", px.DIET_AVOID, passing.diet_avoid, 0.8, 0.75),
    _rule("constraint", px.BUDGET, b.budget, 0.8, 0.8),
    _rule("constraint", casual.BUDGET, b.budget, 0.8, 0.75),
    _rule("constraint", px.DONT_GIVE_ME, b.directive("never"), 0.7, 0.75),
    _rule("constraint", px.STOP, b.directive("never"), 0.7, 0.75),
    _rule("constraint", px.NEVER, b.directive("never"), 0.8, 0.75),
    _rule("preference", px.FAVORITE, b.favorite, 0.6, 0.85),
    _rule("preference", px.PREFER, b.choice, 0.6, 0.8),
    # "Call me Alex from now on" names the speaker; after the prohibitions ("never call me …") and
    # before "… from now on" makes an instruction of it.
    _rule("fact", px.NAME_CAPITAL, b.name(require_capital=True), 0.7, 0.85),
    _rule("preference", px.FROM_NOW_ON_USE, b.choice, 0.7, 0.85),
    _rule("preference", px.FROM_NOW_ON_USE_GAP, b.used_for, 0.7, 0.85),
    _rule("preference", px.FROM_NOW_ON, b.directive("always"), 0.7, 0.8),
    _rule("fact", kin.RELATIVE_JOB_AT, b.relation_job_at, 0.5, 0.8),
    _rule("fact", kin.RELATIVE_JOB, b.relation("occupation"), 0.5, 0.8),
    _rule("fact", kin.RELATIVE_NAME, b.relation("name"), 0.5, 0.8),
    _rule("fact", kin.RELATIVE_IS_NAMED, kin.relation_is_named, 0.5, 0.8),
    _rule("fact", kin.RELATIVE, b.relation_place, 0.5, 0.8),
    _rule("fact", kin.RELATIVE_AGE, b.relation("age"), 0.5, 0.8),
    _rule("fact", kin.RELATIVE_DIET, b.relation("diet"), 0.6, 0.8),
    _rule("constraint", kin.RELATIVE_AVOID, b.relation_avoid, 0.7, 0.75),
    _rule("fact", kin.RELATIVE_ALLERGY, b.relation_allergy, 0.7, 0.8),
    _rule("fact", kin.RELATIVE_PET, b.relation_pet, 0.5, 0.85),
    _rule("fact", kin.RELATIVE_IN, b.relation_in, 0.5, 0.75),
    _rule("fact", kin.RELATIVE_NAMED_IN, b.relation("location"), 0.5, 0.75),
    _rule("fact", kin.RELATIVE_JOINED, b.relation("employer"), 0.5, 0.8),
    _rule("fact", passing.RELATIVE_QUALIFIED, b.relation("occupation"), 0.5, 0.75),
    _rule("fact", passing.RELATIVE_WENT_ZH + passing.RELATIVE_MOVED_ZH, b.relation("location"), 0.5, 0.75),
    _rule("fact", passing.AND_WORKS, passing.relative_and("employer"), 0.5, 0.75),
    _rule("fact", passing.AND_LIVES, passing.relative_and("location"), 0.5, 0.75),
    _rule("fact", passing.AND_WORKS_AS, passing.relative_and("occupation"), 0.5, 0.8),
    _rule("preference", kin.RELATIVE_LIKE, b.relation_likes, 0.5, 0.75),
    _rule("fact", pets.PET, b.pet, 0.5, 0.85),
    _rule("fact", casual.PET, b.pet, 0.5, 0.8),
    _rule("fact", casual.PET_RENAMED, b.pet, 0.5, 0.8),
    _rule("fact", passing.PET_CALLED + passing.PET_NAME_IS, b.pet, 0.5, 0.8),
    _rule("fact", px.LOCATION, b.place("location"), 0.6, 0.85),
    _rule("fact", casual.LOCATION, b.place("location"), 0.6, 0.8),
    _rule("fact", casual.LIVES_ZH, b.place("location"), 0.6, 0.8),
    _rule("fact", casual.LOCATION_EN, b.place("location"), 0.6, 0.75),
    _rule("fact", px.HOMETOWN, b.place("hometown"), 0.6, 0.8),
    _rule("fact", casual.HOMETOWN, b.place("hometown"), 0.6, 0.75),
    _rule("fact", casual.BRED, b.place("hometown"), 0.6, 0.8),
    _rule("fact", px.NAME, b.name(require_capital=False), 0.7, 0.85),
    _rule("fact", px.NAME_INTRO, b.name(require_capital=True), 0.6, 0.8),
    _rule("fact", casual.NAME, b.name(require_capital=True), 0.6, 0.8),
    _rule("fact", casual.NAME_SAID, b.name(require_capital=True), 0.6, 0.8),
    _rule("fact", casual.FULL_NAME_ZH, casual.full_name, 0.6, 0.8),
    _rule("fact", casual.FULL_NAME_SAID, b.name(require_capital=False), 0.6, 0.8),
    _rule("fact", px.NAME_INTRO_ZH, b.name(require_capital=False, person=True), 0.6, 0.8),
    _rule("fact", px.EMPLOYER_LEFT, b.left("employer"), 0.6, 0.8),
    _rule("fact", px.EMPLOYMENT, b.employment, 0.6, 0.8),
    _rule("fact", px.EMPLOYER, b.place("employer"), 0.6, 0.8),
    _rule("fact", casual.WORKED_ZH, b.place("employer"), 0.6, 0.75),
    _rule("fact", passing.REPORTED_ZH + passing.JUMPED_ZH + passing.TEACH_AT, passing.workplace_taught, 0.6, 0.75),
    _rule("fact", casual.EMPLOYER, b.place("employer"), 0.6, 0.75),
    _rule("fact", px.OCCUPATION, casual.occupation, 0.6, 0.8),
    _rule("fact", casual.RETIRED, b.fixed("occupation"), 0.6, 0.75),
    _rule("fact", casual.JOB_HERE, b.fixed("occupation"), 0.6, 0.75),
    _rule("fact", casual.JOB_ONE + passing.JOB_KIND_ZH + passing.QUALIFIED, b.fixed("occupation"), 0.6, 0.75),
    _rule("fact", casual.DRIVES_ZH + casual.DRIVES_EN, casual.driver, 0.6, 0.75),
    _rule("fact", casual.TEACHES, b.teacher, 0.6, 0.75),
    _rule("fact", casual.TEACHER, b.fixed("occupation", "teacher"), 0.6, 0.75),
    _rule("fact", px.AGE, b.fixed("age"), 0.5, 0.8),
    _rule("fact", casual.AGE, b.fixed("age"), 0.5, 0.75),
    _rule("fact", passing.AGE_THIS_YEAR_ZH, b.fixed("age"), 0.5, 0.75),
    _rule("fact", passing.AGE_AFTER_NAME, passing.age_after_name, 0.5, 0.75),
    _rule("fact", passing.BIRTH_YEAR, passing.birth_year, 0.5, 0.8),
    _rule("fact", passing.OFFER, passing.offer, 0.6, 0.8),
    _rule("fact", casual.BIRTHDAY, casual.birthday, 0.5, 0.8),
    _rule("fact", passing.BIRTHDAY_COMING, casual.birthday, 0.5, 0.75),
    _rule("fact", px.ATTRIBUTE, b.attribute, 0.6, 0.85),
    _rule("fact", px.USES, b.categorical, 0.6, 0.8),
    _rule("fact", casual.DAILY_DRINK, b.categorical, 0.6, 0.75),
    _rule("fact", casual.DRINK_LOVER, b.categorical, 0.6, 0.75),
    _rule("fact", px.SWITCHED, b.choice, 0.6, 0.8),
    _rule("fact", passing.SWAPPED, b.choice, 0.6, 0.75),
    _rule("fact", px.ONLY_NOW, b.only_now, 0.6, 0.75),
    _rule("preference", px.DISLIKE, b.likes(negated=True), 0.6, 0.75),
    _rule("preference", px.LIKE, b.likes(negated=False), 0.5, 0.75),
    _rule("decision", px.AGREED, b.decision, 0.7, 0.85, agreed=True),
    _rule("decision", px.DECIDED, b.decision, 0.7, 0.8),
    _rule("plan", px.PLAN, b.keyless, 0.5, 0.7),
    _rule("plan", casual.PLAN + passing.PLAN_ZH + passing.BOOKED, b.keyless, 0.5, 0.65),
    _rule("preference", px.ALLOWED, b.directive("always"), 0.6, 0.75),
    _rule("fact", px.UPDATED + passing.RENAMED, b.updated, 0.6, 0.75),
    _rule("fact", passing.RENAMED_ZH, b.updated, 0.6, 0.7),
    _rule("preference", px.ALWAYS + passing.REMIND, b.directive("always"), 0.6, 0.75),
)
# A category choice stated by its frame (``updates.choices``), after the rule table had its say.
_CHOICE = _rule("fact", (), b.categorical, 0.6, 0.75)
# ---- sentences, questions, corrections --------------------------------------------------------
# Not after a title or "St." ("a nurse at St. Mary's", "Dr. Lee is my doctor"); an emoji may end one (``speech``).
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?\n])|(?<=\.)(?<!\b(?:St|Dr|Mr|Ms|Mt)\.)(?<!\bMrs\.)(?=\s)|" + EMOJI_END)
_CORRECTION = re.compile(
    r"^(?:(?:(?:no(?!\s+(?:problem|worries|way|doubt|thanks))|nope|nah|actually|correction|scratch that|my bad"
    r"|i misspoke|not quite|that is wrong|that is not right|wrong|not exactly"
    r"|(?:sorry|oops|wait)(?=[\s,]+(?:i meant|i mean|it is|that is)))\b"
    r"|不对|不是的|不是这样|搞错了|说错了|我说错了|记错了|我记错了|错了|更正一下|更正|纠正一下|纠正|其实|实际上|准确地说|准确来说|哦不|啊不|不不|不是(?=[，,]))"
    r"[\s,，:：;；.。!！—–-]*)+",
    re.I,
)
# A time still to come: a fact or a choice said with it is not yet the case ("下个月我就26岁了", "we're
# moving off AWS to Google Cloud next quarter": a plan, which the plan rules take).
_FUTURE = re.compile(
    r"\b(?:next\s+(?:week|month|year|quarter|sprint|summer|winter|spring|fall|autumn)|tomorrow"
    r"|in\s+(?:a|two|three|a few|\d+)\s+(?:weeks?|months?|years?))\b"
    r"|下个?月|下周|下个?星期|下个?季度|下个?迭代|明年|明天|后天|过几天|快要|就要",
    re.I,
)
_NOT_YET = frozenset({"age", "location", "employer", "occupation", "hometown"})
_CLAUSE_END = "，,;；"


def _now(body: str, kv: KeyValue) -> bool:
    """Whether the clause that says ``kv``'s value names no time to come ("我是中学数学老师，下周要请三天假" is a
    teacher now); a value the sentence does not spell out is judged by the whole sentence."""
    at = body.casefold().find((kv[1] or "").casefold()) if kv[1] else -1
    if at < 0:
        return False
    start = max(body.rfind(c, 0, at) for c in _CLAUSE_END) + 1
    end = min([i for i in (body.find(c, at) for c in _CLAUSE_END) if i >= 0] or [len(body)])
    return _FUTURE.search(body, start, end) is None


_NOT_CLAUSE = re.compile(r"^(?:not|不是)\s*[^,，;；]{1,40}[,，;；]\s*", re.I)  # "no, not Hamburg, it's Bremen"
_BARE = re.compile(
    r"^(?:it is|it was|that is|i meant|i mean|i said|should be|应该是|其实是|我是说|我的意思是|我说的是|是)\s*"
    r"(?P<v>[^,;!?。，；！？\n]+?)(?=[,;!?。，；！？\n]|\.(?!\w)|$)",
    re.I,
)


def _standing(attribute: str) -> bool:
    """An attribute a choice for one occasion does not set: a category, the replies' language, an instruction."""
    return attribute in lx.CATEGORIES or attribute == "reply_language" or attribute.startswith("instruction:")


# ---- the extractor ----------------------------------------------------------------------------
def _matches(body: str, agreed_only: bool) -> list[tuple[_Rule, KeyValue]]:
    """Non-overlapping rule matches in the order said (an earlier rule claims its span first), a value said again
    once; a match may state several things ("I work at Google as a data scientist"): each is a key-value."""
    found: list[tuple[int, int, _Rule, list[KeyValue]]] = []
    en, zh = _LATIN.search(body) is not None, _CJK.search(body) is not None
    for rule in RULES:
        if agreed_only and not rule.agreed:
            continue
        for source in (rule.en if en else ()) + (rule.zh if zh else ()):
            for m in _compiled(source).finditer(body):
                start, end = m.span()
                if any(start < e and s < end for s, e, _, _ in found) or (built := rule.build(m)) is None:
                    continue
                found.append((start, end, rule, built if isinstance(built, list) else [built]))
    return list(dict.fromkeys((rule, kv) for _, _, rule, kvs in sorted(found, key=lambda f: f[0]) for kv in kvs))


def _attribute(key: str | None) -> str:
    return (key or "").partition("/")[2].partition(":")[0]


def _owned(body: str, kv: KeyValue) -> KeyValue | None:
    """A category choice keyed on the speaker is a relative's when the relative says it ("我老公喝咖啡"),
    and nobody's memory when someone else's; a clause without a subject of its own after a relative opened
    the sentence is the relative's ("我姐不当护士了，去年改行当了老师")."""
    key, value = kv
    if key and value and key.startswith("user/") and _attribute(key) in _CARRIED:
        start = body.casefold().find(value.casefold())  # values are lowercased, the matching copy is not
        before = body[:start] if start > 0 else ""
        clause = re.split(r"[，,;；]", before)[-1]
        carried = _FIRST_CLAUSE.search(before) is not None  # a later clause or conjunct
        if carried and not re.search(r"我|\bi\b", clause, re.I):  # with no subject of its own: the sentence's
            if (rel := _REL_OPEN.match(body)) and start > rel.end():
                return f"{lx.RELATIONS[rel['r'].lower()]}/{_attribute(key)}", value
            if ux.owner(_FIRST_CLAUSE.split(body, maxsplit=1)[0]) is None:  # someone else's ("Tom is 41 and …")
                return None
    if not key or not value or _attribute(key) not in lx.CATEGORIES or key.split("/")[0] not in ("user", "team"):
        return kv
    who = ux.relative_of(body, value)
    if who is None:
        return kv
    return None if who == "other" else (f"{who}/{_attribute(key)}", value)


_GIVEN_UP_AS = ("diet", "preference", "instruction")
_CARRIED = frozenset({"occupation", "location", "employer", "age", "hometown"})
_FIRST_CLAUSE = re.compile(r"[，,;；]|\b(?:and|but)\b", re.I)
_REL_OPEN = re.compile(rf"^\s*(?:我的?|my\s+)(?P<r>{px._REL_ZH}|{px._REL_EN})", re.I)
PLACEHOLDER = "user/?"  # the key of an update's new side whose attribute only the bank knows (``anchors``)


def _absorbed(cands: list[Candidate]) -> list[Candidate]:
    """A value given up for another of its category is the update's old side, not a memory of its own:
    "我现在不喝咖啡了，改喝绿茶" is the drink green tea, not also a diet without coffee; "以后改发京东物流，
    别再用韵达了" is the carrier, not also an instruction never to use 韵达; a value left for another of its
    key ("我从华为离职了，现在在小米工作") is that key's new value alone."""
    chosen = {
        (c.key.split("/")[0], _attribute(c.key)) for c in cands if c.key and c.value and not c.value.startswith("not:")
    }
    allergic = {c.key.partition(":")[2] for c in cands if c.key and c.key.startswith("user/allergy:")}
    out = []
    for c in cands:
        if c.key and c.key.startswith("user/diet:") and c.key.partition(":")[2] in allergic:
            continue  # "I can't have sesame, I'm allergic": the allergy says it, the avoidance is its consequence
        given_up = c.value.removeprefix("not:") if c.key and c.value and c.value.startswith("not:") else None
        if c.key and c.value == "never" and _attribute(c.key) == "instruction":
            given_up = c.key.partition(":")[2]
        found = vx.category(given_up) if given_up and _attribute(c.key) in _GIVEN_UP_AS else None
        if found is None and given_up and vx.reply_language(given_up):  # "以后别用粤语了，用普通话回答我"
            found = ("reply_language", "")
        if given_up and c.key and (c.key.split("/")[0], _attribute(c.key)) in chosen and ":" not in c.key:
            continue  # "我从华为离职了，现在在小米工作": the employer is 小米; leaving 华为 is the old side
        if found is None or (c.key.split("/")[0] if c.key else "", found[0]) not in chosen:
            out.append(c)
    return out


class RuleExtractor:
    """Regex rules over each sentence; pure and deterministic, so replay gives the same candidates."""

    id = "rules/47"

    def extract(self, text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]:
        if not (said_as := text.strip()):
            return []
        body = flattened(said_as)  # what the rules read; the episode keeps the turn as written
        if is_filler(body):  # a pleasantry or an acknowledgement: it stays in the log, not in memory
            return []
        tags = entities(plain(body), speaker)
        out = [Candidate(kind="episode", text=said_as, entities=tags, importance=0.3, confidence=1.0)]
        seen: set[tuple[str, str | None, str | None]] = set()
        before = ""  # the turn's earlier sentences, as matched: whom a "she" or 他 opening a clause may be
        for sentence in _SENTENCE_SPLIT.split(ux.unquote(body)):  # a quote may hold a sentence end of its own
            # Traditional is matched as Simplified (the keys and values are the same) and stated as written
            said = plain(sentence.strip())
            for cand in self._typed(said, speaker, agreed_only=source == "assistant", before=before):
                if (cand.kind, cand.key, cand.value) not in seen:
                    seen.add((cand.kind, cand.key, cand.value))
                    out.append(written(cand, sentence.strip()))
            before += " " + matching_copy(said)
        return _absorbed(out)

    def _typed(self, sentence: str, speaker: str | None, *, agreed_only: bool, before: str) -> Iterator[Candidate]:
        statement = asserted(sentence)
        if statement is None or not (statement := ux.unreported(statement)):  # someone else's request is theirs
            return
        norm = resolved(ux.unquote(matching_copy(statement)), before)
        marker = _CORRECTION.match(norm)
        corrected = marker is not None
        body = norm[marker.end() :] if marker else norm
        found = [(rule, owned) for rule, kv in _matches(body, agreed_only) if (owned := _owned(body, kv))]
        future = _FUTURE.search(body) is not None
        if future:
            found = [
                (r, kv) for r, kv in found if r.kind != "fact" or _attribute(kv[0]) not in _NOT_YET or _now(body, kv)
            ]
        if not agreed_only and not future:
            # A placeholder update ("from Ruby to Go": ``user/?``) gives way to a frame that names the category.
            keyed = [kv for _, kv in found if kv[0] != PLACEHOLDER]
            chosen = ux.choices(body, {_attribute(kv[0]) for kv in keyed} | {kv[1] or "" for kv in keyed})
            named = {kv[1] for kv in chosen}
            found = [(r, kv) for r, kv in found if kv[0] != PLACEHOLDER or kv[1] not in named]
            found += [(_CHOICE, kv) for kv in chosen]
        if had := meant_once(body):  # "我本来打算买特斯拉，现在决定不买了": a plan had, not one held
            found = [(rule, kv) for rule, kv in found if rule.kind != "plan" or (kv[1] or "") not in had]
        if one_off(body):  # "use DHL this time", "just this once, answer in French": not the standing choice
            found = [(rule, kv) for rule, kv in found if not _standing(_attribute(kv[0]))]
        tagged = entities(sentence, speaker) if found or corrected else ()
        said = _Said(sentence, speaker, tagged, corrected)
        for rule, kv in found:
            yield said.candidate(rule.kind, kv, rule.importance, rule.confidence)
        if corrected and not found and not agreed_only and (bare := _BARE.match(_NOT_CLAUSE.sub("", body))):
            v = vx.clean(bare["v"])
            category = vx.category(v)
            typed = vx.typed_attribute(v)
            kv = vx.category_kv(category, body) if category else (f"user/{typed}" if typed else None, v)
            if not vx.vague(v):
                yield said.candidate("correction", kv, 0.8, 0.9)


_KEYLESS = frozenset({"plan", "decision"})  # kinds the rules never key: what they say is not an attribute's value


@dataclass(frozen=True, slots=True)
class _Said:
    """One sentence of a turn, as its typed candidates share it."""

    sentence: str
    speaker: str | None
    entities: tuple[str, ...]
    corrected: bool

    def candidate(self, kind: MemoryKind, kv: KeyValue, imp: float, conf: float) -> Candidate:
        if self.corrected and kind in _KEYLESS and kv[0] is None:
            # "Actually we're going to Korea instead": a plan revised is a plan, not a bare corrected value,
            # which would take the key of whatever the session last held ("the daughter's name: Korea")
            imp, conf = max(imp, 0.8), 0.9
        elif self.corrected:  # the speaker revises an earlier statement: same key, new value, higher trust
            kind, imp, conf = "correction", max(imp, 0.8), 0.9
            if kv[0] and kv[0].endswith("/" + UNKNOWN):  # a bare corrected value, as ``_BARE`` gives it
                kv = (None, kv[1])
        text = statement(kv[0], kv[1], self.sentence, self.speaker, kind)
        return Candidate(
            kind=kind,
            text=text,
            quote=quoted(self.sentence, kv[1]) if text != self.sentence else None,
            key=kv[0],
            value=kv[1],
            entities=self.entities,
            importance=imp,
            confidence=conf,
            is_correction=self.corrected,
        )


_DEFAULT = RuleExtractor()


def extract(text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]:
    """Module-level convenience: ``RuleExtractor().extract``."""
    return _DEFAULT.extract(text, speaker=speaker, source=source)
