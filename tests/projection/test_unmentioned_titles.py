"""A work asked about by its title in 《》 that none of the memories found mentions is something else's, as a
name nobody mentioned is someone else's (``recall.search._about_the_unmentioned``)."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.text import has_cjk
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


async def test_a_name_written_by_its_initials_or_misread_in_chinese_still_answers(tmp_path):
    """A place the memories write by its initials is mentioned ("SF" for San Francisco), and characters jieba
    joins into a "name" (麻醉费和检查费: 费和) are not a person the bank never mentions: both answered, where the
    bank abstained before. A name nobody mentions still gets nothing."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = [
            "Leaving SF at 5am Friday to beat traffic.",
            "The rental car is a grey Corolla.",
            "做无痛的要多交一笔麻醉费，一共大概1100",
            "麻醉费单独是480，剩下的是检查费",
        ]
        await hs.publish(  # a bank each: a Chinese memory that names nobody may be about any Latin name
            [
                make_turn(settings, "zh" if has_cjk(text) else "en", text, session_id="s", turn_id=f"t{i}")
                for i, text in enumerate(turns)
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("en", "What time are we leaving San Francisco?", limit=3)
        assert hits and hits[0].text == turns[0]
        assert await hs.recall("en", "What time are we leaving New Orleans?", limit=3) == []
        hits = await hs.recall("zh", "麻醉费和检查费哪个更贵？", limit=3)
        assert {h.text for h in hits[:2]} == {turns[2], turns[3]}
