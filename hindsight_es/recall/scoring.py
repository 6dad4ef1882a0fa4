"""Rescoring of fused candidates, pure.

    s(m)     = rrf(m) · (1 + SPEAKER · [m.speaker is named in the query])
                      · (1 + TIME · [m.valid_from lies in the query's time range])
                      · (1 + WHEN · [the query asks when and m's text says when])
    score(m) = s(m) · (1 + SESSION · S(session of m) / max S),   S = sum of the session's best 3 s

A query about "Melanie" prefers what Melanie said; "in October 2023" prefers what happened then;
a memory whose session holds several good candidates is more likely the one (conversations stay
on a topic for a while); "when did…" is answered by a memory that says when ("last year", "上周",
``recall.answertype``). Boosts reorder candidates; they never add or remove one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hindsight_es.recall.answertype import says_when
from hindsight_es.recall.query import ParsedQuery

SPEAKER = 0.5
TIME = 1.0
WHEN = 0.5
SESSION = 0.6
SESSION_TOP = 3


def rescore(
    fused: Sequence[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]], query: ParsedQuery
) -> list[tuple[str, float]]:
    out = []
    for memory_id, score in fused:
        row = rows[memory_id]
        if speaker_named(row.get("speaker"), query.names):
            score *= 1 + SPEAKER
        when = row.get("valid_from")
        if query.since is not None and when is not None and query.since <= when < query.until:
            score *= 1 + TIME
        if query.asks_when and says_when(str(row.get("text") or "")):
            score *= 1 + WHEN
        out.append((memory_id, score))
    return _by_session(out, rows)


def _by_session(scored: list[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, float]]:
    best: dict[object, list[float]] = {}
    for memory_id, score in scored:
        best.setdefault(rows[memory_id].get("session_id"), []).append(score)
    weight = {s: sum(sorted(v, reverse=True)[:SESSION_TOP]) for s, v in best.items() if s is not None}
    top = max(weight.values(), default=0.0) or 1.0
    out = [(m, score * (1 + SESSION * weight.get(rows[m].get("session_id"), 0.0) / top)) for m, score in scored]
    return sorted(out, key=lambda kv: -kv[1])


def speaker_named(speaker: str | None, names: frozenset[str]) -> bool:
    """The speaker's first name is in the query, or a short form of it ("Mel" for "Melanie")."""
    if not speaker or not names:
        return False
    first = speaker.split()[0].lower()
    return first in names or any(len(n) >= 3 and first.startswith(n) for n in names)
