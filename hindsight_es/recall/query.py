"""Query parsing: time range, names and script of a recall query (no model, no LLM)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from hindsight_es.recall.timeparse import parse_time_range
from hindsight_es.text import has_cjk

_NAME = re.compile(r"\b([A-Z][a-z]+(?:['’]s)?)\b")
_NOT_NAMES = {
    "What",
    "When",
    "Where",
    "Who",
    "Why",
    "How",
    "Which",
    "Did",
    "Does",
    "Do",
    "Is",
    "Are",
    "Was",
    "Were",
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "Has",
    "Have",
    "Had",
    "Can",
    "Could",
    "Would",
    "Will",
    "Should",
    "I",
    "My",
    "Our",
    "We",
    "You",
    "Your",
    "It",
    "This",
    "That",
    "Last",
    "Next",
    "If",
    "And",
    "Or",
    "But",
}


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str
    cjk: bool
    since: datetime | None
    until: datetime | None
    names: frozenset[str]  # lower-cased capitalised words that may be speakers or entities


def parse_query(text: str, now: datetime | None = None) -> ParsedQuery:
    now = now or datetime.now(UTC)
    found = parse_time_range(text, now)
    names = frozenset(
        m.removesuffix("'s").removesuffix("’s").lower()
        for m in _NAME.findall(text)
        if m.removesuffix("'s").removesuffix("’s") not in _NOT_NAMES
    )
    return ParsedQuery(
        text=text, cjk=has_cjk(text), since=found[0] if found else None, until=found[1] if found else None, names=names
    )


def without_names(text: str, names: frozenset[str]) -> str:
    """``text`` without the words ``names`` holds (lower-cased, possessive or not), spaces collapsed."""

    def keep(match: re.Match[str]) -> str:
        return "" if match.group(1).removesuffix("'s").removesuffix("’s").lower() in names else match.group(0)

    return " ".join(_NAME.sub(keep, text).split())
