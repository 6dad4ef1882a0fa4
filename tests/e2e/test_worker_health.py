"""A worker as an operator watches it, on a real broker: ``/metrics`` carries the consumer lag of the
partitions it owns, ``/healthz`` turns ``degraded`` while the broker is frozen (SIGSTOP) and ``ok`` when it
answers again (SIGCONT), and a broker that is gone costs a few log lines, not hundreds a second, and does not
stop the worker."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from hindsight_es.client import make_turn
from hindsight_es.config import TOPIC_TURNS, Settings
from hindsight_es.events import encode
from hindsight_es.log import open_log
from tests.e2e.test_scale_out import PARTITIONS, Workers, free_port

pytestmark = pytest.mark.kafka


def broker_pid(address: str) -> int:
    """The pid of the Tansu process listening on ``address`` (its command line names the listener)."""
    wanted = f"tcp://{address}".encode()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if wanted in (proc / "cmdline").read_bytes():
                    return int(proc.name)
            except OSError:
                continue
    raise AssertionError(f"no broker process listens on {address}")


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


async def until(what: str, check, workers: Workers, timeout_s: float):
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if found := await asyncio.to_thread(check):
                return found
        except OSError:
            pass
        assert time.monotonic() < deadline, f"{what} not within {timeout_s:g}s\n{workers.logs()[-4000:]}"
        await asyncio.sleep(0.25)


async def test_worker_metrics_and_health_follow_the_broker(broker, tmp_path):
    settings = Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "worker-w")
    log = open_log(settings)  # the worker's own data directory: the same keys
    await log.start()
    workers = Workers(broker, tmp_path, {})
    port, pid = free_port(), broker_pid(broker)
    try:
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port), HINDSIGHT_LAG_SAMPLE_S="0.5")
        await log.append(
            TOPIC_TURNS, "health", [encode(make_turn(settings, "health", "I live in Oslo.", turn_id="t1"))]
        )
        lag = re.compile(
            r'hindsight_consumer_lag\{partition="\d",reader="hindsight.bank-actor",topic="hindsight.turns"\}'
        )

        def lagging() -> str:
            text = get(port, "/metrics")[1]
            return text if lag.search(text) else ""

        metrics = await until("the bank actor's lag", lagging, workers, 60)
        assert "hindsight_log_end_offset{" in metrics and "hindsight_dead_letters " in metrics
        assert get(port, "/healthz") == (200, "ok\n")

        os.kill(pid, signal.SIGSTOP)  # frozen: connections stay open, nothing answers
        try:
            down = await until("degraded", lambda: (h := get(port, "/healthz"))[0] == 503 and h[1], workers, 20)
            assert down.startswith("degraded\n") and "log: " in down, down
        finally:
            os.kill(pid, signal.SIGCONT)
        await until("ok again", lambda: get(port, "/healthz") == (200, "ok\n"), workers, 30)

        # gone (the module's broker: no other test uses it), perhaps while consumers still join their groups
        os.kill(pid, signal.SIGKILL)
        await until("degraded", lambda: get(port, "/healthz")[0] == 503, workers, 20)
        before = (tmp_path / "worker-w.log").read_text().count("\n")
        await asyncio.sleep(5)
        noise = (tmp_path / "worker-w.log").read_text().splitlines()[before:]
        assert len(noise) < 40, "\n".join(noise[:60])
        assert workers.procs["w"].poll() is None, "\n".join(noise[-60:])  # it waits for the broker, running
    finally:
        workers.kill("w")
        await log.close()
