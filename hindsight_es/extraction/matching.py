"""The matching copy of a sentence, which the rule patterns run on: straight quotes, contractions expanded
("I'm" -> "i am", "don't" -> "do not", "my birthday's on" -> "my birthday is on"; "my sister's husband"
stays a possessive), and a kin word opening it as the speaker's ("Dad moved to Brighton" -> "my dad
moved to Brighton"), a subject it leaves out as the speaker ("been a nurse for years" -> "i have been a nurse
for years"). Case is kept: patterns read capitals where they mark names and places."""

from __future__ import annotations

import re

from hindsight_es.extraction.lexicon import RELATIONS
from hindsight_es.text import EMOJI

__all__ = ["MANY", "matching_copy"]

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
_NAME_OPEN = re.compile(r"^name(?:'s|\s+is)\s+(?=(?-i:[A-Z]))", re.I)  # "Name's Tom by the way": the speaker's
# "Dad moved …", "Dad's name …", not "Dad!"
_KIN_OPEN = re.compile(r"^(?-i:(Dad|Mum|Mom|Grandma|Grandpa))\b(?=\s+[a-z]|'s\s)")
_MY_IS = re.compile(
    r"\b(my\s+[a-z]+)'s(?=\s+(?:on|in|at|from|an?|the|not|still|now|coming|\d|january|february|march|april|may|june|july"
    r"|august|september|october|november|december)\b)",
    re.I,
)
# A relative named beside the kin word ("my sister Emma lives in Toronto", "my son Arjun just turned 7"): said as
# two statements the patterns know, "my sister is called Emma, my sister lives in Toronto". Family only: one has
# many friends and colleagues, and a second one named would supersede the first's name.
MANY = frozenset({"friend", "colleague", "roommate", "cousin", "aunt", "uncle", "niece", "nephew", "boss", "child"})


def _family(latin: bool) -> str:
    """The family's kin words in one script, as an alternation, longest first."""
    words = (w for w, r in RELATIONS.items() if w.isascii() == latin and r not in MANY)
    return "|".join(sorted(words, key=len, reverse=True))


_KIN_WORDS = _family(latin=True)
_APPOSED = re.compile(
    rf"\b((?-i:[Mm])y\s+(?:(?:older|younger|big|little|eldest|youngest|oldest|baby)\s+)?(?:{_KIN_WORDS}))"
    r"\s+(?-i:([A-Z][a-z]+))(?=\s+(?-i:[a-z]))",
    re.I,
)

# In Chinese ("我妹马丽娟在兰州开了个花店"): a name the tagger reads as a person's, before what is said of them.
_ZH_KIN_WORDS = _family(latin=False)
_APPOSED_ZH = re.compile(
    rf"(我的?(?:{_ZH_KIN_WORDS}))(?![在是当做开住去也还从跟和叫])([\u4e00-\u9fff]{{2,3}}?)(?=在|是|当|做|开|今年|住|去|已经|刚|也|还|从|，|,)"
)


def _zh_named(m: re.Match[str]) -> str:
    from hindsight_es.extraction.names_zh import is_person_name  # the tagger loads only for a sentence that may name

    return f"{m[1]}叫{m[2]}，{m[1]}" if is_person_name(m[2]) else m[0]


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
    s = _NAME_OPEN.sub("my name is ", s)
    s = _TYPO.sub(lambda m: _TYPO_AS[m.lastindex - 1 if m.lastindex else 0], s)
    s = _ELIDED.sub(_subject, _BARE_CONTRACTION.sub(lambda m: "i am" if m[1] else "i have", s), count=1)
    s = _APPOSED.sub(r"\1 is called \2, \1", _BEEN_AFTER.sub(r"\1i have been ", s))
    s = _APPOSED_ZH.sub(_zh_named, s) if "我" in s else s
    return _CONTRACTION.sub(_expand, _MY_IS.sub(r"\1 is", _HAS.sub(r"\1 has", s))) if "'" in s else s
