"""A work asked about by its title in 《》 that none of the memories found mentions is something else's, as a
name nobody mentioned is someone else's (``recall.search._about_the_unmentioned``)."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_title_no_memory_mentions_gets_nothing(tmp_path):
    """A work asked about by its title in 《》 that no memory found mentions is something else's: "《出租车司机》讲的
    是什么？" in a bank that talked about 《活着》 answered with it at 0.23, above the floor."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = ["我最近在看一本叫做《活着》的书，非常感人。", "我喜欢看电影，尤其是文艺片。"]
        await hs.publish(
            [make_turn(settings, "u", text, session_id="s", turn_id=f"t{i}") for i, text in enumerate(turns)]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert await hs.recall("u", "我跟你说过的文艺片《出租车司机》讲的是什么？", limit=3) == []
        hits = await hs.recall("u", "我说过的《活着》是一本什么样的书？", limit=3)
        assert hits and "活着" in hits[0].text
