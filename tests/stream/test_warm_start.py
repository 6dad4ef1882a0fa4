"""A worker loads what the rule extractor reads Chinese with as it starts, not on its first Chinese turn naming
someone (a fresh deciding process's first such turn took 3.1-3.6 s from publish to recallable, 1.0-1.3 s with
the tagger loaded at start: docs/benchmarks.md). An embedded ``up`` loads it as it warms its reads."""

from __future__ import annotations

import asyncio
import time

import pytest

from hindsight_es.extraction import names_zh
from hindsight_es.log.kafka import KafkaLog
from streams.service import serve
from tests.conftest import worker_settings


async def test_a_worker_loads_jiebas_tagger_before_any_turn(broker, tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(names_zh, "_TAGGER", None)  # as in a fresh process (another test may have loaded it)
    settings = worker_settings(broker, tmp_path, partitions=2)
    log = KafkaLog(settings)
    await log.start()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(settings, log, stop))
    try:
        deadline = time.monotonic() + 60
        while names_zh._TAGGER is None and time.monotonic() < deadline and not task.done():
            await asyncio.sleep(0.05)
        assert names_zh._TAGGER is not None  # nothing was published: only the start loaded it
    finally:
        stop.set()
        await asyncio.wait_for(task, 60)
        await log.close()
