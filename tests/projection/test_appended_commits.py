"""The vectors projection appends a batch that only retains new memories (rows and a loose position in
one ``add``) and merges any other; the table it leaves is the one merges alone leave, its positions
survive a restart, and a redelivered batch adds nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.log import Record
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.stores import lance
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.tracking import POSITION_BANK
from projections.runner import decode_batch
from projections.vectors import TABLE, VectorsProjection

BANK = "append-bank"
STEP = 3  # records per batch: most batches retain only, some supersede, forget or restore


async def _memory_records(tmp_path: Path) -> list[Record]:
    log = EmbeddedLog(tmp_path / "log.sqlite3", partitions=1)
    await log.start()
    try:
        await write_history(log, synthetic_history(BANK, 400, dim=8, seed=3), chunk=100)
        end = (await log.end_offsets(TOPIC_MEMORIES))[0]
        return await log.read(TOPIC_MEMORIES, 0, 0, end, end + 1)
    finally:
        await log.close()


def _tracking(store: LanceStore) -> list[str]:
    table = store.table(TABLE)
    assert table is not None
    table.checkout_latest()
    data = table.to_arrow()
    return sorted(data.filter(pc.equal(data["bank_id"], POSITION_BANK)).column("memory_id").to_pylist())


def _rows(store: LanceStore) -> pa.Table:
    rows, _ = store.snapshot(TABLE)
    return rows.sort_by("memory_id")


async def _project(path: Path, records: list[Record]) -> tuple[LanceStore, list[int]]:
    """Every record in batches of STEP through one projection; the tracking rows' count after each."""
    store = LanceStore(path)
    projection = VectorsProjection(store)
    await projection.positions()
    counts = []
    for start in range(0, len(records), STEP):
        await projection.apply(decode_batch(records[start : start + STEP]))
        counts.append(len(_tracking(store)))
    return store, counts


def test_appended_batches_leave_the_table_merges_leave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = asyncio.run(_memory_records(tmp_path))
    appended, counts = asyncio.run(_project(tmp_path / "appended", records))
    with monkeypatch.context() as m:
        m.setattr(lance, "LOOSE_MAX", 0)  # every commit merges, as before appends
        merged, merged_counts = asyncio.run(_project(tmp_path / "merged", records))

    assert set(merged_counts) == {1}  # one tracking row, always
    assert max(counts) > 1  # appends left loose positions ...
    assert counts[-1] < max(counts) and 1 in counts[counts.index(max(counts)) :]  # ... a later merge folded
    assert max(counts) <= lance.LOOSE_MAX + 1
    assert _rows(appended).equals(_rows(merged))
    end = {(TOPIC_MEMORIES, 0): records[-1].offset + 1}
    assert appended.positions(TABLE) == merged.positions(TABLE) == end
    assert appended.snapshot(TABLE)[1] == end


def test_loose_positions_survive_a_restart_and_redelivery_adds_nothing(tmp_path: Path) -> None:
    records = asyncio.run(_memory_records(tmp_path))
    _, counts = asyncio.run(_project(tmp_path / "scratch", records))
    first = STEP * next(k + 1 for k, n in enumerate(counts) if k >= 10 and n > 2)  # after appends, unfolded
    store, _ = asyncio.run(_project(tmp_path / "lance", records[:first]))
    loose = [k for k in _tracking(store) if "@" in k]
    before = _rows(store)

    async def restart_and_redeliver() -> LanceStore:
        again = LanceStore(tmp_path / "lance")  # a new process: nothing known but the table
        projection = VectorsProjection(again)
        assert await projection.positions() == {(TOPIC_MEMORIES, 0): first}
        await projection.apply(decode_batch(records[first - 2 * STEP : first]))  # delivered again
        return again

    again = asyncio.run(restart_and_redeliver())
    assert loose, "no batch was appended before the restart"
    assert _rows(again).equals(before)
    assert again.positions(TABLE) == {(TOPIC_MEMORIES, 0): first}
