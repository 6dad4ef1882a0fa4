"""A rebuild's projections (``projections.fresh``: append, hold changes to appended rows, one merge at the
end) leave the same rows and positions as the live ones (merge every batch), over a history holding every
kind of change to a row already written: supersessions, forgets, corrections, retractions and restores
decided by the real ``decide``, plus archives, revivals from the archive, a memory retained twice, erasures
of memories and turns, and a turn recorded twice. Real embedded log (SQLite) and LanceDB; a window of a few
rows so nearly every change reaches a row already appended."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from hindsight_es.app.bench.cmd_replay import Entry, synthetic_history, write_history
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.errors import StoreError
from hindsight_es.events import ContentErased, MemoryArchived, MemoryRestored, MemoryRetained, TurnRecorded
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.stores.lance import LanceStore, files_holding
from projections import fresh
from projections.fresh import FreshTurns, FreshVectors
from projections.runner import catch_up, log_ends, replay_into
from projections.vectors import VectorsProjection
from projections.working_memory import WorkingMemoryProjection

BANK = "fresh-bank"


def history() -> list[Entry]:
    """``synthetic_history`` (decided by the real ``decide``) with archives, revivals, a second retention,
    erasures and a redelivered turn spliced in at random places (seeded)."""
    rng = random.Random(7)
    out: list[Entry] = []
    retained: list[MemoryRetained] = []
    archived: list[MemoryRetained] = []
    turns: list[TurnRecorded] = []
    for entry in synthetic_history(BANK, 1_500, dim=16, seed=3):
        out.append(entry)
        if isinstance(entry.event, MemoryRetained):
            retained.append(entry.event)
        elif isinstance(entry.event, TurnRecorded):
            turns.append(entry.event)
        roll = rng.random()
        if roll < 0.02 and retained:  # archived, later perhaps brought back
            event = rng.choice(retained)
            archived.append(event)
            out.append(Entry(TOPIC_MEMORIES, MemoryArchived(bank_id=BANK, memory_id=event.memory_id, reason="decay")))
        elif roll < 0.035 and archived:
            event = archived.pop(rng.randrange(len(archived)))
            out.append(Entry(TOPIC_MEMORIES, MemoryRestored(bank_id=BANK, memory_id=event.memory_id, revived=event)))
        elif roll < 0.04 and retained:  # the same retention again (a redelivered append)
            out.append(Entry(TOPIC_MEMORIES, rng.choice(retained)))
        elif roll < 0.045 and retained and turns:
            erased_turn = rng.choice(turns)
            out.append(
                Entry(
                    TOPIC_MEMORIES,
                    ContentErased(
                        bank_id=BANK,
                        memory_ids=(rng.choice(retained).memory_id,),
                        turn_ids=(erased_turn.turn_id,),
                        session_id=erased_turn.session_id,
                        erased_by="test",
                    ),
                )
            )
        elif roll < 0.05 and turns:  # a turn recorded again
            out.append(Entry(TOPIC_TURNS, rng.choice(turns)))
    kinds = {type(e.event).__name__ for e in out}
    assert {"MemoryArchived", "MemoryRestored", "ContentErased", "MemorySuperseded", "MemoryForgotten"} <= kinds
    assert any(e.topic == TOPIC_COMMANDS for e in out)
    return out


def table_rows(store: LanceStore, name: str, key: str) -> tuple[dict[str, dict[str, Any]], dict[Any, int]]:
    data, positions = store.snapshot(name)
    return {row[key]: row for row in data.to_pylist()}, positions


async def build(tmp_path: Path, window: int) -> tuple[LanceStore, LanceStore, Any]:
    log = EmbeddedLog(tmp_path / "log.sqlite3", 2)
    await log.start()
    try:
        await write_history(log, iter(history()), chunk=97)
        live = LanceStore(tmp_path / "live")
        for projection in (VectorsProjection(live), WorkingMemoryProjection(live)):
            await catch_up(log, projection, batch_size=41)
        rebuilt = LanceStore(tmp_path / "rebuilt")
        projections = [FreshVectors(rebuilt, window=window), FreshTurns(rebuilt, 100_000)]
        await replay_into(log, projections, batch_size=113)
        await fresh.finish(projections)
        ends = await log_ends(log, projections)
    finally:
        await log.close()
    return live, rebuilt, ends


@pytest.mark.parametrize("window", [4, 100_000])
def test_a_fresh_rebuild_leaves_the_live_rows(tmp_path: Path, window: int) -> None:
    live, rebuilt, ends = asyncio.run(build(tmp_path, window))
    for name, key, topics in (
        ("memories", "memory_id", (TOPIC_MEMORIES,)),
        ("turns", "turn_key", (TOPIC_TURNS, TOPIC_MEMORIES)),
    ):
        live_rows, live_at = table_rows(live, name, key)
        fresh_rows, fresh_at = table_rows(rebuilt, name, key)
        assert len(live_rows) > 300, name
        assert sorted(fresh_rows) == sorted(live_rows), name
        differing = [k for k in live_rows if live_rows[k] != fresh_rows[k]]
        assert not differing, (name, differing[:3], live_rows[differing[0]], fresh_rows[differing[0]])
        assert fresh_at == live_at == {tp: end for tp, end in ends.items() if end and tp[0] in topics}, name
    statuses = {row["status"] for row in table_rows(rebuilt, "memories", "memory_id")[0].values()}
    assert {"active", "superseded", "forgotten"} <= statuses
    # An erasure of a row already appended is an erasure, not a deletion: its words leave the files.
    entries = history()
    texts = {e.event.memory_id: e.event.text for e in entries if isinstance(e.event, MemoryRetained)}
    erased = {m for e in entries if isinstance(e.event, ContentErased) for m in e.event.memory_ids}
    kept = [row["text"] for row in table_rows(rebuilt, "memories", "memory_id")[0].values()]
    needles = [texts[m].encode() for m in erased if not any(texts[m] in text for text in kept)]
    assert len(needles) >= 3
    assert files_holding(live, "memories", needles) == []
    assert files_holding(rebuilt, "memories", needles) == []


def test_a_fresh_projection_refuses_a_table_with_rows(tmp_path: Path) -> None:
    async def go() -> None:
        log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
        await log.start()
        try:
            await write_history(log, iter(history()[:200]))
            store = LanceStore(tmp_path / "lance")
            await catch_up(log, VectorsProjection(store))
            with pytest.raises(StoreError, match="already holds rows"):
                await FreshVectors(store).positions()
        finally:
            await log.close()

    asyncio.run(go())
