"""A running service follows a rebuild switched under it: its projections move to the new stores."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pyarrow.compute as pc

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.errors import NotFoundError
from hindsight_es.stores import generations
from hindsight_es.stores.lance import LanceStore
from projections.replay import rebuild, switch
from streams.service import serve


async def _recalled(hs: Hindsight, bank: str, query: str, turn_id: str, timeout_s: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(NotFoundError):  # until the bank's first turn is recorded
            if any(turn_id in h.source_turn_ids for h in await hs.recall(bank, query, limit=5)):
                return True
        await asyncio.sleep(0.1)
    return False


def _texts(lance_dir, bank: str) -> set[str]:
    table = LanceStore(lance_dir).table("memories")
    if table is None:
        return set()
    episodes = table.to_arrow().filter(pc.equal(pc.field("bank_id"), bank))  # each turn's own words
    return set(episodes.filter(pc.equal(pc.field("kind"), "episode"))["text"].to_pylist())


async def test_a_running_service_projects_into_the_generation_a_rebuild_switched_to(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="hindsight.service")
    settings = Settings(data_dir=tmp_path, embedder="minilm", partitions=1, janitor_enabled=False)
    async with Hindsight(settings) as hs:
        stop = asyncio.Event()
        service = asyncio.create_task(serve(settings, hs.log, stop, embedder=hs.embedder))
        try:
            first = "I live in Berlin."
            await hs.publish([make_turn(settings, "ann", first, session_id="s1", turn_id="t1")])
            assert await _recalled(hs, "ann", "where do I live?", "t1")
            old = generations.current(tmp_path)["lance"]

            built = await rebuild(settings, hs.log)
            await switch(settings, hs.log, built.stores)  # as `replay rebuild --force` does beside `up`
            assert generations.current(tmp_path)["lance"] == built.stores["lance"] != old
            deadline = time.monotonic() + 10  # the service notices within a second (and says so)
            while "projecting there now" not in caplog.text and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert str(built.stores["lance"]) in caplog.text

            second = "We use PostgreSQL for the billing database."
            await hs.publish([make_turn(settings, "ann", second, session_id="s1", turn_id="t2")])
            # Recall reads the new generation: the service must be writing there, not into the old one.
            assert await _recalled(hs, "ann", "which database do we use?", "t2")
            assert {first, second} <= _texts(built.stores["lance"], "ann")
            assert second not in _texts(old, "ann")
        finally:
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(service, 30)
