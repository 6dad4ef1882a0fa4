"""Filler through the real pipeline: kept in the log and in working memory, never in long-term memory."""

from __future__ import annotations

import time

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_filler_stays_in_working_memory_and_out_of_recall(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    turns = ["We moved to Shanghai last month.", "好的，谢谢", "thanks — and book the 9:00 train", "Thanks!"]
    async with Hindsight(settings) as hs:
        await hs.publish([make_turn(settings, "ann", t, session_id="s", turn_id=f"t{i}") for i, t in enumerate(turns)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)

        cited = {t for h in await hs.recall("ann", "where do we live now? 好的", limit=10) for t in h.source_turn_ids}
        assert "t0" in cited and "t2" in cited  # content, also after a pleasantry
        assert not cited & {"t1", "t3"}
        block = await hs.context("ann", "s", "where do we live now?")
        assert "好的，谢谢" in block.text and "t1" in block.turn_ids  # the session's recent turns show it

        started = time.monotonic()
        receipt = await hs.retain("ann", "收到", session_id="s", wait=True, timeout_s=120)
        assert receipt.ready and receipt.retained == [] and time.monotonic() - started < 60  # not the time-out
