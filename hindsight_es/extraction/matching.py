"""The matching copy of a sentence, which the rule patterns run on: straight quotes, contractions expanded
("I'm" -> "i am", "don't" -> "do not", "my birthday's on" -> "my birthday is on"; "my sister's husband"
stays a possessive), and a kin word opening it as the speaker's ("Dad moved to Brighton" -> "my dad
moved to Brighton"). Case is kept: patterns read capitals where they mark names and places."""

from __future__ import annotations

import re

__all__ = ["matching_copy"]

_CONTRACTION = re.compile(
    r"\b(can't|won't|let's|i'm)\b|n't\b|'(re|ve|ll|d)\b|\b(it|that|what|name|there|here|he|she)'s\b", re.I
)
_EXPANSIONS = {
    "can't": "cannot",
    "won't": "will not",
    "let's": "let us",
    "i'm": "i am",
    "re": " are",
    "ve": " have",
    "ll": " will",
    "d": " would",
}
_KIN_OPEN = re.compile(r"^(?-i:(Dad|Mum|Mom|Grandma|Grandpa))\b(?=\s+[a-z])")  # "Dad moved …", not "Dad!"
_MY_IS = re.compile(r"\b(my\s+[a-z]+)'s(?=\s+(?:on|in|at|from|an?|the|not|still|now|\d))", re.I)


def _expand(m: re.Match[str]) -> str:
    if m[1] or m[2]:
        return _EXPANSIONS[(m[1] or m[2]).lower()]
    return f"{m[3]} is" if m[3] else " not"


def matching_copy(sentence: str) -> str:
    """``sentence`` as the patterns match it (see the module)."""
    s = _KIN_OPEN.sub(r"my \1", sentence.replace("’", "'").replace("‘", "'"))
    return _CONTRACTION.sub(_expand, _MY_IS.sub(r"\1 is", s)) if "'" in s else s
