"""The matching copy of a sentence, which the rule patterns run on: straight quotes, contractions expanded
("I'm" -> "i am", "don't" -> "do not", "my birthday's on" -> "my birthday is on"; "my sister's husband"
stays a possessive), and a kin word opening it as the speaker's ("Dad moved to Brighton" -> "my dad
moved to Brighton"), a subject it leaves out as the speaker ("been a nurse for years" -> "i have been a nurse
for years"). Case is kept: patterns read capitals where they mark names and places."""

from __future__ import annotations

import re

from hindsight_es.text import EMOJI

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
# Typed without the apostrophe ("im veggie", "ive moved"): neither is an English word without it.
_BARE_CONTRACTION = re.compile(r"\b(?:(im)|(ive))\b", re.I)
# A casual sentence drops its subject ("Been an auditor at Deloitte for six years", "thinking of doing a
# masters"): a participle opening it is the speaker's. Only forms that do not open an imperative ("work on the
# report" asks, "working as a nurse" says); a past tense ("moved the shop to Azure") is left to the patterns
# that take it without a subject, since "I" would make a team's choice the speaker's.
_ELIDED = re.compile(
    r"^((?:(?:just|recently|finally|also|still|now|currently|officially|basically|honestly)\s+)*)"
    r"(?=(?:(been)|(started\s+(?:working|(?:a|my)\s+(?:new\s+)?(?:job|role|position)))|(?:working|teaching|studying"
    r"|thinking|planning|renting)\b)\b)",
    re.I,
)
# "Rotterdam didn't work out, been living in The Hague since october": "been" opening a later clause too
_BEEN_AFTER = re.compile(r"([,;]\s+)been\s+(?=living|working|teaching|renting|based)", re.I)
# "she's lived", "who's been": 's before a participle is "has"
_HAS = re.compile(
    r"\b(he|she|it|who|that)'s(?=\s+(?:been|lived|got|gotten|gone|had|moved|worked|become|taken|done))", re.I
)
# Trigger words typed wrong in the way people type to a chat ("I'm alergic to eggs"): matched as meant.
_TYPO = re.compile(
    r"\b(?:(alerg(?:ic|ick)|allergick|alergick)|(alerg(?:y|ies))|(veg[ei]tarian|vegatarian|vegeterian)|(b-?day))\b",
    re.I,
)
_TYPO_AS = ("allergic", "allergy", "vegetarian", "birthday")
_KIN_OPEN = re.compile(r"^(?-i:(Dad|Mum|Mom|Grandma|Grandpa))\b(?=\s+[a-z])")  # "Dad moved …", not "Dad!"
_MY_IS = re.compile(
    r"\b(my\s+[a-z]+)'s(?=\s+(?:on|in|at|from|an?|the|not|still|now|coming|\d|january|february|march|april|may|june|july"
    r"|august|september|october|november|december)\b)",
    re.I,
)


def _expand(m: re.Match[str]) -> str:
    if m[1] or m[2]:
        return _EXPANSIONS[(m[1] or m[2]).lower()]
    return f"{m[3]} is" if m[3] else " not"


def _subject(m: re.Match[str]) -> str:
    return ("i have " if m[2] else "i " if m[3] else "i am ") + m[1]


def matching_copy(sentence: str) -> str:
    """``sentence`` as the patterns match it (see the module)."""
    # emoji carry no words: "hi, I'm Rafael 👋" ends at the name
    s = _KIN_OPEN.sub(r"my \1", EMOJI.sub("", sentence).strip().replace("’", "'").replace("‘", "'"))
    s = _TYPO.sub(lambda m: _TYPO_AS[m.lastindex - 1 if m.lastindex else 0], s)
    s = _ELIDED.sub(_subject, _BARE_CONTRACTION.sub(lambda m: "i am" if m[1] else "i have", s), count=1)
    s = _BEEN_AFTER.sub(r"\1i have been", s)
    return _CONTRACTION.sub(_expand, _MY_IS.sub(r"\1 is", _HAS.sub(r"\1 has", s))) if "'" in s else s
