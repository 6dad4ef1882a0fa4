"""Rescoring of fused candidates, pure.

    s(m)     = rrf(m) · (1 + SPEAKER · [m.speaker is named in the query])
                      · (1 + TIME · [m.valid_from lies in the query's time range])
                      · (1 + WHEN · [the query asks when and m's text says when])
                      · (1 + CURRENT · [the query asks how things stand now and m's text says what changed])
                      · (1 + AMOUNT · [the query asks for money or an age and m's text states one])
    t(m)     = s(m) · (1 + SESSION · S(session of m) / max S),   S = sum of the session's best 3 s
    score(m) = t(m) + REPLY · t(q)   when m answers a question q (below), else t(m)

A query about "Melanie" prefers what Melanie said; "in October 2023" prefers what happened then;
a memory whose session holds several good candidates is more likely the one (conversations stay
on a topic for a while); "when did…" is answered by a memory that says when ("last year", "上周",
``recall.answertype``). Boosts reorder candidates; they never add or remove one.

An answer inherits part of the question it answers. "October 10th to the 20th." answering "When are
you going?" names neither Rome nor the trip; the question, the turn before it, matches the topic the
answer lacks. A candidate answers a question when the candidate before it in its session (by when
it was said, within ``REPLY_WINDOW``) is a turn that ends asking, said by someone else. Only a
question passes its score on: taken from any turn before (a statement), the same share made the
answers worse (docs/benchmarks.md#answers-inherit-their-question).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from hindsight_es.memory.indexing import ASKING, short_question
from hindsight_es.recall.amounts import says_amount
from hindsight_es.recall.answertype import says_change, says_when
from hindsight_es.recall.query import ParsedQuery

SPEAKER = 0.5
TIME = 1.0
WHEN = 0.5
AMOUNT = WHEN  # as for a time asked for: not tuned
CURRENT = 0.25  # 0.5 and 1 lifted the set it was read on more and cost others (docs/benchmarks.md)
SESSION = 0.6
SESSION_TOP = 3
REPLY = 0.5
REPLY_WINDOW = timedelta(minutes=10)  # a reply in a conversation comes within minutes of its question


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
        if query.asks_current and says_change(str(row.get("text") or "")):
            score *= 1 + CURRENT
        if query.asks_amounts and says_amount(query.asks_amounts, str(row.get("text") or "")):
            score *= 1 + AMOUNT
        out.append((memory_id, score))
    return _answers(_by_session(out, rows), rows)


def _by_session(scored: list[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, float]]:
    best: dict[object, list[float]] = {}
    for memory_id, score in scored:
        best.setdefault(rows[memory_id].get("session_id"), []).append(score)
    weight = {s: sum(sorted(v, reverse=True)[:SESSION_TOP]) for s, v in best.items() if s is not None}
    top = max(weight.values(), default=0.0) or 1.0
    out = [(m, score * (1 + SESSION * weight.get(rows[m].get("session_id"), 0.0) / top)) for m, score in scored]
    return sorted(out, key=lambda kv: -kv[1])


def _answers(scored: list[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, float]]:
    """Each answer with ``REPLY`` of its question's score added (the module). A turn's memories (its episode
    and typed memories) share when it was said; the turn's score is its best memory's."""
    turns: dict[tuple[object, datetime], list[Any]] = {}  # (session, said) -> [score, asks, speaker]
    for memory_id, score in scored:
        row = rows[memory_id]
        if (session := row.get("session_id")) is None or (said := row.get("valid_from")) is None:
            continue
        turn = turns.setdefault((session, said), [score, False, _who(row)])
        turn[0] = max(turn[0], score)
        turn[1] = turn[1] or (row.get("kind") == "episode" and ASKING.search(str(row.get("text") or "")) is not None)
    if not any(asks for _, asks, _ in turns.values()):
        return scored
    times: dict[object, list[datetime]] = {}
    for session, said in sorted(turns, key=lambda k: k[1]):
        times.setdefault(session, []).append(said)
    out = []
    for memory_id, score in scored:
        row = rows[memory_id]
        session, said = row.get("session_id"), row.get("valid_from")
        if session is not None and said is not None:
            said_before = times[session]
            at = bisect.bisect_left(said_before, said)
            if at > 0 and said - (before := said_before[at - 1]) <= REPLY_WINDOW:
                question, asks, speaker = turns[(session, before)]
                if asks and speaker != _who(row):
                    score += REPLY * question
        out.append((memory_id, score))
    return sorted(out, key=lambda kv: -kv[1])


def _who(row: Mapping[str, Any]) -> object:
    """Who said a memory's turn: its speaker, or without one its source (a user's turn and the assistant's
    reply are two parties), as ``memory.indexing.reply_context`` tells them apart."""
    return row.get("speaker") or row.get("source")


def speaker_named(speaker: str | None, names: frozenset[str]) -> bool:
    """The speaker's first name is in the query, or a short form of it ("Mel" for "Melanie")."""
    if not speaker or not names:
        return False
    first = speaker.split()[0].lower()
    return first in names or any(len(n) >= 3 and first.startswith(n) for n in names)


def bridges(scored: Sequence[tuple[str, float]], rows: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The short questions among the candidates ("Lovely! When?") whose answer is a candidate too: question
    -> answer (an episode of the next turn of its session, within ``REPLY_WINDOW``, said by someone else).
    The answer is indexed with the question and what it asked about (``memory.indexing.reply_context``), so
    it says all the question does, and more."""
    turns: dict[object, list[tuple[datetime, str]]] = {}  # session -> (said, episode), by when
    for memory_id, _ in scored:
        row = rows[memory_id]
        if row.get("kind") == "episode" and (session := row.get("session_id")) is not None and row.get("valid_from"):
            turns.setdefault(session, []).append((row["valid_from"], memory_id))
    out = {}
    for said in turns.values():
        said.sort()
        for (when, question), (then, answer) in zip(said, said[1:], strict=False):
            asked, answered = rows[question], rows[answer]
            if (
                then - when <= REPLY_WINDOW
                and then > when
                and _who(asked) != _who(answered)
                and short_question(str(asked.get("text") or ""))
            ):
                out[question] = answer
    return out
