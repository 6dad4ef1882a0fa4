"""Large banks for the scale benchmarks, written in bulk: the events the bank actor would have written for
a simple conversation, built directly (no extractor, guard or ``decide``), in the real event format.

Per turn: its ``TurnRecorded``, an episode and a keyed fact (``MemoryRetained``, random unit vectors
under the embedder's id, speaker and session as the actor sets them). Every ``SUPERSEDE_EVERY``-th fact
restates the key of an earlier one (``MemorySuperseded`` of it), every ``FORGET_EVERY``-th turn forgets
an earlier episode: about 0.9 of the memories stay active. ``decide`` costs about 2 ms a turn (the
guard, the dispute check): at a million memories that is most of an hour, this is about 60 µs an event.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import NAMESPACE_URL, UUID, uuid5

import numpy as np

from hindsight_es.app.bench.cmd_replay import Entry
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.events import MemoryForgotten, MemoryRetained, MemorySuperseded, TurnRecorded, vectors

SUPERSEDE_EVERY = 8  # one fact in 8 restates an earlier key
FORGET_EVERY = 50  # one turn in 50 forgets an earlier episode
VOCABULARY = 20_000  # distinct words, drawn by a Zipf law (rank ** -1.1) as in real text


def _vocabulary(n: int) -> tuple[list[str], list[float]]:
    """``n`` distinct pronounceable words (two to four syllables) and their cumulative Zipf weights."""
    rng = random.Random(1)
    onsets, vowels, codas = "b d f g h k l m n p r s t v w z ch sh st tr".split(), "a e i o u ai ou".split(), "n r s l"
    words: dict[str, None] = {}
    while len(words) < n:
        parts = [rng.choice(onsets) + rng.choice(vowels) for _ in range(rng.randint(2, 4))]
        words["".join(parts) + rng.choice(["", *codas.split()])] = None
    total, cumulative = 0.0, []
    for rank in range(1, n + 1):
        total += rank**-1.1
        cumulative.append(total)
    return list(words), cumulative


WORDS, _CUMULATIVE = _vocabulary(VOCABULARY)
_T = TypeVar("_T")
_START = datetime(2025, 1, 1, tzinfo=UTC)


def queries(n: int, seed: int) -> list[str]:
    """``n`` queries of two to six words drawn as the texts' words are (Zipf), so that their full-text
    searches match what a real bank's would: from a few rows to most of the bank."""
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, cum_weights=_CUMULATIVE, k=rng.randint(2, 6))) for _ in range(n)]


def memories_per_turn() -> float:
    """Active memories a turn leaves behind on average (two retained, minus those superseded or forgotten)."""
    return 2 - 1 / SUPERSEDE_EVERY - 1 / FORGET_EVERY


def memory_events_per_turn() -> float:
    """Memory events a turn writes on average."""
    return 2 + 1 / SUPERSEDE_EVERY + 1 / FORGET_EVERY


def bulk_history(
    bank: str, turns: int, *, dim: int, embedder_id: str, seed: int = 0, with_turns: bool = True
) -> Iterator[Entry]:
    """The events of ``turns`` turns of one bank, in log order (``with_turns=False``: the memory events only)."""
    rng = random.Random(f"{bank}/{seed}")
    gen = np.random.default_rng(rng.getrandbits(64))
    block = 1024
    codes: list[bytes] = []

    def vector() -> bytes:
        nonlocal codes
        if not codes:
            v = gen.standard_normal((block, dim), dtype=np.float32)
            v /= np.linalg.norm(v, axis=1, keepdims=True)
            codes = [vectors.pack(row) for row in v]
        return codes.pop()

    keys: list[tuple[str, UUID]] = []  # (key, the memory holding it), the candidates of a restatement
    episodes: list[UUID] = []
    for i in range(turns):
        at = _START + timedelta(seconds=30 * i)
        session = f"s{i // 20}"
        words = " ".join(rng.choices(WORDS, cum_weights=_CUMULATIVE, k=9))
        turn = TurnRecorded(
            bank_id=bank, session_id=session, turn_id=f"t{i}", text=f"{words} (#{i})", occurred_at=at, speaker="Ann"
        )
        if with_turns:
            yield Entry(TOPIC_TURNS, turn)
        common: dict[str, Any] = {
            "bank_id": bank,
            "causation_id": turn.event_id,
            "occurred_at": at,
            "session_id": session,
            "speaker": "Ann",
            "source_turn_ids": (turn.turn_id,),
            "valid_from": at,
            "embedder": embedder_id,
            "extractor": "bulk",
            "provenance": "user",
            "confirmed": True,
        }
        episode = MemoryRetained(
            memory_id=uuid5(NAMESPACE_URL, f"bulk/{bank}/{i}/episode"),
            kind="episode",
            text=turn.text,
            vector=vector(),
            **common,
        )
        yield Entry(TOPIC_MEMORIES, episode)
        episodes.append(episode.memory_id)
        old: tuple[str, UUID] | None = None
        if i % SUPERSEDE_EVERY == SUPERSEDE_EVERY - 1 and keys:
            old = _take(keys, rng.randrange(len(keys)))
        key = old[0] if old is not None else f"user/{rng.choice(WORDS)}_{i}"
        value = rng.choice(WORDS)
        fact = MemoryRetained(
            memory_id=uuid5(NAMESPACE_URL, f"bulk/{bank}/{i}/fact"),
            kind="fact",
            text=f"{key.split('/')[1]} is {value} ({' '.join(rng.choices(WORDS, cum_weights=_CUMULATIVE, k=4))}, #{i})",
            key=key,
            value=value,
            vector=vector(),
            **common,
        )
        yield Entry(TOPIC_MEMORIES, fact)
        if old is not None:
            superseded = MemorySuperseded(
                bank_id=bank,
                causation_id=turn.event_id,
                occurred_at=at,
                memory_id=old[1],
                superseded_by=fact.memory_id,
                reason="restated",
                valid_to=at,
            )
            yield Entry(TOPIC_MEMORIES, superseded)
        keys.append((key, fact.memory_id))
        if i % FORGET_EVERY == FORGET_EVERY - 1 and len(episodes) > 1:
            gone = _take(episodes, rng.randrange(len(episodes) - 1))
            forgotten = MemoryForgotten(
                bank_id=bank, causation_id=turn.event_id, occurred_at=at, memory_id=gone, reason="asked"
            )
            yield Entry(TOPIC_MEMORIES, forgotten)


def _take(items: list[_T], index: int) -> _T:
    """Remove and return ``items[index]`` in O(1) (the last item takes its place)."""
    items[index], items[-1] = items[-1], items[index]
    return items.pop()


__all__ = ["bulk_history", "memories_per_turn", "memory_events_per_turn"]
