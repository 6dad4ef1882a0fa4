"""A hit that stands for its turn's episode (a typed memory that says all the episode says) is ranked by the better
of their scores, so it shows the better of their relevances too: "用户在阿里巴巴工作" ranked first for "who is my
manager?" on its episode's evidence, with its own relevance of 0.02 beside hits of 0.99 below it."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_typed_memory_shows_the_relevance_of_the_episode_it_stands_for(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = ["我在阿里巴巴上班。", "My manager is Tom.", "My email is anna@example.com"]
        await hs.publish(
            [make_turn(settings, "u", t, session_id=f"s{i}", turn_id=f"t{i}") for i, t in enumerate(turns)]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        query = "who is my manager?"
        episodes = {h.source_turn_ids[0]: h for h in await hs.recall("u", query, limit=10, kinds=["episode"])}
        hits = await hs.recall("u", query, limit=10)
        typed = next(h for h in hits if h.source_turn_ids == ["t0"])
        assert typed.kind == "fact" and "t0" in episodes, [(h.kind, h.text) for h in hits]
        assert typed.relevance >= episodes["t0"].relevance, (typed.relevance, episodes["t0"].relevance)
