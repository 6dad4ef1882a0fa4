"""A worker started with other stores than the deployment's refuses to work, as a process on a real
broker: with another key store (no HINDSIGHT_STORES_URI, its own data directory) it stops on the first
batch it cannot open, deciding and committing nothing, and at its next start before it joins a group;
with another HINDSIGHT_PARTITIONS than the topics have, it does not start."""

from __future__ import annotations

import asyncio
import time

import pytest

from hindsight_es.client import make_turn
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import decoded, encode
from hindsight_es.log import EventLog, open_log, replay
from tests.e2e.test_scale_out import PARTITIONS, Workers, free_port, until_listening

pytestmark = pytest.mark.kafka
BANK = "split-1"


async def decided(log: EventLog) -> list[str]:
    return [
        e.type for rs in [r async for r in replay(log, TOPIC_MEMORIES)] for _, e in decoded(rs) if e.bank_id == BANK
    ]


async def exited(workers: Workers, name: str, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while (rc := workers.procs[name].poll()) is None:
        assert time.monotonic() < deadline, f"{name} still runs after {timeout_s:g}s\n{workers.logs()}"
        await asyncio.sleep(0.2)
    return rc


async def test_a_worker_with_another_key_store_stops_and_decides_nothing(broker, tmp_path):
    writers = Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "writers")
    log = open_log(writers)  # seals with the writers' key store, writers/keys.sqlite3
    await log.start()
    workers = Workers(broker, tmp_path, {})
    try:
        port = free_port()
        workers.start("stray", HINDSIGHT_METRICS_PORT=str(port))  # its own data directory and keys.sqlite3
        await until_listening(port, workers)  # started and past its start-up check: the log was empty
        turn = make_turn(writers, BANK, "From now on we use FedEx for shipping.", session_id="s1", turn_id="t1")
        await log.append(TOPIC_TURNS, BANK, [encode(turn)])

        assert await exited(workers, "stray", 60) != 0
        said = (tmp_path / "worker-stray.log").read_text()
        assert f"no key and no tombstone for turn:t1 of bank {BANK} in SqliteKeyStore" in said, said[-3000:]
        assert "worker-stray/keys.sqlite3" in said and "HINDSIGHT_STORES_URI" in said
        assert await decided(log) == []  # not decided on the blank

        # started again: refused at start, before it joins a group
        (tmp_path / "worker-stray.log").write_bytes(b"")
        workers.start("stray")
        assert await exited(workers, "stray", 30) != 0
        assert "no key and no tombstone" in (tmp_path / "worker-stray.log").read_text()

        # nothing was committed: a worker on the writers' stores decides the turn
        workers.start("ok", HINDSIGHT_DATA_DIR=str(writers.data_dir))
        deadline = time.monotonic() + 60
        while "MemoryRetained" not in await decided(log):
            assert time.monotonic() < deadline, workers.logs()
            await asyncio.sleep(0.5)
    finally:
        workers.stop_all()
        await log.close()


async def test_a_worker_with_another_partition_count_does_not_start(broker, tmp_path):
    log = open_log(Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "writers"))
    await log.start()  # the topics exist, with PARTITIONS partitions
    await log.close()
    workers = Workers(broker, tmp_path, {})
    try:
        workers.start("wide", HINDSIGHT_PARTITIONS=str(2 * PARTITIONS))
        assert await exited(workers, "wide", 30) != 0
        said = (tmp_path / "worker-wide.log").read_text()
        assert f"has {PARTITIONS} partitions, but HINDSIGHT_PARTITIONS is {2 * PARTITIONS}" in said, said[-3000:]
        assert not list((tmp_path / "worker-wide").rglob("layout.json"))  # no store laid out by it
    finally:
        workers.stop_all()
