"""A LanceDB store written by an older release (no ``owner`` column) still answers agent-scoped recall."""

from __future__ import annotations

import lancedb

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.stores.generations import store_path
from streams.service import catch_up_all


async def test_store_from_before_the_owner_column_serves_agent_recall(tmp_path):
    embedder = make_embedder("minilm")
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.publish(
            [make_turn(settings, "acme", "We deploy on Fridays after the review.", session_id="s", turn_id="t1")]
        )
        await catch_up_all(settings, hs.log, embedder=embedder)
    lancedb.connect(str(store_path(settings.data_dir, "lance"))).open_table("memories").drop_columns(
        ["owner"]
    )  # the older release

    async with Hindsight(settings, embedder=embedder) as hs:  # a reader only: no projection runs
        hits = await hs.recall("acme", "when do we deploy?", agent="planner")
        assert hits and hits[0].source_turn_ids == ["t1"] and hits[0].owner is None
