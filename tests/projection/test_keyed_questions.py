"""A question that asks for a keyed attribute of the speaker or a relative is answered above the relevance floor by
the memory holding the key, though it shares few words with it: "我叫什么名字？" scored 0.12 for "用户的名字：王小明"
by its one shared bigram and its cosine, and the default floor gave no answer at all. The key's evidence is for
relevance only, the order stays the fused one. A question about something else gets nothing from the keys."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_question_for_a_key_finds_its_memory(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = [
            "我叫王小明，今年32岁，在杭州做产品经理。",
            "我对海鲜过敏。",
            "我养了一只猫，叫豆豆。",
            "My sister works as a nurse in Toronto.",
            "谢谢！",
        ]
        await hs.publish(
            [make_turn(settings, "u", text, session_id="s", turn_id=f"t{i}") for i, text in enumerate(turns)]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        for question, answer in [
            ("我叫什么名字？", "用户的名字：王小明"),
            ("What's my name again?", "用户的名字：王小明"),
            ("我多大了？", "用户32岁"),
            ("How old am I?", "用户32岁"),
            ("我是做什么的？", "用户的工作是产品经理"),
            ("我家猫叫啥？", "用户的猫叫豆豆"),
        ]:
            hits = await hs.recall("u", question, limit=5)
            held = [h for h in hits if h.text == answer]
            assert held and held[0].relevance >= settings.min_relevance, (
                question,
                [(h.text, h.relevance) for h in hits],
            )
        assert await hs.recall("u", "What's the name of the restaurant we liked in Rome?", limit=3) == []
