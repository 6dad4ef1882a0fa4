"""A clause-opening "she"/"he" (她/他) read as the relative said just before it: "what should I send my mum?
she lives in Inverness" says where the mother lives, "我哥前年结婚了，他现在在杭州" where the brother is.

Only a pronoun opening a sentence or a clause is read, only when the nearest relative said before it in the
turn agrees with it (she: mother, sister, …; he: father, brother, …; either: friend, colleague, …), and the
pronoun becomes that relative as the patterns know it ("my mum", "我哥"). Anyone else named in between (a
capitalised name, 他们) leaves the pronoun as it is: it may be theirs. In the same way a clause-opening "ours",
"mine", "she" or "he" that is called something is the pet said last before it, when no relative was said after
it: "how often should I bathe a husky? mine's called Loki" names the dog. Pure.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction.patterns import _PET_EN, _REL_EN, _REL_ZH

__all__ = ["resolved"]

_SHE = frozenset({"mother", "sister", "wife", "daughter", "aunt", "grandmother", "girlfriend", "niece"})
_HE = frozenset({"father", "brother", "husband", "son", "uncle", "grandfather", "boyfriend", "nephew"})
_RELATIVE = re.compile(rf"\bmy\s+({_REL_EN})\b|我的?({_REL_ZH})", re.I)
# A clause-opening pronoun; the matching copy has already made "she's" "she is" or "she has".
_PRONOUN = re.compile(
    r"(^|[,;:，；：]\s*(?:(?:and|but|so)\s+)?|\b(?:and|but|so)\s+)(she\b|he\b|她(?!们)|他(?!们))", re.I
)
# Someone else named between the relative and the pronoun: a capitalised name not opening a sentence, or 他们
_SOMEONE_ELSE = re.compile(r"(?<=[a-z,;]\s)(?-i:[A-Z][a-z]+)|他们|她们|\bthey\b")


_PET = re.compile(rf"\b({_PET_EN})(?:'s|s)?\b", re.I)
_CALLED = re.compile(
    r"(^|[,;:]\s*(?:(?:and|but|so)\s+)?|\b(?:and|but|so)\s+)(?:ours|mine|she|he)(?:['’]s|\s+is)(?=\s+(?:called|named)\s)",
    re.I,
)


def _pets_named(copy: str, before: str) -> str:
    def swap(m: re.Match[str]) -> str:
        said = before + " " + copy[: m.start()]
        pet = next(reversed(list(_PET.finditer(said))), None)
        if pet is None or _RELATIVE.search(said, pet.end()) or _SOMEONE_ELSE.search(said, pet.end()):
            return m[0]
        return f"{m[1]}our {pet[1].lower()} is"

    return _CALLED.sub(swap, copy)


def resolved(copy: str, before: str) -> str:
    """``copy`` (a sentence's matching copy) with each clause-opening he/she that agrees with the relative said
    last before it (in ``before``, the turn's earlier sentences, or earlier in the sentence) read as that relative."""

    def swap(m: re.Match[str]) -> str:
        said = before + " " + copy[: m.start()]
        last = next(reversed(list(_RELATIVE.finditer(said))), None)
        if last is None or _SOMEONE_ELSE.search(said, last.end()):
            return m[0]
        pronoun = m[2].lower()
        english = pronoun in ("she", "he")
        word = (last[1] if english else last[2]) or ""
        who = lx.RELATIONS.get(word.lower())
        if who is None or (pronoun in ("she", "她") and who in _HE) or (pronoun in ("he", "他") and who in _SHE):
            return m[0]
        return m[1] + (f"my {word}" if english else f"我{word}")

    return _PRONOUN.sub(swap, _pets_named(copy, before))
