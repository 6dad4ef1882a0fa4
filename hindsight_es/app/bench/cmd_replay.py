"""``bench replay``: rebuild speed (events/s) of the projections over a large synthetic log.

The history is written straight to the log, decided by the real ``decide``/``evolve`` with
synthetic candidates and random unit vectors (no extractor, no embedding model), so it holds what
the bank actor would have written: retentions, supersessions, forgets, corrections, retractions
and restores, with their turns and commands.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated

import numpy as np
import typer

from hindsight_es.app.cli.common import console, run_async, settings_from
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ForgetRequested,
    MemoryRetained,
    RestoreRequested,
    RetractionRequested,
    TurnRecorded,
    encode,
)
from hindsight_es.extraction.schema import Candidate
from hindsight_es.log import EventLog
from hindsight_es.memory import BankState, MemoryInfo, Prepared, decide, evolve

_KEYS = [f"user/attribute_{i}" for i in range(40)]
_VALUES = [f"value {i}" for i in range(25)]
_WORDS = [
    "status",
    "update",
    "about",
    "the",
    "quarterly",
    "report",
    "release",
    "notes",
    "budget",
    "sheet",
    "onboarding",
    "guide",
    "design",
    "review",
    "load",
    "test",
    "migration",
    "plan",
    "customer",
    "survey",
    "security",
    "audit",
    "team",
    "offsite",
]


@dataclass(frozen=True, slots=True)
class Entry:
    topic: str
    event: Event


def synthetic_history(
    bank: str,
    min_events: int,
    *,
    dim: int = 384,
    seed: int = 11,
    min_active: int = 0,
    start: datetime = datetime(2025, 1, 1, tzinfo=UTC),
    embedder_id: str = "synthetic-384",
) -> Iterator[Entry]:
    """At least ``min_events`` events of one bank, and at least ``min_active`` active memories at the end:
    turns (20 per session) and their memory events, with a forget every 40 turns, a correction every 60,
    a session retraction every 150 and a restore of the retracted memories every 300 (about 2.9 events
    per turn; about half the memories stay active). The vectors are random, labelled ``embedder_id`` (a
    real embedder's id lets a service that checks the log's embedder serve them)."""
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)
    state = BankState(bank)
    count, i = 0, 0

    def unit(n: int) -> np.ndarray:
        v = vectors.standard_normal((n, dim), dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    retained: list = []  # memory ids in order, and per session: sampled without scanning every memory
    by_session: dict[str | None, list] = {}

    def emit(topic: str, event: Event, prepared: Prepared | None = None) -> Iterator[Entry]:
        nonlocal count
        yield Entry(topic, event)
        count += 1
        for produced in decide(state, event, prepared):
            evolve(state, produced)
            if isinstance(produced, MemoryRetained):
                retained.append(produced.memory_id)
                by_session.setdefault(produced.session_id, []).append(produced.memory_id)
            yield Entry(TOPIC_MEMORIES, produced)
            count += 1

    def some_active() -> MemoryInfo | None:
        """A random active memory (a few draws; None when they all hit inactive ones)."""
        for _ in range(32):
            if retained and (m := state.memories[rng.choice(retained)]).status == "active":
                return m
        return None

    retracted: list = []
    active_now = 0
    while count < min_events or active_now < min_active:
        if min_active and i % 2000 == 0:
            active_now = len(state.active())
        at = start + timedelta(minutes=i)
        text = " ".join(rng.choices(_WORDS, k=8)) + f" (#{i})"
        turn = TurnRecorded(
            bank_id=bank,
            session_id=f"s{i // 20}",
            turn_id=f"t{i}",
            text=text,
            occurred_at=at,
            speaker="Ann",
            source="document" if i % 7 == 0 else "user",
        )
        candidates = [Candidate(kind="episode", text=text)]
        if rng.random() < 0.6:
            key, value = rng.choice(_KEYS), rng.choice(_VALUES)
            candidates.append(Candidate(kind="fact", text=f"{key} is {value} (#{i})", key=key, value=value))
        yield from emit(TOPIC_TURNS, turn, Prepared(candidates, unit(len(candidates)), embedder_id, "synthetic"))
        if i % 40 == 39 and (target := some_active()) is not None:
            yield from emit(
                TOPIC_COMMANDS,
                ForgetRequested(bank_id=bank, occurred_at=at, actor="operator", memory_ids=(target.memory_id,)),
            )
        if i % 60 == 59 and (target := some_active()) is not None:
            correction = CorrectionRequested(
                bank_id=bank, occurred_at=at, memory_id=target.memory_id, text=f"corrected: {target.text}"
            )
            yield from emit(TOPIC_COMMANDS, correction, Prepared([], unit(1), embedder_id, "synthetic"))
        if i % 150 == 149:
            retraction = RetractionRequested(
                bank_id=bank, occurred_at=at, actor="operator", session_id=f"s{rng.randrange(i // 20 + 1)}"
            )
            retracted = list(by_session.get(retraction.session_id, []))
            yield from emit(TOPIC_COMMANDS, retraction)
        if i % 300 == 299 and retracted:
            yield from emit(TOPIC_COMMANDS, RestoreRequested(bank_id=bank, occurred_at=at, memory_ids=tuple(retracted)))
        i += 1


async def write_history(log: EventLog, entries: Iterator[Entry], *, chunk: int = 5000) -> int:
    """Append entries in order, per (topic, bank) in chunks; returns how many were written."""
    written = 0
    pending: dict[tuple[str, str], list[bytes]] = {}
    for entry in entries:
        pending.setdefault((entry.topic, entry.event.bank_id), []).append(encode(entry.event))
        written += 1
        if written % chunk == 0:
            await _flush(log, pending)
    await _flush(log, pending)
    return written


async def _flush(log: EventLog, pending: dict[tuple[str, str], list[bytes]]) -> None:
    for (topic, bank), values in pending.items():
        await log.append(topic, bank, values)
    pending.clear()


def replay(
    ctx: typer.Context,
    events: Annotated[int, typer.Option(min=100, help="Events to write first")] = 100_000,
    banks: Annotated[int, typer.Option(min=1, help="Banks to spread them over")] = 4,
    keep: Annotated[bool, typer.Option(help="Keep the rebuilt generation (about 250 MB per 100k events)")] = False,
) -> None:
    """Rebuild speed: write a synthetic history to the log, then rebuild every projection from it."""
    from hindsight_es.stores import generations
    from projections.replay import rebuild

    settings = settings_from(ctx)

    async def go() -> None:
        from hindsight_es.log import started_log

        async with started_log(settings) as log:
            t0 = time.perf_counter()
            stamp = int(time.time())
            written = 0
            for b in range(banks):
                written += await write_history(
                    log, synthetic_history(f"bench-replay-{stamp}-{b}", events // banks, seed=b)
                )
            console.print(
                f"wrote {written:,} events in {time.perf_counter() - t0:.1f}s to {settings.broker or settings.log_path}"
            )
            cpu = time.process_time()
            built = await rebuild(settings, log)
            cpu = time.process_time() - cpu
            console.print(
                f"rebuilt {built.events:,} events (vectors, working memory, archive) into generation "
                f"{built.generation} in {built.replay_seconds:.2f}s: "
                f"[bold]{built.events / built.replay_seconds:,.0f} events/s[/bold]; indexes "
                f"{built.index_seconds:.2f}s; CPU of this process {cpu:.2f}s for both, the archive's child process "
                f"not counted (a busy machine stretches wall time)"
            )
            if not keep:  # never switched to: nothing reads it
                generations.remove(list(built.stores.values()), settings.data_dir)
                console.print(f"removed generation {built.generation} (--keep keeps it)")

    run_async(go)


__all__ = ["Entry", "replay", "synthetic_history", "write_history"]
