"""Values and keys of the rule extractor: what a matched pattern means (``match -> (key, value)``).

Normalization of the matched value (articles, fillers, particles, places, vague words) and one builder
per kind of statement; a builder returns None to reject the match. ``rules.py`` holds the rule table.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

from hindsight_es.extraction import lexicon as lx

KeyValue = tuple[str | None, str | None]
Builder = Callable[[re.Match[str]], KeyValue | None]

# ---- lexicon indexes --------------------------------------------------------------------------
ALIASES: dict[str, tuple[str, str, str]] = {
    alias: (category, canonical, display)
    for category, items in lx.CATEGORIES.items()
    for canonical, (display, aliases) in items.items()
    for alias in aliases
}


# Longest alias first; the boundaries keep "java" out of "javascript" and let "我用vim" match.
ALIAS_RE = re.compile(
    r"(?<![a-z0-9])(?:" + "|".join(re.escape(a) for a in sorted(ALIASES, key=len, reverse=True)) + r")(?![a-z0-9])",
    re.I,
)
_ZH_PLACES = frozenset(lx.ZH_PLACES)
PLACE_RE = re.compile("|".join(sorted(lx.ZH_PLACES, key=len, reverse=True)))
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


def clean(raw: str) -> str:
    """Lowercase, trimmed value without articles, trailing fillers or Chinese particles."""
    v = " ".join(raw.strip(" \t'\"“”‘’()[]「」《》").split()).lower()
    v = _TRAIL_FILLER.sub("", _LEAD_ARTICLE.sub("", v))
    return _ZH_PARTICLES.sub("", v).strip()


def _object(raw: str) -> str:
    """The thing liked/avoided: cleaned, leading verb dropped, canonical when it is a known alias."""
    v = clean(_OBJECT_LEAD.sub("", clean(raw)))
    return ALIASES[v][1] if v in ALIASES else v


def vague(v: str) -> bool:
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


def category(text: str) -> tuple[str, str] | None:
    m = ALIAS_RE.search(text)
    return ALIASES[m.group(0).lower()][:2] if m else None


_REGION_RES = {
    region: re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in words), re.I)
    for region, words in lx.REGIONS.items()
}
_CLAUSE_END = re.compile(r"[,，;；]")


def _region(category: str, where: re.Match[str] | str) -> str:
    """ ":<region>" when a regional choice names one region: in its clause, else in its sentence."""
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


def category_kv(found: tuple[str, str], where: re.Match[str] | str) -> KeyValue:
    """The key and value of a category choice; ``where``: the rule's match (or the statement) that made it."""
    category, canonical = found
    span = where[0] if isinstance(where, re.Match) else where
    return f"{_subject(category, span)}/{category}{_region(category, where)}", canonical


# ---- builders: match -> (key, value), or None to reject the match -----------------------------
def place(attr: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        if found := category(m["v"]):  # "we moved to Postgres" is a choice, not an address
            return category_kv(found, m)
        v = clean(_PLACE_CUT.sub("", m["v"]))
        if attr == "employer" and v in _ZH_PLACES:  # "我在上海工作" names a city, not a company
            return "user/location", v
        return None if vague(v) else (f"user/{attr}", v)

    return build


def fixed(attr: str, value: str | None = None) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = value or clean(m["v"])
        return None if vague(v) else (f"{_subject(attr, m[0])}/{attr}", v)

    return build


def name(require_capital: bool) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        raw = m["v"].strip()
        if require_capital and raw[:1].isascii() and not raw[:1].isupper():  # "call me tomorrow"
            return None
        v = " ".join(clean(raw).split()[:3])
        return None if vague(v) else ("user/name", v)

    return build


def categorical(m: re.Match[str]) -> KeyValue | None:
    found = category(m["v"])
    return category_kv(found, m) if found else None


def choice(m: re.Match[str]) -> KeyValue | None:
    raw = _CHOICE_CUT.sub("", m["v"])
    if found := category(raw):
        return category_kv(found, m)
    v = _object(raw)
    return None if vague(v) else (f"user/preference:{_slug(v)}", v)


def likes(negated: bool) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = _object(m["v"])
        if vague(v):
            return None
        return f"user/preference:{_slug(v)}", f"not:{v}" if negated else v

    return build


def directive(polarity: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        raw = _DIRECTIVE_LEAD.sub("", m["v"].strip())
        if polarity == "always" and (found := category(raw)):
            return category_kv(found, m)
        v = clean(raw)
        return None if vague(v) else (f"user/instruction:{_slug(v)}", polarity)

    return build


def avoid(prefix: str) -> Builder:
    def build(m: re.Match[str]) -> KeyValue | None:
        v = _object(m["v"])
        return None if vague(v) else (f"user/{prefix}:{_slug(v)}", f"not:{v}")

    return build


def allergy(m: re.Match[str]) -> KeyValue | None:
    v = clean(m["v"])
    if vague(v):
        return None
    return f"user/allergy:{_slug(v)}", f"not:{v}" if m["n"] else v


def budget(m: re.Match[str]) -> KeyValue | None:
    v = re.sub(r"^([$€£¥]) ", r"\1", " ".join(m["v"].split()).rstrip(",.").lower())
    owner = m.string[max(0, m.start() - 8) : m.end()]  # "our budget" / "我们的预算"
    return f"{_subject('budget', owner)}/budget", v


def reply_language(m: re.Match[str]) -> KeyValue | None:
    return "user/reply_language", lx.REPLY_LANGUAGES[m["v"].lower()]


def favorite(m: re.Match[str]) -> KeyValue | None:
    facet = clean(m["a"])
    v = _object(m["v"])
    return None if vague(v) else (f"user/favorite:{lx.FAVORITES.get(facet, _slug(facet))}", v)


def attribute(m: re.Match[str]) -> KeyValue | None:
    raw_attr = clean(m["a"])
    owner = re.fullmatch(r"(\w+)'s name", raw_attr)
    attr = f"{owner[1]}_name" if owner else lx.ATTRIBUTES.get(raw_attr)
    if attr is None:
        return None
    if attr in lx.CATEGORIES and (found := category(m["v"])):
        return category_kv(found, m)
    v = clean(_PLACE_CUT.sub("", m["v"]) if attr in {"location", "hometown", "employer"} else m["v"])
    if attr == "name":
        v = " ".join(v.split()[:3])
    if attr == "budget":
        v = v.replace(" ", "")
    return None if vague(v) else (f"{_subject(attr, m[0])}/{attr}", v)


def keyless(m: re.Match[str]) -> KeyValue | None:
    v = clean(m["v"])
    return None if vague(v) else (None, v)


def decision(m: re.Match[str]) -> KeyValue | None:
    found = category(m["v"])
    return category_kv(found, m) if found else keyless(m)
