"""``up`` tells the operator how a backlog goes down: a line when a reader is far behind, then when it is read."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hindsight_es import observe
from hindsight_es.app.observability import lag
from hindsight_es.config import TOPIC_TURNS
from hindsight_es.log.embedded import EmbeddedLog


async def test_a_backlog_is_announced_counted_down_and_its_end_said(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(observe, "CONSUMED", {})
    monkeypatch.setattr(lag, "PROGRESS_EVERY_S", 0.0)
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        await log.append(TOPIC_TURNS, "ann", [b"{}"] * 1300)
        said: list[str] = []
        stop = asyncio.Event()
        task = asyncio.create_task(lag.catching_up(log, stop, said.append, every_s=0.01))
        await asyncio.sleep(0.1)
        assert said == []  # no reader has read yet: the backlog is not known, nothing is said
        observe.CONSUMED[("actor", TOPIC_TURNS, 0)] = 10
        await asyncio.sleep(0.1)
        observe.CONSUMED[("actor", TOPIC_TURNS, 0)] = 1300
        await asyncio.sleep(0.1)
        stop.set()
        await task
        assert said[0] == "catching up: 1,290 records behind the log (recall answers from what is read so far)"
        assert said[-1].startswith("caught up in ") and len(said) >= 2
        assert all(line.startswith("catching up: 1,290 records to go") for line in said[1:-1])
    finally:
        await log.close()


async def test_a_reader_a_batch_behind_is_not_catching_up(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(observe, "CONSUMED", {("actor", TOPIC_TURNS, 0): 0})
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        await log.append(TOPIC_TURNS, "ann", [b"{}"] * (lag.CATCHING_UP_FROM - 1))
        said: list[str] = []
        stop = asyncio.Event()
        task = asyncio.create_task(lag.catching_up(log, stop, said.append, every_s=0.01))
        await asyncio.sleep(0.1)
        stop.set()
        await task
        assert said == []
    finally:
        await log.close()
