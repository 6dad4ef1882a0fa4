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

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction.schema import Candidate, MemoryKind

KeyValue = tuple[str | None, str | None]
Builder = Callable[[re.Match[str]], KeyValue | None]

# ---- lexicon indexes --------------------------------------------------------------------------
_ALIASES: dict[str, tuple[str, str, str]] = {
    alias: (category, canonical, display)
    for category, items in lx.CATEGORIES.items()
    for canonical, (display, aliases) in items.items()
    for alias in aliases
}


# Longest alias first; the boundaries keep "java" out of "javascript" and let "我用vim" match.
_ALIAS_RE = re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(re.escape(a) for a in sorted(_ALIASES, key=len, reverse=True)) + r")(?![a-z0-9])",
    re.I,
)
_ZH_PLACES = frozenset(lx.ZH_PLACES)
_PLACE_RE = re.compile("|".join(sorted(lx.ZH_PLACES, key=len, reverse=True)))
_WE = re.compile(r"\b(?:we|our|ours|us)\b|我们|咱们|咱", re.I)
_ME = re.compile(r"\b(?:i|my|me|mine)\b|我(?!们)", re.I)

# ---- value normalization ----------------------------------------------------------------------
_LEAD_ARTICLE = re.compile(r"^(?:(?:the|a|an|some)\s+)+", re.I)
_TRAIL_FILLER = re.compile(
    r"(?:\s+(?:anymore|any more|now|too|as well|either|instead|please|again|these days|nowadays|for now"
    r"|from now on|a lot|very much|so much|lol|haha|though|tbh|honestly|really|though))+$",
    re.I,
)
_ZH_PARTICLES = re.compile(r"[了吧啊呀哦呢啦嘛的哈～~]+$")
_OBJECT_LEAD = re.compile(r"^(?:(?:to|drinking|eating|using|having|playing|watching|喝|吃|用|玩|看|听)\s*)", re.I)
_PLACE_CUT = re.compile(
    r"\s+(?:with|for|since|last|next|this|ago|now|recently|currently|at the moment|in\s+\d{4}|these days"
    r"|nowadays|two|three|a few|several|many)\b.*$|(?:工作|上班|生活|读书|已经|快|有|好多年|很多年).*$",
    re.I,
)
_CHOICE_CUT = re.compile(r"\s+(?:over|rather than|instead of|than|to)\s+.*$|(?:而不是|不是).*$", re.I)
_DIRECTIVE_LEAD = re.compile(r"^(?:(?:i will|we will|please|always|you should|you will|make sure to)\s+)+", re.I)
_VAGUE = frozenset(
    "it this that them these those him her you me us myself yourself one something anything everything "
    "它 这 那 这个 那个 你 他 她 他们 她们 你们 这些 那些 的".split()
)
_VAGUE_LEAD = frozenset(
    "it its this that these those your his her their them you what how when where if is are was were be been has had"
    " 的 它 这 那 你 他 她".split()
)
_ZH_FILLERS = frozenset("好对行来去是有做吃喝用看说走完啥")
_FILLER_OBJECTS = frozenset({"it", "this", "that", "going"})


def _clean(raw: str) -> str:
    """Lowercase, trimmed value without articles, trailing fillers or Chinese particles."""
    v = " ".join(raw.strip(" \t'\"“”‘’()[]「」《》").split()).lower()
    v = _TRAIL_FILLER.sub("", _LEAD_ARTICLE.sub("", v))
    return _ZH_PARTICLES.sub("", v).strip()


def _object(raw: str) -> str:
    """The thing liked/avoided: cleaned, leading verb dropped, canonical when it is a known alias."""
    v = _clean(_OBJECT_LEAD.sub("", _clean(raw)))
    return _ALIASES[v][1] if v in _ALIASES else v


def _vague(v: str) -> bool:
    # Pronouns, one-character leftovers and "make it (happen)" carry no memory; "辣" does.
    words = v.split()
    first = words[0] if v.isascii() and words else v[:1]
    short = len(v) < 2 and (v.isascii() or v in _ZH_FILLERS)
    filler = len(words) <= 3 and any(w in _FILLER_OBJECTS for w in words[1:])
    return not v or short or v in _VAGUE or first in _VAGUE_LEAD or filler or len(v) > 80


def _slug(v: str) -> str:
    return re.sub(r"[^\w+#.-]+", "_", v.lower()).strip("_.")[:40].rstrip("_")


def _subject(attr: str, span: str) -> str:
    default = lx.PRONOUN_SCOPED.get(attr)
    if default is None:
        return "user"
    if _WE.search(span):
        return "team"
    return "user" if _ME.search(span) else default


def _category(text: str) -> tuple[str, str] | None:
    m = _ALIAS_RE.search(text)
    return _ALIASES[m.group(0).lower()][:2] if m else None


_REGION_RES = {
    region: re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in words), re.I)
    for region, words in lx.REGIONS.items()
}
_CLAUSE_END = re.compile(r"[,，;；]")


def _region(category: str, where: re.Match[str] | str) -> str:
    """":<region>" when a regional choice names one region: in its clause, else in its sentence."""
    if category not in lx.REGIONAL_CATEGORIES:
        return ""
    sentence, clause = (where.string, _clause(where)) if isinstance(where, re.Match) else (where, where)
    for text in (clause, sentence):
        named = [region for region, pattern in _REGION_RES.items() if pattern.search(text)]
        if len(named) == 1:
            return f":{named[0]}"
    return ""


def _clause(m: re.Match[str]) -> str:
    cuts = [0, *(c.end() for c in _CLAUSE_END.finditer(m.string)), len(m.string)]
    return next((m.string[a:b] for a, b in itertools.pairwise(cuts) if a <= m.start() < b), m.string)


def _category_kv(found: tuple[str, str], where: re.Match[str] | str) -> KeyValue:
    """The key and value of a category choice; ``where``: the rule's match (or the statement) that made it."""
    category, canonical = found
    span = where[0] if isinstance(where, re.Match) else where
    return f"{_subject(category, span)}/{category}{_region(category, where)}", canonical


# ---- builders: match -> (key, value), or None to reject the match -----------------------------
def _place(attr: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        if found := _category(m["v"]):  # "we moved to Postgres" is a choice, not an address
            return _category_kv(found, m)
        v = _clean(_PLACE_CUT.sub("", m["v"]))
        if attr == "employer" and v in _ZH_PLACES:  # "我在上海工作" names a city, not a company
            return "user/location", v
        return None if _vague(v) else (f"user/{attr}", v)

    return build


def _fixed(attr: str, value: str | None = None) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = value or _clean(m["v"])
        return None if _vague(v) else (f"{_subject(attr, m[0])}/{attr}", v)

    return build


def _name(require_capital: bool) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        raw = m["v"].strip()
        if require_capital and raw[:1].isascii() and not raw[:1].isupper():  # "call me tomorrow"
            return None
        v = " ".join(_clean(raw).split()[:3])
        return None if _vague(v) else ("user/name", v)

    return build


def _categorical(m: re.Match[str]) -> KeyValue | None:
    found = _category(m["v"])
    return _category_kv(found, m) if found else None


def _choice(m: re.Match[str]) -> KeyValue | None:
    raw = _CHOICE_CUT.sub("", m["v"])
    if found := _category(raw):
        return _category_kv(found, m)
    v = _object(raw)
    return None if _vague(v) else (f"user/preference:{_slug(v)}", v)


def _likes(negated: bool) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = _object(m["v"])
        if _vague(v):
            return None
        return f"user/preference:{_slug(v)}", f"not:{v}" if negated else v

    return build


def _directive(polarity: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        raw = _DIRECTIVE_LEAD.sub("", m["v"].strip())
        if polarity == "always" and (found := _category(raw)):
            return _category_kv(found, m)
        v = _clean(raw)
        return None if _vague(v) else (f"user/instruction:{_slug(v)}", polarity)

    return build


def _avoid(prefix: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = _object(m["v"])
        return None if _vague(v) else (f"user/{prefix}:{_slug(v)}", f"not:{v}")

    return build


def _allergy(m: re.Match[str]) -> KeyValue | None:
    v = _clean(m["v"])
    if _vague(v):
        return None
    return f"user/allergy:{_slug(v)}", f"not:{v}" if m["n"] else v


def _budget(m: re.Match[str]) -> KeyValue | None:
    v = re.sub(r"^([$€£¥]) ", r"\1", " ".join(m["v"].split()).rstrip(",.").lower())
    owner = m.string[max(0, m.start() - 8) : m.end()]  # "our budget" / "我们的预算"
    return f"{_subject('budget', owner)}/budget", v


def _reply_language(m: re.Match[str]) -> KeyValue | None:
    return "user/reply_language", lx.REPLY_LANGUAGES[m["v"].lower()]


def _favorite(m: re.Match[str]) -> KeyValue | None:
    facet = _clean(m["a"])
    v = _object(m["v"])
    return None if _vague(v) else (f"user/favorite:{lx.FAVORITES.get(facet, _slug(facet))}", v)


def _attribute(m: re.Match[str]) -> KeyValue | None:
    raw_attr = _clean(m["a"])
    owner = re.fullmatch(r"(\w+)'s name", raw_attr)
    attr = f"{owner[1]}_name" if owner else lx.ATTRIBUTES.get(raw_attr)
    if attr is None:
        return None
    if attr in lx.CATEGORIES and (found := _category(m["v"])):
        return _category_kv(found, m)
    v = _clean(_PLACE_CUT.sub("", m["v"]) if attr in {"location", "hometown", "employer"} else m["v"])
    if attr == "name":
        v = " ".join(v.split()[:3])
    if attr == "budget":
        v = v.replace(" ", "")
    return None if _vague(v) else (f"{_subject(attr, m[0])}/{attr}", v)


def _keyless(m: re.Match[str]) -> KeyValue | None:
    v = _clean(m["v"])
    return None if _vague(v) else (None, v)


def _decision(m: re.Match[str]) -> KeyValue | None:
    found = _category(m["v"])
    return _category_kv(found, m) if found else _keyless(m)


# ---- the rule table (order is priority: an earlier rule claims its span first) ----------------
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True, slots=True)
class _Rule:
    kind: MemoryKind
    en: tuple[re.Pattern[str], ...]  # run only on sentences with Latin letters
    zh: tuple[re.Pattern[str], ...]  # run only on sentences with CJK characters
    build: Builder
    importance: float
    confidence: float
    agreed: bool = False  # a shared decision: also taken from assistant turns


def _rule(
    kind: MemoryKind, sources: tuple[str, ...], build: Builder, imp: float, conf: float, agreed: bool = False
) -> _Rule:
    compiled = [(re.compile(s, re.I), bool(_CJK.search(s))) for s in sources]
    en = tuple(p for p, is_zh in compiled if not is_zh)
    return _Rule(kind, en, tuple(p for p, is_zh in compiled if is_zh), build, imp, conf, agreed)


RULES: tuple[_Rule, ...] = (
    _rule("preference", lx.REPLY_LANGUAGE, _reply_language, 0.6, 0.85),
    _rule("constraint", lx.ALLERGY, _allergy, 0.9, 0.85),
    _rule("constraint", lx.DIET, _fixed("diet"), 0.8, 0.8),
    _rule("constraint", lx.DIET_ZH, _fixed("diet", "vegetarian"), 0.8, 0.8),
    _rule("constraint", lx.DIET_AVOID, _avoid("diet"), 0.8, 0.75),
    _rule("constraint", lx.BUDGET, _budget, 0.8, 0.8),
    _rule("preference", lx.DONT_GIVE_ME, _avoid("preference"), 0.6, 0.75),
    _rule("constraint", lx.NEVER, _directive("never"), 0.8, 0.75),
    _rule("preference", lx.FAVORITE, _favorite, 0.6, 0.85),
    _rule("preference", lx.PREFER, _choice, 0.6, 0.8),
    _rule("preference", lx.FROM_NOW_ON_USE, _choice, 0.7, 0.85),
    _rule("preference", lx.FROM_NOW_ON, _directive("always"), 0.7, 0.8),
    _rule("fact", lx.LOCATION, _place("location"), 0.6, 0.85),
    _rule("fact", lx.HOMETOWN, _place("hometown"), 0.6, 0.8),
    _rule("fact", lx.NAME_CAPITAL, _name(require_capital=True), 0.7, 0.85),
    _rule("fact", lx.NAME, _name(require_capital=False), 0.7, 0.85),
    _rule("fact", lx.EMPLOYER, _place("employer"), 0.6, 0.8),
    _rule("fact", lx.OCCUPATION, _fixed("occupation"), 0.6, 0.8),
    _rule("fact", lx.AGE, _fixed("age"), 0.5, 0.8),
    _rule("fact", lx.ATTRIBUTE, _attribute, 0.6, 0.85),
    _rule("fact", lx.USES, _categorical, 0.6, 0.8),
    _rule("fact", lx.SWITCHED, _choice, 0.6, 0.8),
    _rule("preference", lx.DISLIKE, _likes(negated=True), 0.6, 0.75),
    _rule("preference", lx.LIKE, _likes(negated=False), 0.5, 0.75),
    _rule("decision", lx.AGREED, _decision, 0.7, 0.85, agreed=True),
    _rule("decision", lx.DECIDED, _decision, 0.7, 0.8),
    _rule("plan", lx.PLAN, _keyless, 0.5, 0.7),
    _rule("preference", lx.ALWAYS, _directive("always"), 0.6, 0.75),
)

# ---- sentences, questions, corrections --------------------------------------------------------
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)(?=\s)")
_QUESTION_START = re.compile(
    r"^(?:do|does|did|are|is|am|can|could|would|will|should|shall|have|has|what|where|when|why|how|who|whom"
    r"|which|whose|may|might)\b", re.I,
)
_ZH_QUESTION = re.compile(r"哪里|哪儿|哪个|哪家|什么|谁|怎么|为什么|多少|是不是|有没有|几点|几岁|(?:吗|么)\s*$")
_CONDITIONAL = re.compile(r"^(?:if|unless|suppose|supposing|imagine)\b|^(?:如果|要是|假如|假设|万一|倘若)", re.I)
_CORRECTION = re.compile(
    r"^(?:(?:(?:no(?!\s+(?:problem|worries|way|doubt|thanks))|nope|nah|actually|correction|scratch that|my bad"
    r"|i misspoke|not quite|that is wrong|that is not right|wrong|not exactly"
    r"|(?:sorry|oops|wait)(?=[\s,]+(?:i meant|i mean|it is|that is)))\b"
    r"|不对|不是的|不是这样|搞错了|说错了|我说错了|记错了|我记错了|错了|更正一下|更正|纠正一下|纠正|其实|实际上|准确地说|准确来说|哦不|啊不|不不|不是(?=[，,]))"
    r"[\s,，:：;；.。!！—–-]*)+", re.I,
)
_BARE = re.compile(
    r"^(?:it is|it was|that is|i meant|i mean|i said|should be|应该是|其实是|我是说|我的意思是|我说的是|是)\s*"
    r"(?P<v>[^,;!?。，；！？\n]+?)(?=[,;!?。，；！？\n]|\.(?!\w)|$)", re.I,
)
_CONTRACTION = re.compile(
    r"\b(can't|won't|let's|i'm)\b|n't\b|'(re|ve|ll|d)\b|\b(it|that|what|name|there|here|he|she)'s\b", re.I
)
_EXPANSIONS = {"can't": "cannot", "won't": "will not", "let's": "let us", "i'm": "i am",
               "re": " are", "ve": " have", "ll": " will", "d": " would"}


def _expand(m: re.Match[str]) -> str:
    if m[1] or m[2]:
        return _EXPANSIONS[(m[1] or m[2]).lower()]
    return f"{m[3]} is" if m[3] else " not"


def _normalize(sentence: str) -> str:
    """Matching copy: straight quotes, contractions expanded ("don't" -> "do not")."""
    s = sentence.replace("’", "'").replace("‘", "'")
    return _CONTRACTION.sub(_expand, s) if "'" in s else s


def _statement(sentence: str) -> str | None:
    """The asserted part of a sentence: a trailing question clause is dropped, questions give None."""
    s = sentence.strip()
    if s.endswith(("?", "？")):
        cut = max(s.rfind(","), s.rfind("，"))
        s = s[:cut].strip() if cut > 0 else ""
    if not s or _CONDITIONAL.match(s) or _QUESTION_START.match(s) or _ZH_QUESTION.search(s):
        return None
    return s


# ---- entities ---------------------------------------------------------------------------------
_CAPITALIZED = re.compile(r"(?<![\w'])[A-Z][\w'&.+#-]*(?:[ \t]+[A-Z][\w'&.+#-]*)*")


def _stopword(token: str) -> bool:
    return token.lower() in lx.EN_STOPWORDS or re.search(r"'(?:t|ll|re|ve|d|m)$", token, re.I) is not None


def _names(text: str) -> Iterator[tuple[int, str]]:
    for m in _CAPITALIZED.finditer(text.replace("’", "'")):
        tokens = [t.strip(".-'").removesuffix("'s") for t in m[0].split()]
        while tokens and _stopword(tokens[0]):
            tokens.pop(0)
        while tokens and _stopword(tokens[-1]):
            tokens.pop()
        if not tokens:
            continue
        name = " ".join(tokens)
        at_start = m.start() == 0 or text[max(0, m.start() - 2) : m.start()] in {". ", "! ", "? "}
        if at_start and len(tokens) == 1 and name.endswith(("ing", "ed", "ly")):  # "Went", "Honestly"
            continue
        alias = _ALIASES.get(name.lower())
        if alias and alias[0] in lx.NOT_ENTITY_CATEGORIES:
            continue
        yield m.start(), alias[2] if alias else name


def _entities(text: str, speaker: str | None) -> tuple[str, ...]:
    found = list(_names(text))
    for m in _ALIAS_RE.finditer(text):
        category, _, display = _ALIASES[m[0].lower()]
        short_lower = m[0].isascii() and len(m[0]) <= 3 and not m[0].isupper()  # "ups and downs"
        if category not in lx.NOT_ENTITY_CATEGORIES and not short_lower:
            found.append((m.start(), display))
    found += [(m.start(), m[0]) for m in _PLACE_RE.finditer(text)]
    if speaker and speaker.strip().lower() not in {"user", "assistant", "system", "tool", "document"}:
        found.append((len(text), speaker.strip()))
    seen: dict[str, str] = {}
    for _, name in sorted(found, key=lambda item: item[0]):
        seen.setdefault(name.lower(), name)
    return tuple(seen.values())


# ---- chit-chat --------------------------------------------------------------------------------
# Atomic tokens: "哈哈哈…" must not be re-split into every partition (exponential backtracking).
_CHITCHAT = re.compile(
    rf"(?:\s*(?>\b(?:{'|'.join(lx.CHITCHAT_EN)})\b|{'|'.join(lx.CHITCHAT_ZH)}))*+\s*", re.I
)


def _is_chitchat(text: str) -> bool:
    bare = re.sub(r"[\W_]+", " ", text.replace("'", "").replace("’", "")).strip()
    return _CHITCHAT.fullmatch(bare) is not None


# ---- the extractor ----------------------------------------------------------------------------
def _matches(body: str, agreed_only: bool) -> list[tuple[_Rule, KeyValue]]:
    """Non-overlapping rule matches in the order they were said; an earlier rule claims its span first."""
    found: list[tuple[int, int, _Rule, KeyValue]] = []
    en, zh = _LATIN.search(body) is not None, _CJK.search(body) is not None
    for rule in RULES:
        if agreed_only and not rule.agreed:
            continue
        for pattern in (rule.en if en else ()) + (rule.zh if zh else ()):
            for m in pattern.finditer(body):
                start, end = m.span()
                if any(start < e and s < end for s, e, _, _ in found) or (kv := rule.build(m)) is None:
                    continue
                found.append((start, end, rule, kv))
    return [(rule, kv) for _, _, rule, kv in sorted(found, key=lambda f: f[0])]


class RuleExtractor:
    """Regex rules over each sentence; pure and deterministic, so replay gives the same candidates."""

    id = "rules/1"

    def extract(self, text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]:
        body = text.strip()
        if not body:
            return []
        out = [Candidate(kind="episode", text=body, entities=_entities(body, speaker), importance=0.3, confidence=1.0)]
        if _is_chitchat(body):
            return out
        seen: set[tuple[str, str | None, str | None]] = set()
        for sentence in _SENTENCE_SPLIT.split(body):
            for cand in self._typed(sentence.strip(), speaker, agreed_only=source == "assistant"):
                if (cand.kind, cand.key, cand.value) not in seen:
                    seen.add((cand.kind, cand.key, cand.value))
                    out.append(cand)
        return out

    def _typed(self, sentence: str, speaker: str | None, *, agreed_only: bool) -> Iterator[Candidate]:
        statement = _statement(sentence)
        if statement is None:
            return
        norm = _normalize(statement)
        marker = _CORRECTION.match(norm)
        corrected = marker is not None
        body = norm[marker.end() :] if marker else norm
        found = _matches(body, agreed_only)
        entities = _entities(sentence, speaker) if found or corrected else ()
        for rule, kv in found:
            yield self._candidate(rule.kind, kv, sentence, entities, rule.importance, rule.confidence, corrected)
        if corrected and not found and not agreed_only and (bare := _BARE.match(body)):
            v = _clean(bare["v"])
            category = _category(v)
            kv = _category_kv(category, body) if category else (None, v)
            if not _vague(v):
                yield self._candidate("correction", kv, sentence, entities, 0.8, 0.9, True)

    @staticmethod
    def _candidate(
        kind: MemoryKind, kv: KeyValue, text: str, entities: tuple[str, ...], imp: float, conf: float, corrected: bool
    ) -> Candidate:
        if corrected:  # the speaker revises an earlier statement: same key, new value, higher trust
            kind, imp, conf = "correction", max(imp, 0.8), 0.9
        return Candidate(
            kind=kind, text=text, key=kv[0], value=kv[1], entities=entities,
            importance=imp, confidence=conf, is_correction=corrected,
        )


_DEFAULT = RuleExtractor()


def extract(text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]:
    """Module-level convenience: ``RuleExtractor().extract``."""
    return _DEFAULT.extract(text, speaker=speaker, source=source)
