"""A service whose log fills up (a real SQLITE_FULL, from ``HINDSIGHT_LOG_MAX_BYTES``) stays up: the
writer gets the storage error, reads keep serving, the actor retries with back-off, ``/healthz`` says why."""

from __future__ import annotations

import asyncio
import contextlib
import random
import string
import time

import httpx

from hindsight_es.app.gateway.app import build_app
from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.errors import LogFullError, NotFoundError
from hindsight_es.health import HEALTH
from streams import supervisor
from streams.service import serve


async def _recalled(hs: Hindsight, bank: str, query: str, text: str, timeout_s: float = 30.0) -> bool:
    """Whether a memory of the turn that said ``text`` is recalled (its episode, or the statement drawn from it)."""
    said = text.rstrip(".").split()[-1]  # the value the statement keeps ("Berlin")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(NotFoundError):
            if any(h.text == text or said in h.text for h in await hs.recall(bank, query, limit=5)):
                return True
        await asyncio.sleep(0.1)
    return False


async def _until(check, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        await asyncio.sleep(0.05)
    return False


# Small polls: an attempt of the actor after the log is full decides one small batch again before its
# append fails, not the whole backlog (seconds, not minutes, on a loaded machine).
SETTINGS = {
    "embedder": "minilm",
    "partitions": 1,
    "janitor_enabled": False,
    "log_max_bytes": 400_000,
    "poll_max_records": 10,
}


async def _filled(settings: Settings, hs: Hindsight) -> str:
    """Serve until a first turn is recalled; then, with the service down, publish turns until the log
    refuses one. Returns the first turn's text."""
    first = "I live in Berlin."
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, hs.log, stop, embedder=hs.embedder))
    try:
        await hs.publish([make_turn(settings, "ann", first, session_id="s1", turn_id="t1")])
        assert await _recalled(hs, "ann", "where do I live?", first)
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)

    # The log fills while the service is down, so accepted turns are left for the actor: with it running,
    # it could append the memories of every accepted turn before the refused one and never meet the
    # full log (the race that made this test flaky).
    refused = None
    padding = random.Random(7)
    for i in range(2000):  # turns the actor makes memories of, until the log refuses one
        # Letters drawn at random: the log compresses what it stores, and a run of one letter would
        # fill it only after hundreds more turns, whose memories would crowd Berlin under the floor.
        noise = "".join(padding.choices(string.ascii_letters, k=4000))
        text = f"My colleague number {i} is called Person{i} and works in Lisbon. " + noise
        try:
            await hs.publish([make_turn(settings, "ann", text, session_id="s2", turn_id=f"f{i}")])
        except LogFullError as exc:
            refused = exc
            break
    assert refused is not None and "database or disk is full" in str(refused)
    return first


def _actor_failures() -> int:
    return max((p.failures for p in HEALTH.problems() if p.component == "bank-actor"), default=0)


async def _healthz(hs: Hindsight, settings: Settings) -> httpx.Response:
    app = build_app(hs, settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as http:
        return await http.get("/healthz")


async def test_a_full_log_degrades_the_service_and_it_stays_up(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.2)
    settings = Settings(data_dir=tmp_path, **SETTINGS)
    async with Hindsight(settings) as hs:
        first = await _filled(settings, hs)
        stop = asyncio.Event()
        task = asyncio.create_task(serve(settings, hs.log, stop, embedder=hs.embedder))
        try:
            assert await _until(lambda: _actor_failures() >= 2, 180)  # retried after its back-off
            assert not task.done(), task
            actor = next(p for p in HEALTH.problems() if p.component == "bank-actor")
            assert "database or disk is full" in actor.reason
            assert await _recalled(hs, "ann", "where do I live?", first, timeout_s=5)  # reads keep serving

            health = await _healthz(hs, settings)
            assert health.status_code == 503
            assert health.text.startswith("degraded\n") and "bank-actor: " in health.text
            assert "database or disk is full" in health.text
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)  # stops cleanly, not with the storage error
            for problem in HEALTH.problems():
                HEALTH.recover(problem.component)


async def test_healthz_is_ok_once_the_retried_actor_works_again(tmp_path, monkeypatch, caplog) -> None:
    """The disk grown while the service runs: the actor's next retry decides the backlog and runs on, and
    ``/healthz`` is ``ok`` from then on, not only when the actor stops."""
    monkeypatch.setattr(supervisor, "RETRY_FIRST_S", 0.2)
    settings = Settings(data_dir=tmp_path, **SETTINGS)
    async with Hindsight(settings) as hs:
        await _filled(settings, hs)
        stop = asyncio.Event()
        task = asyncio.create_task(serve(settings, hs.log, stop, embedder=hs.embedder))
        try:
            assert await _until(lambda: _actor_failures() >= 1, 180)
            # The volume grown: the limit raised on the connection the service writes through.
            embedded = getattr(hs.log, "inner", hs.log)
            with embedded._lock:
                embedded._conn.execute("PRAGMA max_page_count=1000000")
            assert await _until(lambda: HEALTH.ok, 180), HEALTH.problems()
            assert not task.done(), task  # the actor runs on: its line went at its first batch, not at its end
            health = await _healthz(hs, settings)
            assert (health.status_code, health.text) == (200, "ok\n")

            moved = "I moved to Paris."  # decided by the same actor, still running
            await hs.publish([make_turn(settings, "ann", moved, session_id="s3", turn_id="t3")])
            assert await _recalled(hs, "ann", "where do I live?", moved, timeout_s=300)  # after the backlog
            assert HEALTH.ok, HEALTH.problems()
            said = [r.getMessage() for r in caplog.records if r.name == "hindsight.service"]
            assert sum("bank-actor: working again after" in line for line in said) == 1, said
        finally:
            stop.set()
            await asyncio.wait_for(task, 30)
            for problem in HEALTH.problems():
                HEALTH.recover(problem.component)
