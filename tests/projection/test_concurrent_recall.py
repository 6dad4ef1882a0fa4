"""Recalls served side by side return what the same recalls return one at a time."""

from __future__ import annotations

import asyncio

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all

MEMORIES = [
    "From now on use FedEx for all international orders.",
    "I'm allergic to peanuts, so never suggest snacks with peanuts.",
    "We moved the billing service to PostgreSQL last spring.",
    "My favourite painting is the one of the lake at dawn.",
    "我们决定下个月在上海开第二家店。",
    "国内快递我以后都用顺丰。",
    "我最喜欢的茶是龙井。",
    "下周我去杭州出差三天。",
]
QUERIES = [
    "which carrier do we ship with?",
    "what am I allergic to?",
    "which database does billing use?",
    "favorite painting",
    "where is the new shop opening?",
    "国内快递用哪家？",
    "我喜欢什么茶？",
    "下周去哪里出差？",
]


async def test_concurrent_recalls_return_the_hits_of_sequential_ones(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1, record_recalls=False)  # recalls change no counts
    async with Hindsight(settings) as hs:
        await hs.publish(
            [
                make_turn(settings, "b", text, session_id=f"m{i}", turn_id=f"m{i}", source="user")
                for i, text in enumerate(MEMORIES)
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)

        def ranked(hits):
            return [(h.memory_id, round(h.score, 9), round(h.relevance, 9)) for h in hits]

        alone = [ranked(await hs.recall("b", q, limit=5)) for q in QUERIES]
        assert all(alone)  # every query finds something, so the comparison is not of empty lists
        together = await asyncio.gather(*(hs.recall("b", q, limit=5) for q in QUERIES * 3))
        assert [ranked(hits) for hits in together] == alone * 3
