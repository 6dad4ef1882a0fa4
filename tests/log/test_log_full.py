"""A full embedded log (SQLite's real SQLITE_FULL, from a size limit) reports the storage error, keeps
what it had and keeps serving reads; the process's health says why."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from hindsight_es.errors import LogFullError
from hindsight_es.health import HEALTH, storage_full
from hindsight_es.log.embedded import PAGE_SIZE, EmbeddedLog

pytestmark = pytest.mark.asyncio


async def fill(log: EmbeddedLog) -> int:
    """Append 4 KiB records until the log refuses one; returns how many it took (random bytes: the log
    compresses what it can, and these must take their size)."""
    rng = random.Random(5)
    for n in range(10_000):
        try:
            await log.append("t", "bank", [rng.randbytes(4096)])
        except LogFullError:
            return n
    raise AssertionError("the log never filled up")


async def test_a_full_log_reports_the_storage_error_and_keeps_serving_reads(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1, max_bytes=64 * PAGE_SIZE)
    await log.start()
    try:
        stored = await fill(log)
        assert stored > 10
        with pytest.raises(LogFullError, match="database or disk is full") as caught:
            await log.append("t", "bank", [random.Random(6).randbytes(4096)])
        assert "cannot rollback" not in str(caught.value)
        assert storage_full(caught.value)
        assert [p.component for p in HEALTH.problems()] == ["log"]
        assert "database or disk is full" in HEALTH.problems()[0].reason
        # nothing half-written: the offsets stay contiguous and every stored record reads back
        assert await log.end_offsets("t") == {0: stored}
        records = await log.read("t", 0, 0, 2**62, limit=100_000)
        assert [r.offset for r in records] == list(range(stored))
        # a small record may still fit in the free pages; when one does, health recovers
        try:
            await log.append("t", "bank", [b"y"])
        except LogFullError:
            pass
        else:
            assert HEALTH.ok
    finally:
        HEALTH.recover("log")
        await log.close()


async def test_a_new_log_holds_memory_sized_records_in_little_more_than_their_bytes(tmp_path: Path) -> None:
    """Records of a memory event's size (1-3 KB) fit in the log's pages instead of spilling into overflow
    pages (in 4 KiB pages the file was twice their bytes)."""
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        rng = random.Random(7)  # incompressible, so they take their size
        values = [rng.randbytes(1000 + 97 * n % 2000) for n in range(600)]
        for start in range(0, len(values), 50):
            await log.append("t", "bank", values[start : start + 50])
    finally:
        await log.close()
    on_disk = sum(p.stat().st_size for p in tmp_path.glob("log.sqlite3*"))
    assert on_disk < 1.35 * sum(map(len, values))
