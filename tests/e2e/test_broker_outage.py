"""A broker that dies while a worker's consumers join their groups, as an operator meets it: the worker keeps
running, says once that it retries, answers ``degraded`` at ``/healthz`` (a ``kafka: …`` line), and once the
broker is back (restarted on durable storage) it joins its groups again and decides every turn exactly once,
those published before the broker died and those published while the worker was still out.

The worker starts its subscribers one after another, each joining its group (about a second each); the
broker is killed at the moment one of them starts, which is when a Kafka client bootstraps: the worker's
bootstrap address is a relay in front of the broker, which advertises its own address, so a connection
reaches the relay only when a client starts. Before the fix, that start's "Unable to bootstrap" stopped
the worker.

After an outage long enough for the retries' back-off to grow to 32 s, the broker back at the start of
that wait, the worker consumes again within seconds: it probes the broker during the back-off and starts
once it answers (before, it waited the whole 32 s: /healthz was ok 36 s after the broker answered)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from hindsight_es.config import Settings
from hindsight_es.log import open_log
from tests.e2e.test_broker_emptied import Tansu
from tests.e2e.test_scale_out import (
    PARTITIONS,
    Decided,
    Workers,
    free_port,
    inputs,
    projected,
    publish,
    single_worker,
    until_decided,
)
from tests.e2e.test_worker_health import get, until

pytestmark = pytest.mark.kafka
OUTAGE_S = 8.0  # long enough for three retries (1 s, 2 s, 4 s)
# The broker back at the start of a 32 s back-off: the worker rejoins its groups (each about a second on
# Tansu, slower on a loaded machine) well before that wait ends.
RESUMED_S = 20.0


class Relay:
    """A TCP relay on 127.0.0.1 to ``port``, in a thread of its own. Once ``arm``ed, the next connection is
    not relayed: ``fire`` runs first (the broker is killed), then the connection is closed."""

    def __init__(self, port: int, fire: Callable[[], None]) -> None:
        self.upstream, self.fire, self.port = port, fire, free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.armed, self.fired = threading.Event(), threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._relay, "127.0.0.1", self.port), self.loop
        ).result(5)

    def arm(self) -> None:
        self.armed.set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.armed.is_set() and not self.fired.is_set():
            await asyncio.to_thread(self.fire)
            self.fired.set()
            writer.close()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    writer.close()


class Outage:
    """A worker (``w``, ``/healthz`` on ``port``) on a Tansu broker with durable storage behind a ``Relay``:
    the broker is killed as one of the worker's consumers starts, after the first group has joined, so the
    worker's run fails and ``supervised`` retries it. ``broker.start()`` brings the broker back, at the same
    address, with what it held."""

    def __init__(self, s3_server: dict[str, str], tmp_path: Path) -> None:
        aws = {
            "AWS_ACCESS_KEY_ID": s3_server["s3_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": s3_server["s3_secret_access_key"],
            "AWS_DEFAULT_REGION": s3_server["s3_region"],
            "AWS_ENDPOINT": s3_server["s3_endpoint"],
            "AWS_ALLOW_HTTP": "true",
        }
        self.broker = Tansu(tmp_path / "tansu.log", storage="s3://hindsight-test/", env=aws)  # survives a restart
        self.broker.start()
        self.relay = Relay(self.broker.port, self.broker.stop)
        self.settings = Settings(broker=self.broker.address, partitions=PARTITIONS, data_dir=tmp_path / "worker-w")
        self.log = open_log(self.settings)  # the worker's own data directory: the same keys
        self.workers = Workers(self.relay.address, tmp_path, {})
        self.said = tmp_path / "worker-w.log"
        self.port = free_port()

    async def kill_as_the_worker_joins(self, before: list) -> None:
        """Publish ``before``, start the worker, and kill the broker as its second consumer starts."""
        await self.log.start()
        await publish(self.log, before)
        self.workers.start("w", HINDSIGHT_METRICS_PORT=str(self.port))
        # the bank actor's group is joined first: the projections' subscribers start after it
        await until(
            "the first group joined", lambda: "assigned to partitions" in self.said.read_text(), self.workers, 120
        )
        self.relay.arm()
        await until("the broker killed as a consumer starts", self.relay.fired.is_set, self.workers, 60)

    def degraded(self) -> str:
        """``/healthz``'s answer while it is degraded with the consumers' ``kafka: …`` line, else ""."""
        assert self.workers.procs["w"].poll() is None, f"the worker stopped:\n{self.said.read_text()[-4000:]}"
        status, text = get(self.port, "/healthz")
        return text if status == 503 and "\nkafka: " in text else ""

    def ok(self) -> bool:
        return get(self.port, "/healthz") == (200, "ok\n")

    async def decided_as(self, expected: dict[str, list[Decided]]) -> None:
        """Every turn decided, once, as one process decides them (``single_worker``)."""
        found = await until_decided(self.log, expected, self.workers, timeout_s=120)
        for bank, events in expected.items():
            assert found.get(bank, []) == events, f"{bank}:\n{self.workers.logs()[-4000:]}"

    async def close(self) -> None:
        self.workers.stop_all()
        self.relay.close()
        await self.log.close()
        self.broker.stop()


async def started(s3_server: dict[str, str], tmp_path: Path) -> tuple[Outage, dict[str, list[Decided]], list, list]:
    """An ``Outage``, what one worker alone decides of its two batches, and the batches."""
    first, second, _ = inputs()
    expected = await single_worker(tmp_path / "reference", [first, second])
    return Outage(s3_server, tmp_path), expected, first, second


async def test_a_broker_killed_while_the_worker_joins_is_waited_out(s3_server, tmp_path: Path) -> None:
    outage, expected, first, second = await started(s3_server, tmp_path)
    workers, said, log = outage.workers, outage.said, outage.log
    try:
        await outage.kill_as_the_worker_joins(first)
        down = await until("/healthz degraded, with the consumers' line", outage.degraded, workers, 30)
        assert "(retrying in " in down, down
        await asyncio.sleep(OUTAGE_S)
        assert outage.degraded(), get(outage.port, "/healthz")
        lines = said.read_text().splitlines()
        retrying = [line for line in lines if "hindsight.service: kafka: the broker does not answer" in line]
        assert len(retrying) == 1, "\n".join(retrying)  # one line when it starts, not one per retry
        assert len(lines) < 120, "\n".join(lines[-120:])

        outage.broker.start()  # the same storage: everything written before the kill is there
        await publish(log, second)  # while the worker is still out (waiting for its next retry)
        await until("ok again", outage.ok, workers, 90)
        assert said.read_text().count("kafka: working again after") == 1

        await outage.decided_as(expected)
        await projected(outage.settings, log, workers, timeout_s=90)

        workers.stop_all()
        assert "hindsight worker stopped cleanly" in said.read_text()
    finally:
        await outage.close()


async def test_a_worker_resumes_within_seconds_of_the_broker_answering_again(s3_server, tmp_path: Path) -> None:
    """After a long outage the retry's back-off has grown to 32 s; the broker back at the start of that
    wait, the worker has joined its groups again (``/healthz`` ok) within seconds, not when the wait ends."""
    outage, expected, first, second = await started(s3_server, tmp_path)
    workers, said, log = outage.workers, outage.said, outage.log
    try:
        await outage.kill_as_the_worker_joins(first)
        # the waits between attempts are 1, 2, 4, 8 and 16 s (31 s in all): then 32 s
        await until("a back-off of 32 s", lambda: "(retrying in 32s)" in outage.degraded(), workers, 120)
        outage.broker.start()
        answering = time.monotonic()
        await until("ok again", outage.ok, workers, 90)
        resumed_s = time.monotonic() - answering
        print(f"/healthz ok {resumed_s:.1f}s after the broker answered again (back-off 32 s)")
        assert resumed_s < RESUMED_S, f"{resumed_s:.1f}s\n{said.read_text()[-4000:]}"

        await publish(log, second)
        await outage.decided_as(expected)
        text = said.read_text()  # one line when the retries start, one when it works again: no probe is logged
        assert text.count("hindsight.service: kafka: the broker does not answer") == 1, text[-4000:]
        assert text.count("kafka: working again after") == 1, text[-4000:]
    finally:
        await outage.close()
