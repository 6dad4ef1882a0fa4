"""The region a regional choice is for ("we ship with SF Express in China, FedEx in the US"): its key's
``:<region>``, when its clause, else its sentence, names exactly one region of the lexicon."""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from hindsight_es.extraction import lexicon as lx

_REGION_RES = {
    region: re.compile("|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in words), re.I)
    for region, words in lx.REGIONS.items()
}
_CLAUSE_END = re.compile(r"[,，;；]")


def region(category: str, where: re.Match[str] | str) -> str:
    """ ":<region>" when a regional choice names one region: in its clause, else in its sentence."""
    if category not in lx.REGIONAL_CATEGORIES:
        return ""
    sentence, clause = (where.string, _clause(where)) if isinstance(where, re.Match) else (where, where)
    for text in (clause, sentence):
        if len(named := _regions(text)) == 1:
            return f":{named[0]}"
    return ""


# Each is worked out once per sentence: a sentence choosing hundreds of values asks for every one, and a
# scan of the sentence per value was quadratic in its length.
@lru_cache(maxsize=64)
def _regions(text: str) -> tuple[str, ...]:
    """The regions ``text`` names."""
    return tuple(r for r, pattern in _REGION_RES.items() if pattern.search(text))


@lru_cache(maxsize=32)
def _cuts(sentence: str) -> list[int]:
    return [0, *(c.end() for c in _CLAUSE_END.finditer(sentence)), len(sentence)]


def _clause(m: re.Match[str]) -> str:
    """The clause of the sentence ``m`` matched in that ``m`` starts in."""
    cuts = _cuts(m.string)
    i = bisect.bisect_right(cuts, m.start()) - 1  # the cut at or before the start: its clause opens there
    return m.string[cuts[i] : cuts[i + 1]] if 0 <= i < len(cuts) - 1 else m.string
