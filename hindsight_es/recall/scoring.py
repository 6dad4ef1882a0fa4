"""Rescoring of fused candidates, pure.

    score(m) = rrf(m) · (1 + SPEAKER · [m.speaker is named in the query])
                      · (1 + TIME · [m.valid_from lies in the query's time range])

A query about "Melanie" prefers what Melanie said; "in October 2023" prefers what happened then.
Boosts reorder candidates; they never add or remove one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hindsight_es.recall.query import ParsedQuery

SPEAKER = 0.5
TIME = 1.0


def rescore(fused: Sequence[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]],
            query: ParsedQuery) -> list[tuple[str, float]]:
    out = []
    for memory_id, score in fused:
        row = rows[memory_id]
        if _named(row.get("speaker"), query.names):
            score *= 1 + SPEAKER
        when = row.get("valid_from")
        if query.since is not None and when is not None and query.since <= when < query.until:
            score *= 1 + TIME
        out.append((memory_id, score))
    return sorted(out, key=lambda kv: -kv[1])


def _named(speaker: str | None, names: frozenset[str]) -> bool:
    """The speaker's first name is in the query, or a short form of it ("Mel" for "Melanie")."""
    if not speaker or not names:
        return False
    first = speaker.split()[0].lower()
    return first in names or any(len(n) >= 3 and first.startswith(n) for n in names)
