"""A rebuilt store must rank like the live one: ``replay verify`` compares the rankings of probe
queries derived from each bank's memories, and names a bank whose live store ranks differently (here: a
full-text index that does not cover the newest rows, as between two maintenance passes of ``up``)."""

from __future__ import annotations

import random

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.recall import fulltext
from hindsight_es.recall.search import recall
from hindsight_es.stores import location
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.lance_indexes import unindexed_rows
from projections.rankings import probes
from projections.replay import open_projections, verify
from projections.runner import catch_up
from streams.bank_actor import GROUP, BankActor
from streams.service import catch_up_all

BANK = "rank-bank"
TOOLS = ["PostgreSQL", "Redis", "Kafka", "DuckDB", "Grafana", "Sentry", "Terraform", "Airflow"]
AREAS = ["billing", "search", "orders", "payroll", "analytics", "shipping", "login", "invoices"]


def turns(n: int, seed: int, areas: list[str]) -> list[str]:
    rng = random.Random(seed)
    return [f"We use {rng.choice(TOOLS)} for the {rng.choice(areas)} service." for _ in range(n)]


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


async def decide_and_project(settings: Settings, log: EmbeddedLog, embedder, *, maintain: bool) -> None:
    """The actor and every projection over what is new, with or without the index maintenance of ``up``."""
    actor = BankActor(log, RuleExtractor(), embedder, settings)
    await actor.load()
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    try:
        while records := await consumer.poll(500, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
    finally:
        await consumer.close()
    for projection in open_projections(location.current(settings), settings.max_text_chars):
        await catch_up(log, projection)
        if maintain:
            await projection.maintain()


def test_probes_depend_on_the_memories_not_on_their_order():
    texts = [(f"id{i:02d}", f"memory number {i} says something long enough to cut") for i in range(20)]
    assert (
        probes(texts)
        == probes(list(reversed(texts)))
        == [
            "memory number 0 says something",
            "memory number 5 says something",
            "memory number 10 says something",
            "memory number 15 says something",
        ]
    )
    assert probes([("a", "我们用缓存做订单服务的加速和限流")], 4) == ["我们用缓存做订单服务"]


async def stale_store(settings: Settings, embedder) -> tuple[EmbeddedLog, LanceStore]:
    """A bank recorded, projected and indexed, then 120 turns more projected without the index maintenance
    of ``up``: the full-text index does not cover the newest rows (the log is the caller's to close)."""
    log = EmbeddedLog(settings.log_path, settings.partitions)
    await log.start()
    async with Hindsight(settings, log=log, embedder=embedder) as hs:
        for i, text in enumerate(turns(60, 1, AREAS)):
            await hs.record_turn(BANK, text, session_id="s", turn_id=f"a{i}")
        await catch_up_all(settings, log, embedder=embedder)
        fresh = await verify(settings, log, embedder=embedder)
        assert fresh.ok, fresh.difference
        assert len(fresh.rankings) >= 3 and all(c.ok and len(c.live) > 0 for c in fresh.rankings)
        # newer turns about two areas only: their words' statistics move, and the index has not seen them
        for i, text in enumerate(turns(120, 2, AREAS[:2])):
            await hs.record_turn(BANK, text, session_id="s", turn_id=f"b{i}")
    await decide_and_project(settings, log, embedder, maintain=False)
    store = LanceStore(location.current(settings)["lance"])
    assert unindexed_rows(store) > 0
    return log, store


QUERIES = ["PostgreSQL for billing", "Redis search service", "which tool runs payroll", "Kafka orders"]


async def test_a_stale_full_text_index_ranks_like_a_rebuild(tmp_path, embedder):
    """The full-text lists are scored over the bank's own statistics (``recall.lexical``), not the
    index's: rows the index has not covered yet change no ranking, and verify agrees."""
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm", record_recalls=False)
    log, store = await stale_store(settings, embedder)
    try:
        before = [[h.memory_id for h in recall(store, embedder, BANK, q, limit=10)] for q in QUERIES]
        stale = await verify(settings, log, embedder=embedder)
        assert stale.ok, stale.difference
        assert stale.rankings and all(c.ok and c.unindexed > 0 and len(c.live) > 0 for c in stale.rankings)

        store.ensure_indexes(("memories",))  # what the next maintenance pass does
        assert unindexed_rows(store) == 0
        after = [[h.memory_id for h in recall(LanceStore(store.path), embedder, BANK, q, limit=10)] for q in QUERIES]
        assert before == after and all(len(r) == 10 for r in before)
    finally:
        await log.close()


async def test_verify_names_a_stale_index_where_lancedb_scores_the_match(tmp_path, embedder, monkeypatch):
    """A match larger than ``EXACT_MATCHES`` keeps LanceDB's scores, which its index's statistics decide:
    there a stale index ranks differently, and verify names the bank, the probe and the index."""
    monkeypatch.setattr(fulltext, "EXACT_MATCHES", 5)  # searches still ask for MATCHES hits
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm", record_recalls=False)
    log, store = await stale_store(settings, embedder)
    try:
        stale = await verify(settings, log, embedder=embedder)
        assert [c.table for c in stale.checks if not c.ok] == []  # the rows are exact
        assert not stale.ok and stale.difference is not None
        assert stale.difference.startswith(f"rankings, bank {BANK!r}: the probe ")
        assert "the live full-text index does not cover" in stale.difference

        store.ensure_indexes(("memories",))
        again = await verify(settings, log, embedder=embedder)
        assert again.ok, again.difference
        assert [c.query for c in again.rankings] == [c.query for c in stale.rankings]
    finally:
        await log.close()
