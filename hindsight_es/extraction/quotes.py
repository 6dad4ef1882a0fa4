"""What a typed memory quotes: the clause of its sentence that says its value.

A typed memory keeps the words it was drawn from (``Candidate.quote``), indexed after its statement; an
episode is hidden behind the typed memories of its turn, and follows them when they are superseded or
forgotten, when their quotes say all it says (``episodes.says_nothing_else``). A quote wider than its
clause hides what the rest of the sentence says: "My brother lives in Osaka and works as a chef." quoted
whole by "the user's brother works as a chef" took Osaka along when that fact was forgotten.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Where a sentence's clauses meet: after a semicolon; after a comma that opens a clause with a subject of
# its own ("I'm Lin, I run a tea shop", "my daughter is called Mia, she is six", "我女儿叫小美，她今年六岁")
# or a time of its own ("我女儿叫小美，今年六岁"); before "and" / "but" between two words. A comma before
# anything else continues its clause ("我们用的是 PostgreSQL，不是 MySQL").
_SUBJECT = r"(?i:i|we|you|he|she|it|they|my|our|his|her|their)\b|我|你|他|她|它|咱"
_TIME_ZH = r"今年|去年|明年|前年|后年|现在|目前|以前|之前|后来|最近|[上下这本]个?(?:月|周|星期|礼拜)"
_PARTS = re.compile(rf"(?<=[;；])|(?<=[,，])(?=\s*(?:{_SUBJECT}|{_TIME_ZH}))|(?<=\w)(?=,?\s+(?i:and|but)\s+\w)")
_EDGES = " \t\n,，"  # a part's ends: the comma before a clause belongs to neither side


def quoted(sentence: str, value: str | None) -> str:
    """Of a sentence in parts (``_PARTS``), the one part that says ``value``, else the whole sentence (a
    value that spans parts, "salt and pepper", or that several parts say)."""
    said = (value or "").removeprefix("not:").casefold()
    parts = _parts(sentence)
    holding = [p for p, folded in parts if said and said in folded]
    return holding[0] if len(parts) > 1 and len(holding) == 1 else sentence


@lru_cache(maxsize=32)
def _parts(sentence: str) -> tuple[tuple[str, str], ...]:
    """The sentence's parts, as written and casefolded: once per sentence, which each of its values asks."""
    parts = [p.strip(_EDGES) for p in _PARTS.split(sentence) if p.strip(_EDGES)]
    return tuple((p, p.casefold()) for p in parts)
