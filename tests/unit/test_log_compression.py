"""Record values compressed in the embedded log: round trips, values from before, and the bytes saved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hindsight_es.app.bench.synthetic import synthetic_turns
from hindsight_es.config import Settings
from hindsight_es.events import encode
from hindsight_es.log import compression
from hindsight_es.log.embedded import EmbeddedLog


@pytest.mark.parametrize(
    "value",
    [b"", b"{}", b'{"type":"TurnRecorded","text":"\xe5\xa5\xbd"}', b"\xff\x01not ours", b"not json", bytes(range(256))],
)
def test_any_value_reads_back_as_given(value: bytes) -> None:
    assert compression.unpack(compression.pack(value)) == value


def test_a_value_stored_before_compression_reads_as_it_is() -> None:
    old = b'{"event_id":"5b0f","type":"TurnRecorded","text":"we moved to Paris"}'
    assert compression.unpack(old) == old


async def test_the_log_stores_events_in_fewer_bytes_and_reads_them_back(tmp_path: Path) -> None:
    values = [encode(t) for t in synthetic_turns(Settings(), "alice", 200, seed=3)]
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        await log.append("hindsight.turns", "alice", values)
        assert [r.value for r in await log.read("hindsight.turns", 0, 0, 10_000)] == values
    finally:
        await log.close()
    with sqlite3.connect(tmp_path / "log.sqlite3") as db:
        stored = db.execute("SELECT SUM(LENGTH(value)) FROM records").fetchone()[0]
    assert stored < 0.75 * sum(map(len, values))
