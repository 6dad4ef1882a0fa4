"""The entities of a said sentence (people, places, products): what a memory is tagged with for recall's
entity search. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import values as vx

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
        alias = vx.ALIASES.get(name.lower())
        if alias and alias[0] in lx.NOT_ENTITY_CATEGORIES:
            continue
        yield m.start(), alias[2] if alias else name


def entities(text: str, speaker: str | None) -> tuple[str, ...]:
    """The names a sentence mentions, in the order said: capitalised words (not stopwords, not a
    sentence-opening verb or adverb), lexicon aliases and known places, and the speaker's name."""
    found = list(_names(text))
    for m in vx.ALIAS_RE.finditer(text):
        category, _, display = vx.ALIASES[m[0].lower()]
        short_lower = m[0].isascii() and len(m[0]) <= 3 and not m[0].isupper()  # "ups and downs"
        if category not in lx.NOT_ENTITY_CATEGORIES and not short_lower:
            found.append((m.start(), display))
    found += [(m.start(), m[0]) for m in vx.PLACE_RE.finditer(text)]
    if speaker and speaker.strip().lower() not in {"user", "assistant", "system", "tool", "document"}:
        found.append((len(text), speaker.strip()))
    seen: dict[str, str] = {}
    for _, name in sorted(found, key=lambda item: item[0]):
        seen.setdefault(name.lower(), name)
    return tuple(seen.values())
