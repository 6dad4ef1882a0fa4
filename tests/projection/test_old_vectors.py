"""A log written before vectors were packed (float32 ``MemoryRetained`` version 2, ``MemoryRestored`` version 1
reviving one) still replays: mixed with new records, it folds and rebuilds to the state and rows of the same
history written today. Real embedded log (SQLite), LanceDB and Parquet."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import (
    Event,
    MemoryArchived,
    MemoryForgotten,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    decoded,
    encode,
)
from hindsight_es.log import Record
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.memory import BankState, evolve
from hindsight_es.memory.snapshot import state_to_json
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import LanceStore, memory_schema
from projections.archive import ArchiveProjection, archive_table
from projections.runner import catch_up
from projections.vectors import VectorsProjection

BANK = "old-bank"
DIM = 24
T0 = datetime(2025, 3, 1, 9, tzinfo=UTC)


def mid(name: str) -> UUID:
    return uuid5(NAMESPACE_URL, f"memory/{name}")


def float_vector(i: int) -> np.ndarray:
    found = np.random.default_rng(i).normal(size=DIM).astype(np.float32)
    return found / np.linalg.norm(found)


def retained(i: int) -> MemoryRetained:
    return MemoryRetained(
        bank_id=BANK,
        memory_id=mid(f"m{i}"),
        kind="fact",
        text=f"statement number {i}",
        key=f"user/attr{i % 4}",
        value=f"v{i}",
        source_turn_ids=(f"t{i}",),
        session_id="s1",
        valid_from=T0 + timedelta(minutes=i),
        occurred_at=T0 + timedelta(minutes=i),
        vector=float_vector(i),
        embedder="test-24d",
        extractor="rules/2",
        actor="bank-actor",
    )


def history() -> list[tuple[Event, np.ndarray | None]]:
    """Each event, with the float vector an old writer would have stored for it (for MemoryRestored, the
    vector of the memory it revives)."""
    out: list[tuple[Event, np.ndarray | None]] = [(retained(i), float_vector(i)) for i in range(12)]
    at = T0 + timedelta(hours=1)
    out += [
        (MemorySuperseded(bank_id=BANK, memory_id=mid("m0"), superseded_by=mid("m4"), valid_to=at), None),
        (MemoryForgotten(bank_id=BANK, memory_id=mid("m1"), reason="asked"), None),
        (MemoryArchived(bank_id=BANK, memory_id=mid("m2"), reason="faded"), None),
        (MemoryArchived(bank_id=BANK, memory_id=mid("m3"), reason="faded"), None),
        (MemoryRestored(bank_id=BANK, memory_id=mid("m2"), reason="recalled", revived=retained(2)), float_vector(2)),
    ]
    return out


def old_format(event: Event, vector: np.ndarray | None) -> bytes:
    """The record a writer of schema 2 (MemoryRetained) and 1 (MemoryRestored) appended."""
    floats = None if vector is None else base64.b64encode(vector.astype("<f4").tobytes()).decode()
    record: dict[str, Any] = json.loads(encode(event))
    if isinstance(event, MemoryRetained):
        record |= {"schema_version": 2, "vector": floats}
    elif isinstance(event, MemoryRestored) and record["revived"] is not None:
        record |= {"schema_version": 1}
        record["revived"] |= {"schema_version": 2, "vector": floats}
    return json.dumps(record).encode()


async def rebuilt(root: Path, values: list[bytes]) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]]:
    """Append ``values`` to a fresh log under ``root``, fold the bank and rebuild both stores from it (the
    archive's rows without their append times)."""
    log = EmbeddedLog(root / "log.sqlite3", 1)
    await log.start()
    try:
        await log.append(TOPIC_MEMORIES, BANK, values)
        state = BankState(BANK)
        records = await log.read(TOPIC_MEMORIES, 0, 0, len(values), len(values))
        events = [event for _, event in decoded(records)]
        assert len(events) == len(values)  # every old record decodes
        for event in events:
            evolve(state, event)
        lance, archive = LanceStore(root / "lance"), ArchiveStore(root / "archive")
        await catch_up(log, VectorsProjection(lance))
        await catch_up(log, ArchiveProjection(archive))
    finally:
        await log.close()
    rows = sorted(lance.snapshot("memories")[0].to_pylist(), key=lambda r: r["memory_id"])
    return (
        state_to_json(state),
        rows,
        [{k: v for k, v in r.items() if k != "timestamp_ms"} for r in archive.table_rows()],
    )


@pytest.mark.parametrize("mix", ["old", "alternate"])
async def test_an_old_log_rebuilds_to_what_a_new_one_does(tmp_path: Path, mix: str) -> None:
    items = history()
    new = [encode(event) for event, _ in items]
    old = [old_format(e, v) if mix == "old" or i % 2 else encode(e) for i, (e, v) in enumerate(items)]
    assert old != new and any(b'"schema_version":2' in v or b'"schema_version": 2' in v for v in old)
    state_new, rows_new, archive_new = await rebuilt(tmp_path / "new", new)
    state_old, rows_old, archive_old = await rebuilt(tmp_path / "old", old)
    assert state_old == state_new
    assert rows_old == rows_new and len(rows_new) == 11  # m3 is archived out of the hot table
    assert archive_old == archive_new
    by_id = {r["memory_id"]: r for r in rows_new}
    revived = np.asarray(by_id[str(mid("m2"))]["vector"], np.float32)
    assert float(revived @ float_vector(2)) > 0.9999 and by_id[str(mid("m2"))]["status"] == "active"


async def test_archive_files_of_float_vectors_are_searched_and_merged_with_new_ones(tmp_path: Path) -> None:
    """An archive from before the codes: its files hold float32 vectors; new files hold codes. Search sees
    both alike, and a compaction writes the old rows' vectors as codes."""
    items = [(Record(TOPIC_MEMORIES, 0, i, BANK, encode(e), 0), e) for i, (e, _) in enumerate(history()[:12])]
    old_rows, store = archive_table(items[:6]), ArchiveStore(tmp_path / "archive")
    floats = [float_vector(i).tolist() for i in range(6)]  # what the old archive stored for these memories
    old_rows = old_rows.set_column(
        old_rows.schema.get_field_index("vector"), "vector", pa.array(floats, pa.list_(pa.float32()))
    )
    folder = tmp_path / "archive" / "events" / f"topic={TOPIC_MEMORIES}" / "partition=0"
    folder.mkdir(parents=True)
    pq.write_table(old_rows, folder / f"{0:020d}-{5:020d}.parquet")
    await ArchiveProjection(store).apply(items[6:])
    for i in (2, 9):  # one memory in an old file, one in a new one
        hits = store.search_archived(BANK, float_vector(i), limit=3)
        assert hits[0]["memory_id"] == str(mid(f"m{i}")) and hits[0]["score"] > 0.999
    before = [(h["memory_id"], round(h["score"], 5)) for h in store.search_archived(BANK, float_vector(4), limit=12)]
    assert store.compact_all(min_files=2) == 2 and len(list(folder.glob("*.parquet"))) == 1
    after = [(h["memory_id"], round(h["score"], 5)) for h in store.search_archived(BANK, float_vector(4), limit=12)]
    assert [m for m, _ in after] == [m for m, _ in before] and len(after) == 12
    assert pq.read_table(next(folder.glob("*.parquet"))).schema.field("vector").type == pa.list_(pa.int8())


async def test_a_hot_table_an_older_release_wrote_in_float32_keeps_taking_rows(tmp_path: Path) -> None:
    """New tables hold float16 vectors; one written in float32 by an older release stays float32 and takes
    the rows of new events (cast as they are written), and they are found by vector search."""
    new, old = LanceStore(tmp_path / "new"), LanceStore(tmp_path / "old")
    float32 = memory_schema(DIM).set(
        memory_schema(DIM).get_field_index("vector"), pa.field("vector", pa.list_(pa.float32(), DIM))
    )
    old.commit("memories", float32, float32.empty_table(), {(TOPIC_MEMORIES, 0): 0})  # as an older release made it
    batch = [(Record(TOPIC_MEMORIES, 0, i, BANK, encode(e), 0), e) for i, (e, _) in enumerate(history())]
    for store in (new, old):
        await VectorsProjection(store).apply(batch)
    assert new.table("memories").schema.field("vector").type == pa.list_(pa.float16(), DIM)
    assert old.table("memories").schema.field("vector").type == pa.list_(pa.float32(), DIM)
    for store in (new, old):
        rows = store.snapshot("memories")[0]
        assert rows.num_rows == 11
        found = store.table("memories").search(float_vector(5)).distance_type("cosine").limit(1).to_list()
        assert found[0]["memory_id"] == str(mid("m5")) and found[0]["_distance"] < 1e-3
