"""How ``streams.supervisor.supervised`` retries a task that failed in a way waiting cures: the wait ends when
a broker that did not answer answers again, a retried task is healthy at its first progress, and a new
outage after that starts the back-off over."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator

import pytest

from hindsight_es.errors import LogFullError, LogUnavailableError
from hindsight_es.health import HEALTH, progressed
from streams import supervisor
from streams.supervisor import supervised

DOWN = LogUnavailableError("cannot reach the Kafka broker at 'k:9092': no answer")
FULL = LogFullError("embedded log log.sqlite3: database or disk is full")


@pytest.fixture(autouse=True)
def clean_health() -> Iterator[None]:
    yield
    for problem in HEALTH.problems():
        HEALTH.recover(problem.component)


class Broker:
    """A probe's broker: it answers once ``up``; counts the probes."""

    def __init__(self, up: bool) -> None:
        self.up, self.probes = up, 0

    async def answers(self) -> None:
        self.probes += 1
        if not self.up:
            raise DOWN


async def test_the_retry_starts_once_the_broker_answers_again(monkeypatch) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 30.0)  # the back-off: far longer than the test
    monkeypatch.setattr(supervisor, "PROBE_EVERY_S", 0.05)
    broker, stop, started = Broker(up=False), asyncio.Event(), asyncio.Event()

    async def task(stop: asyncio.Event) -> None:
        if not HEALTH.degraded("kafka"):
            raise DOWN
        started.set()
        await stop.wait()

    running = asyncio.create_task(supervised("kafka", task, stop, answers=broker.answers))
    try:
        await asyncio.sleep(0.3)
        assert HEALTH.degraded("kafka") and not started.is_set()
        broker.up = True
        back = time.monotonic()
        await asyncio.wait_for(started.wait(), 5)
        assert time.monotonic() - back < 2.0
    finally:
        stop.set()
        await asyncio.wait_for(running, 5)


async def test_a_broker_that_answers_all_along_leaves_the_retries_on_the_back_off(monkeypatch) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.4)
    monkeypatch.setattr(supervisor, "PROBE_EVERY_S", 0.05)
    broker, stop, attempts = Broker(up=True), asyncio.Event(), []

    async def task(stop: asyncio.Event) -> None:  # the broker answers, yet the start fails
        attempts.append(time.monotonic())
        raise DOWN

    running = asyncio.create_task(supervised("kafka", task, stop, answers=broker.answers))
    await asyncio.sleep(2.0)
    stop.set()
    await asyncio.wait_for(running, 5)
    waits = [b - a for a, b in zip(attempts, attempts[1:], strict=False)]
    assert len(attempts) in (2, 3) and all(w >= 0.4 for w in waits), waits  # 0.4 s, then 0.8 s
    assert broker.probes == len(attempts)  # one per wait (one follows each attempt): it answered, so no more


async def test_full_storage_is_not_probed(monkeypatch) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.1)
    monkeypatch.setattr(supervisor, "PROBE_EVERY_S", 0.01)
    broker, stop = Broker(up=False), asyncio.Event()

    async def task(stop: asyncio.Event) -> None:
        raise FULL

    running = asyncio.create_task(supervised("bank-actor", task, stop, answers=broker.answers))
    await asyncio.sleep(0.5)
    stop.set()
    await asyncio.wait_for(running, 5)
    assert broker.probes == 0


async def test_a_retried_task_is_healthy_at_its_first_progress(monkeypatch, caplog) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.1)
    stop, failures = asyncio.Event(), []

    async def task(stop: asyncio.Event) -> None:
        if len(failures) < 2:
            failures.append(1)
            raise FULL

        async def step() -> None:
            progressed()

        while not stop.is_set():  # a long-running loop, its steps in tasks of their own (as the projections')
            await asyncio.create_task(step())
            await asyncio.sleep(0.01)

    with caplog.at_level(logging.INFO, "hindsight.service"):
        running = asyncio.create_task(supervised("bank-actor", task, stop))
        deadline = time.monotonic() + 5
        while len(failures) < 2 or HEALTH.degraded("bank-actor"):
            assert time.monotonic() < deadline, HEALTH.problems()
            await asyncio.sleep(0.01)
        assert not running.done()
        await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait_for(running, 5)
    said = [r.getMessage() for r in caplog.records]
    assert sum("storage full, retrying" in line for line in said) == 1, said
    assert sum("bank-actor: working again after" in line for line in said) == 1, said


async def test_a_new_outage_after_the_task_worked_starts_the_back_off_over(monkeypatch) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.05)
    stop, attempts, reasons = asyncio.Event(), [0], []

    async def task(stop: asyncio.Event) -> None:
        attempts[0] += 1
        reasons.append(next((p.reason for p in HEALTH.problems() if p.component == "projections"), ""))
        if attempts[0] == 5:  # it works, then the disk fills again
            progressed()
        if attempts[0] <= 5:
            raise FULL
        await stop.wait()

    running = asyncio.create_task(supervised("projections", task, stop))
    deadline = time.monotonic() + 10
    while attempts[0] < 6:
        assert time.monotonic() < deadline, reasons
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(running, 5)
    # seen by attempts 2 to 6: the waits after failures 1 to 4 double; the fifth follows a success
    assert [r.rsplit("(retrying in ", 1)[-1] for r in reasons[1:]] == ["0.05s)", "0.1s)", "0.2s)", "0.4s)", "0.05s)"]
