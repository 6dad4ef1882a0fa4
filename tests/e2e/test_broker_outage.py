"""A broker that dies while a worker's consumers join their groups, as an operator meets it: the worker keeps
running, says once that it retries, answers ``degraded`` at ``/healthz`` (a ``kafka: …`` line), and once the
broker is back (restarted on durable storage) it joins its groups again and decides every turn exactly once,
those published before the broker died and those published while the worker was still out.

The worker starts its subscribers one after another, each joining its group (about a second each); the
broker is killed at the moment one of them starts, which is when a Kafka client bootstraps: the worker's
bootstrap address is a relay in front of the broker, which advertises its own address, so a connection
reaches the relay only when a client starts. Before the fix, that start's "Unable to bootstrap" stopped
the worker."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from hindsight_es.config import Settings
from hindsight_es.log import open_log
from tests.e2e.test_broker_emptied import Tansu
from tests.e2e.test_scale_out import (
    PARTITIONS,
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


async def test_a_broker_killed_while_the_worker_joins_is_waited_out(s3_server, tmp_path: Path) -> None:
    first, second, _ = inputs()
    expected = await single_worker(tmp_path / "reference", [first, second])
    aws = {
        "AWS_ACCESS_KEY_ID": s3_server["s3_access_key_id"],
        "AWS_SECRET_ACCESS_KEY": s3_server["s3_secret_access_key"],
        "AWS_DEFAULT_REGION": s3_server["s3_region"],
        "AWS_ENDPOINT": s3_server["s3_endpoint"],
        "AWS_ALLOW_HTTP": "true",
    }
    broker = Tansu(tmp_path / "tansu.log", storage="s3://hindsight-test/", env=aws)  # its log survives a restart
    broker.start()
    relay = Relay(broker.port, broker.stop)
    settings = Settings(broker=broker.address, partitions=PARTITIONS, data_dir=tmp_path / "worker-w")
    log = open_log(settings)  # the worker's own data directory: the same keys
    workers = Workers(relay.address, tmp_path, {})
    said = tmp_path / "worker-w.log"
    try:
        await log.start()
        await publish(log, first)
        port = free_port()
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port))
        # the bank actor's group is joined first: the projections' subscribers start after it
        await until("the first group joined", lambda: "assigned to partitions" in said.read_text(), workers, 120)
        relay.arm()
        await until("the broker killed as a consumer starts", relay.fired.is_set, workers, 60)

        def degraded() -> str:
            assert workers.procs["w"].poll() is None, f"the worker stopped:\n{said.read_text()[-4000:]}"
            status, text = get(port, "/healthz")
            return text if status == 503 and "\nkafka: " in text else ""

        down = await until("/healthz degraded, with the consumers' line", degraded, workers, 30)
        assert "(retrying in " in down, down
        await asyncio.sleep(OUTAGE_S)
        assert degraded(), get(port, "/healthz")
        lines = said.read_text().splitlines()
        retrying = [line for line in lines if "hindsight.service: kafka: the broker does not answer" in line]
        assert len(retrying) == 1, "\n".join(retrying)  # one line when it starts, not one per retry
        assert len(lines) < 120, "\n".join(lines[-120:])

        broker.start()  # the same storage: everything written before the kill is there
        await publish(log, second)  # while the worker is still out (waiting for its next retry)
        await until("ok again", lambda: get(port, "/healthz") == (200, "ok\n"), workers, 90)
        assert said.read_text().count("kafka: working again after") == 1

        found = await until_decided(log, expected, workers, timeout_s=120)
        for bank, events in expected.items():  # every turn decided, once, as one process decides them
            assert found.get(bank, []) == events, f"{bank}:\n{workers.logs()[-4000:]}"
        await projected(settings, log, workers, timeout_s=90)

        workers.stop_all()
        assert "hindsight worker stopped cleanly" in said.read_text()
    finally:
        workers.stop_all()
        relay.close()
        await log.close()
        broker.stop()
