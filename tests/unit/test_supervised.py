"""How ``streams.supervisor.supervised`` retries a task that failed in a way waiting cures: a retried task is
healthy at its first progress, and a new outage after that starts the back-off over."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator

import pytest

from hindsight_es.errors import LogFullError
from hindsight_es.health import HEALTH, progressed
from streams import supervisor
from streams.supervisor import supervised

FULL = LogFullError("embedded log log.sqlite3: database or disk is full")


@pytest.fixture(autouse=True)
def clean_health() -> Iterator[None]:
    yield
    for problem in HEALTH.problems():
        HEALTH.recover(problem.component)


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
