"""What a typed memory quotes: the clause of its sentence that says its value.

A typed memory keeps the words it was drawn from (``Candidate.quote``), indexed after its statement; an
episode is hidden behind the typed memories of its turn, and follows them when they are superseded or
forgotten, when their quotes say all it says (``episodes.says_nothing_else``). A quote wider than its
clause hides what the rest of the sentence says: "My brother lives in Osaka and works as a chef." quoted
whole by "the user's brother works as a chef" took Osaka along when that fact was forgotten.
"""

from __future__ import annotations

import re

# Where a sentence's clauses meet: after a semicolon or a Chinese comma; after a comma that opens a clause
# of the speaker's own ("I'm Lin, I run a tea shop"); before "and" / "but" between two words.
_PARTS = re.compile(r"(?<=[;；])|(?<=[,，])(?=\s*(?:(?i:i|we)\b|我|我们))|(?<=\w)(?=,?\s+(?i:and|but)\s+\w)")
_EDGES = " \t\n,，"  # a part's ends: the comma before a clause belongs to neither side


def quoted(sentence: str, value: str | None) -> str:
    """Of a sentence in parts (``_PARTS``), the one part that says ``value``, else the whole sentence (a
    value that spans parts, "salt and pepper", or that several parts say)."""
    said = (value or "").removeprefix("not:").casefold()
    parts = [p.strip(_EDGES) for p in _PARTS.split(sentence) if p.strip(_EDGES)]
    holding = [p for p in parts if said and said in p.casefold()]
    return holding[0] if len(parts) > 1 and len(holding) == 1 else sentence
