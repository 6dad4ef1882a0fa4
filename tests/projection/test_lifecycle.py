"""The forgetting lifecycle through the real pipeline: archive, recall with and without the archive,
restore with history, replay after archiving, private and shared memories, session expiry, capacity.

Real embedded log, rule extractor, MiniLM embedder, bank actor, LanceDB and Parquet; ticks are sent
with simulated times (their ``occurred_at``), as the janitor would send them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import RetentionPolicy
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.generations import store_path
from hindsight_es.stores.lance import LanceStore
from projections.replay import open_projections, verify
from projections.runner import catch_up
from streams.bank_actor import BankActor
from streams.janitor import Janitor
from streams.metrics import counts
from streams.service import catch_up_all

T0 = datetime(2026, 1, 1, 9, tzinfo=UTC)
A = "alice"


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture
async def env(tmp_path: Path, embedder):
    settings = Settings(data_dir=tmp_path / "live", partitions=2, shared_banks={A: ["team"]})
    log = EmbeddedLog(settings.log_path, settings.partitions)
    await log.start()
    hs = Hindsight(settings, log=log, embedder=embedder)
    yield settings, log, hs
    await hs.close()
    await log.close()


async def settle(hs: Hindsight) -> None:
    """Publish what recall served, then run the actor and the projections over everything."""
    await hs.reader.recorder.flush()
    await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)


async def say(hs: Hindsight, text: str, turn: str, *, at: datetime = T0, bank: str = A, **fields) -> None:
    await hs.record_turn(bank, text, session_id=fields.pop("session_id", "s1"), turn_id=turn, occurred_at=at, **fields)


def hot_ids(settings: Settings, bank: str = A) -> dict[str, str]:
    table = LanceStore(store_path(settings.data_dir, "lance")).scan(
        "memories", MemoryFilter(bank, statuses=None), ["memory_id", "status"]
    )
    return (
        dict(zip(table.column("memory_id").to_pylist(), table.column("status").to_pylist(), strict=True))
        if table.num_rows
        else {}
    )


def cold_ids(settings: Settings, bank: str = A) -> dict[str, str]:
    return {
        r["memory_id"]: r["status"] for r in ArchiveStore(store_path(settings.data_dir, "archive")).cold_memories(bank)
    }


async def texts(hs: Hindsight, query: str, **kw) -> list[str]:
    return [h.text for h in await hs.recall(A, query, limit=20, **kw)]


async def seed(hs: Hindsight) -> None:
    await say(hs, "We talked about the weather at the picnic.", "t1")
    await say(hs, "I'm allergic to peanuts.", "t2")
    await say(hs, "Please always reply in English.", "t3")
    await say(hs, "The picnic was at the lake on Sunday.", "t4")
    await settle(hs)


async def test_archived_memories_leave_recall_and_come_back_with_their_history(env):
    settings, log, hs = env
    await seed(hs)
    assert "The picnic was at the lake on Sunday." in await texts(hs, "where was the picnic?")
    await hs.writer.janitor_tick(A, RetentionPolicy(), occurred_at=T0 + timedelta(days=60))
    await settle(hs)

    cold = cold_ids(settings)
    hot = hot_ids(settings)
    episodes = {m for m, s in cold.items() if s == "archived"}
    assert len(episodes) == 4 and not (episodes & hot.keys())  # the four episodes left the hot table
    assert "The user is allergic to peanuts" in await texts(hs, "peanut allergy")  # the constraint stayed hot
    default = await texts(hs, "where was the picnic?")
    assert "The picnic was at the lake on Sunday." not in default
    with_archive = await hs.recall(A, "where was the picnic?", limit=20, include_archived=True)
    lake = next(h for h in with_archive if h.text == "The picnic was at the lake on Sunday.")
    assert lake.status == "archived" and lake.kind == "episode" and lake.bank_id == A

    # restore it explicitly: back in the hot table and in default recall, with its whole history
    receipt = await hs.restore(A, lake.memory_id, reason="needed again", wait=False)
    await settle(hs)
    assert receipt.event.type == "RestoreRequested" and hot_ids(settings)[lake.memory_id] == "active"
    assert "The picnic was at the lake on Sunday." in await texts(hs, "where was the picnic?")
    history = await hs.history(A, lake.memory_id)
    lifecycle = [e["type"] for e in history["events"] if e["type"] not in ("MemoriesRecalled", "RecallsCounted")]
    assert lifecycle == ["MemoryRetained", "MemoryArchived", "MemoryRestored"]
    assert history["status"] == "active" and history["source_turns"][0]["turn_id"] == "t4"


async def faded(hs: Hindsight) -> None:
    """The seed, sixty days on: the janitor has archived its episodes."""
    await seed(hs)
    await hs.writer.janitor_tick(A, RetentionPolicy(), occurred_at=T0 + timedelta(days=60))
    await settle(hs)


async def test_an_archived_memory_recalled_with_the_archive_comes_back(env):
    settings, log, hs = env
    await faded(hs)
    hits = await hs.recall(A, "was it at the lake?", limit=3, include_archived=True)
    # the archived answer first: its relevance ranks it among the live hits (the peanut allergy, English)
    assert hits[0].text == "The picnic was at the lake on Sunday." and hits[0].status == "archived", hits
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # what it served above the floor (a weak tail stays archived: the next test); which archived memories make the
    # top 3 beside the answer moves with the CPU (MiniLM's int8 products: tests/unit/test_relevance.py)
    served = [h.memory_id for h in hits if h.status == "archived" and h.relevance >= settings.min_relevance]
    assert hits[0].memory_id in served, [(h.text, h.relevance) for h in hits]
    await settle(hs)  # the recorder published its tally (RecallsTallied); the actor restores what it served
    hot = hot_ids(settings)
    assert all(hot.get(m) == "active" for m in served)
    assert all(m not in cold_ids(settings) for m in served)


async def test_only_a_relevant_archived_memory_comes_back_when_served(env):
    """The weak tail of an answer is served (shown), not used: it stays archived."""
    settings, log, hs = env
    await faded(hs)
    hits = await hs.recall(A, "was it at the lake?", limit=10, include_archived=True)
    archived = [h for h in hits if h.status == "archived"]
    strong = [h.memory_id for h in archived if h.relevance >= settings.min_relevance]
    weak = [h.memory_id for h in archived if h.relevance < settings.min_relevance]
    assert strong and weak, [(h.text, h.relevance) for h in archived]
    await settle(hs)
    hot, cold = hot_ids(settings), cold_ids(settings)
    assert all(hot.get(m) == "active" for m in strong)
    assert all(cold.get(m) == "archived" and m not in hot for m in weak)


async def test_replay_after_archiving_reproduces_the_hot_and_cold_sets(env, tmp_path):
    settings, log, hs = env
    await seed(hs)
    await say(hs, "Let's keep this between us for now.", "t5", session_id="s2", scope="session")
    await hs.writer.janitor_tick(A, RetentionPolicy(), occurred_at=T0 + timedelta(days=60))
    await settle(hs)
    lake = next(m for m, s in cold_ids(settings).items() if s == "archived")
    await hs.restore(A, lake, wait=False)
    await hs.writer.end_session(A, "s2")
    await settle(hs)

    rebuilt = {store: tmp_path / "rebuilt" / store for store in ("lance", "archive")}
    for projection in open_projections(rebuilt, settings.max_text_chars):
        await catch_up(log, projection)
    again = Settings(data_dir=tmp_path / "rebuilt")
    assert hot_ids(again) == hot_ids(settings) and hot_ids(settings)
    assert cold_ids(again) == cold_ids(settings) and cold_ids(settings)
    assert (await verify(settings, log)).ok


async def test_private_memories_of_one_agent_never_reach_another(env):
    settings, log, hs = env
    await say(hs, "The deploy key is in vault path ops/deploy.", "p1", owner="planner")
    await say(hs, "My scratch note: refactor the parser.", "c1", owner="coder")
    await say(hs, "The team deploys on Fridays.", "s1")
    await say(hs, "The team uses GitHub for code review.", "team1", bank="team")
    await say(hs, "The planner's own plan lives in the team bank.", "team2", bank="team", owner="planner")
    await settle(hs)
    query = "deploy key, scratch note, when do we deploy, code review, the plan"
    as_coder = await texts(hs, query, agent="coder", include_shared=True)
    as_planner = await texts(hs, query, agent="planner", include_shared=True)
    nobody = await texts(hs, query)
    assert "The deploy key is in vault path ops/deploy." not in as_coder
    assert "The planner's own plan lives in the team bank." not in as_coder
    assert "My scratch note: refactor the parser." in as_coder
    assert "The deploy key is in vault path ops/deploy." in as_planner
    assert "My scratch note: refactor the parser." not in as_planner
    assert "The planner's own plan lives in the team bank." in as_planner
    for seen in (as_coder, as_planner):
        assert {"The team deploys on Fridays.", "The team uses GitHub for code review."} <= set(seen)
    assert "The team deploys on Fridays." in nobody and not any("deploy key" in t or "scratch" in t for t in nobody)
    assert "The team uses GitHub for code review." not in nobody  # shared banks only on request
    # archived private memories stay private too
    await hs.writer.janitor_tick(A, RetentionPolicy(threshold=0.99), occurred_at=T0 + timedelta(days=400))
    await settle(hs)
    archived_as_coder = await texts(hs, query, agent="coder", include_archived=True)
    assert archived_as_coder and not any("deploy key" in t for t in archived_as_coder)


async def test_session_scoped_memories_expire_with_the_session(env):
    settings, log, hs = env
    await say(hs, "For this chat only: call me Captain.", "x1", session_id="s7", scope="session")
    await say(hs, "I live in Lisbon.", "x2", session_id="s7")
    await settle(hs)
    await hs.writer.end_session(A, "s7")
    await settle(hs)
    cold = cold_ids(settings)
    hot = hot_ids(settings)
    assert {s for m, s in cold.items()} == {"archived"} and len(cold) >= 1
    assert "For this chat only: call me Captain." not in await texts(hs, "what should you call me?")
    assert "The user lives in Lisbon" in await texts(hs, "where do I live?")
    assert all(s == "active" for s in hot.values())


async def test_capacity_is_held_by_the_janitor(env):
    settings, log, hs = env
    for i in range(12):
        await say(hs, f"Status update number {i} about the migration.", f"u{i}", at=T0 + timedelta(minutes=i))
    await settle(hs)
    tight = settings.model_copy(update={"bank_capacity": 5, "retention_threshold": 0.0})
    janitor = Janitor(log, tight)
    assert await janitor.check() == 1
    await settle(hs)
    active = [s for s in hot_ids(settings).values() if s == "active"]
    assert len(active) == 5
    assert await janitor.check() == 0  # at capacity now (and a bank is not asked twice in a row anyway)
    stats = await hs.bank_stats(A)
    assert stats["memories"]["archived"] == len(cold_ids(settings)) == stats["cold"] and stats["hot"] == 5

    actor = BankActor(log, None, hs.embedder, settings)  # type: ignore[arg-type]
    await actor.load()  # the metrics read the actor's state: the same counts as the stores
    assert counts(actor.banks[A]) == {
        "hot": 5,
        "archived": stats["cold"],
        "active": 5,
        "forgotten": 0,
        "quarantined": 0,
        "superseded": 0,
        "retracted": 0,
    }


async def test_correcting_or_forgetting_one_memory_of_a_turn_retires_its_episode(env):
    """ "I live in Berlin and work at Siemens." yields a location and an employer. Corrected to Lisbon, or
    forgotten, the location takes the episode along (it still says Berlin), the employer stays in its own
    memory; restored, the location brings the episode back."""
    settings, log, hs = env
    await say(hs, "I live in Berlin and work at Siemens.", "t1")
    await say(hs, "We use MySQL. I am allergic to peanuts.", "t2", session_id="s2")
    await settle(hs)
    memories = {m.text: m for m in await hs.reader.browse(A, statuses=None)}

    async def active() -> set[str]:
        return {m.text for m in await hs.reader.browse(A, statuses=["active"])}

    await hs.correct(A, memories["The user lives in Berlin"].memory_id, "I live in Lisbon now.", wait=False)
    await hs.forget(A, memories["The user is allergic to peanuts"].memory_id, reason="private", wait=False)
    await settle(hs)
    now = await active()
    assert not [t for t in now if "Berlin" in t or "peanuts" in t], now
    assert {"The user works at Siemens", "The team's database: MySQL"} <= now
    assert not [h for h in await texts(hs, "where do I live?") if "Berlin" in h]
    assert not [h for h in await texts(hs, "what am I allergic to?") if "peanuts" in h]

    await hs.restore(A, memories["The user is allergic to peanuts"].memory_id, wait=False)
    await settle(hs)
    assert "We use MySQL. I am allergic to peanuts." in await active()


async def test_a_page_of_hot_and_archived_memories_is_newest_first_with_one_type_per_field(env):
    from hindsight_es.client.browse import Browse

    settings, log, hs = env
    await faded(hs)
    await say(hs, "The new office opens in March.", "t9", at=T0 + timedelta(days=61))
    await settle(hs)
    hot, _ = await hs.browser.memories(A, Browse(statuses=["active"]))
    cold, _ = await hs.browser.memories(A, Browse(statuses=["archived"]))
    both, total = await hs.browser.memories(A, Browse(statuses=["active", "archived"]))
    assert hot and cold and total == len(hot) + len(cold)
    assert {r["status"] for r in both} == {"active", "archived"}
    assert [r["valid_from"] for r in both] == sorted((r["valid_from"] for r in both), reverse=True)
    assert both[0]["text"] == "The new office opens in March."
    for field in ("valid_from", "disputed_by", "source_turn_ids", "importance"):
        assert {type(r[field]) for r in both} == {type(hot[0][field])}, field
    # the archived rows' times compare with a filter's too (all of them were said at T0)
    assert (await hs.browser.memories(A, Browse(statuses=["archived"], since=T0)))[1] == len(cold)
    assert (await hs.browser.memories(A, Browse(statuses=["archived"], since=T0 + timedelta(days=1))))[1] == 0


class _Counting:
    """The embedder, counting the queries it embeds."""

    def __init__(self, inner) -> None:
        self._inner, self.queries = inner, []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def embed_query(self, text):
        self.queries.append(text)
        return self._inner.embed_query(text)


async def test_a_recall_over_shared_banks_and_the_archive_embeds_its_query_once(tmp_path: Path, embedder):
    settings = Settings(data_dir=tmp_path / "live", partitions=2, shared_banks={A: ["team"]})
    log = EmbeddedLog(settings.log_path, settings.partitions)
    await log.start()
    counting = _Counting(embedder)
    hs = Hindsight(settings, log=log, embedder=counting)
    try:
        await say(hs, "The team deploys on Fridays.", "s1")
        await say(hs, "The team uses GitHub for code review.", "team1", bank="team")
        await settle(hs)
        query = "when do we deploy and where is code review?"
        hits = await texts(hs, query, include_shared=True, include_archived=True)
        assert {"The team deploys on Fridays.", "The team uses GitHub for code review."} <= set(hits)
        assert counting.queries.count(query) == 1, counting.queries
    finally:
        await hs.close()
        await log.close()
