"""Rebuild == live, apply twice == apply once, and what recall may return, over the real pipeline.

Real embedded log (SQLite), real rule extractor, real MiniLM embedder, real LanceDB and Parquet.
One bank history of a few hundred turns in two banks is built once per module through the bank
actor, with the live projections tailing it in small batches between publishes (and maintenance in
between); the rebuild is one ``catch_up`` from offset 0 into fresh stores in another directory.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import ALL_TOPICS, TOPIC_COMMANDS, TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.events import (
    CorrectionRequested,
    ForgetRequested,
    RestoreRequested,
    RetractionRequested,
    TurnRecorded,
    encode,
)
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import EventLog, Record
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.recall import RecallHit, recall
from hindsight_es.stores.archive import UNDECODABLE, ArchiveStore
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.generations import store_path
from hindsight_es.stores.lance import LanceStore
from projections.archive import ArchiveProjection
from projections.runner import Projection, catch_up, decode_batch
from projections.vectors import VectorsProjection
from projections.working_memory import WorkingMemoryProjection
from streams.bank_actor import GROUP, BankActor
from streams.service import catch_up_all

A, B = "alice", "bob"
MAIN, TOOL = "s-main", "s-tool"

# Each special turn: name -> (bank, session, text). Names are also turn ids.
SPECIAL: dict[str, tuple[str, str, str]] = {
    "a-mysql": (A, MAIN, "We use MySQL for the order database."),
    "a-berlin": (A, MAIN, "I live in Berlin."),
    "a-python": (A, MAIN, "We use Python for the backend."),
    "a-green": (A, MAIN, "My favorite color is green."),
    "a-hiking": (A, MAIN, "I like hiking in the mountains."),
    "a-tea": (A, MAIN, "I drink tea every afternoon."),
    "b-berlin": (B, MAIN, "I live in Berlin."),
    "b-mysql": (B, MAIN, "We use MySQL for the order database."),
    "a-postgres": (A, MAIN, "不对，我们用的是 PostgreSQL，不是 MySQL。"),
    "a-paris": (A, MAIN, "We moved to Paris."),
    "a-blue": (A, MAIN, "My favorite color is blue."),
    "a-coffee": (A, TOOL, "I drink coffee every morning."),
    "a-shellfish": (A, TOOL, "I am allergic to shellfish."),
}
FIRST = ["a-mysql", "a-berlin", "a-python", "a-green", "a-hiking", "a-tea", "b-berlin", "b-mysql"]
SECOND = ["a-postgres", "a-paris", "a-blue", "a-coffee", "a-shellfish"]
CORRECTED_TEXT = "We use Rust for the backend."
FILLER_PER_BANK = 170
BATCHES = 6

_TOPICS = [
    "the quarterly report",
    "the onboarding guide",
    "the api migration",
    "the design review",
    "the budget sheet",
    "the release notes",
    "the customer survey",
    "the load test",
    "the security audit",
    "the team offsite",
]
_STATES = [
    "is almost finished",
    "needs another pass",
    "was reviewed today",
    "got delayed by a day",
    "is blocked on feedback",
]
_DAYS = ["on Monday", "on Tuesday", "on Wednesday", "on Thursday"]


def filler(bank: str) -> list[tuple[str, str]]:
    """(turn_id, text) of ordinary status updates, distinct per bank."""
    who = "Alice" if bank == A else "Bob"
    combos = itertools.islice(itertools.product(_TOPICS, _STATES, _DAYS), FILLER_PER_BANK)
    return [
        (f"{bank}-f{i}", f"{who}'s status update {i}: {topic} {state} {day}.")
        for i, (topic, state, day) in enumerate(combos)
    ]


def chunks(items: list[Any], n: int) -> list[list[Any]]:
    size = -(-len(items) // n)
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class History:
    live: Settings
    rebuilt: Settings
    ids: dict[str, str]  # "<turn name>/<kind>" -> memory_id, plus "a-rust/fact" for the correction
    turns_published: int


# ------------------------------------------------------------------ driving the pipeline


def live_projections(settings: Settings) -> list[Projection]:
    lance = LanceStore(store_path(settings.data_dir, "lance"))
    archive = ArchiveStore(store_path(settings.data_dir, "archive"))
    return [VectorsProjection(lance), WorkingMemoryProjection(lance), ArchiveProjection(archive)]


async def drive(
    log: EventLog, settings: Settings, embedder: Embedder, projections: list[Projection], *, maintain: bool
) -> None:
    """What ``up`` does, stepwise: a (re)started actor drains its inputs in small polls, then the
    live projections tail the log in small batches."""
    actor = BankActor(log, RuleExtractor(), embedder, settings)
    await actor.load()
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    try:
        while records := await consumer.poll(37, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
    finally:
        await consumer.close()
    for projection in projections:
        await catch_up(log, projection, batch_size=23)
        if maintain:
            await projection.maintain()


def turn(settings: Settings, name: str) -> TurnRecorded:
    bank, session, text = SPECIAL[name]
    return make_turn(settings, bank, text, session_id=session, turn_id=name, speaker=bank.title())


def memory_ids(store: LanceStore, bank: str, text: str) -> dict[str, str]:
    """kind -> memory_id of the rows of ``bank`` whose text is ``text``, or that quote it or a part of it
    (typed memories: "不对，我们用的是 PostgreSQL…" quoted from its clause "我们用的是 PostgreSQL…")."""
    columns = ["memory_id", "kind", "text", "quote"]
    rows = [
        r
        for r in store.scan("memories", MemoryFilter(bank, statuses=None), columns).to_pylist()
        if text in (r["text"], r["quote"]) or (r["quote"] and r["quote"] in text)
    ]
    out = {r["kind"]: r["memory_id"] for r in rows}
    assert len(out) == len(rows), rows  # one memory per kind and text
    return out


async def build(live: Settings, rebuilt: Settings, embedder: Embedder) -> History:
    log = EmbeddedLog(live.log_path, live.partitions)
    await log.start()
    projections = live_projections(live)
    store = projections[0].store  # type: ignore[attr-defined]
    fill = {bank: chunks(filler(bank), BATCHES) for bank in (A, B)}
    published = 0
    try:
        async with Hindsight(live, log=log, embedder=embedder) as hs:

            async def publish_batch(i: int, extra: list[TurnRecorded]) -> None:
                nonlocal published
                turns = [
                    make_turn(live, bank, text, session_id=MAIN, turn_id=tid)
                    for bank in (A, B)
                    for tid, text in fill[bank][i]
                ]
                turns += extra
                await hs.publish(turns)
                published += len(turns)

            await publish_batch(0, [turn(live, n) for n in FIRST])
            await drive(log, live, embedder, projections, maintain=False)

            # Supersessions, a redelivered turn (same turn id) and a record that is not an event.
            await publish_batch(1, [turn(live, n) for n in SECOND] + [turn(live, "a-berlin")])
            await log.append(TOPIC_TURNS, A, [b"\xff\xfe not an event"])
            await drive(log, live, embedder, projections, maintain=True)

            ids = {
                f"{name}/{kind}": mid
                for name, (bank, _, text) in SPECIAL.items()
                for kind, mid in memory_ids(store, bank, text).items()
            }
            await publish_batch(2, [])
            await hs.send(
                ForgetRequested(
                    bank_id=A, memory_ids=(ids["a-hiking/preference"], ids["a-hiking/episode"]), reason="user asked"
                )
            )
            await hs.send(CorrectionRequested(bank_id=A, memory_id=ids["a-python/fact"], text=CORRECTED_TEXT))
            await hs.send(RetractionRequested(bank_id=A, session_id=TOOL, reason="tool output was wrong"))
            await drive(log, live, embedder, projections, maintain=False)

            await publish_batch(3, [])
            await hs.send(RestoreRequested(bank_id=A, memory_ids=(ids["a-green/preference"],)))
            # A turn of bank B keyed as bank A: the actor republishes it under B's key, never decides it on A's.
            stray = make_turn(live, B, "好的", session_id=MAIN, turn_id="stray")
            await log.append(TOPIC_TURNS, A, [encode(stray)])
            await drive(log, live, embedder, projections, maintain=True)

            await publish_batch(4, [])
            await drive(log, live, embedder, projections, maintain=False)

            # The last batch through the one-shot path (new actor and new store objects on the same dirs).
            await publish_batch(5, [])
            await catch_up_all(live, log, embedder=embedder)
            for projection in projections:
                await projection.maintain()
            ids["a-rust/fact"] = memory_ids(store, A, CORRECTED_TEXT)["fact"]

        # Rebuild: fresh stores in another directory, everything from offset 0 in one go.
        for projection in live_projections(rebuilt):
            assert await projection.positions() == {}
            await catch_up(log, projection)
            await projection.maintain()
    finally:
        await log.close()
    return History(live, rebuilt, ids, published)


# ------------------------------------------------------------------ fixtures and helpers


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    model = make_embedder("minilm")
    model.load()
    return model


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> History:
    root = tmp_path_factory.mktemp("rebuild")
    live, rebuilt = Settings(data_dir=root / "live"), Settings(data_dir=root / "rebuilt")
    return asyncio.run(build(live, rebuilt, embedder))


def rows(store: LanceStore, table: str, key: str) -> list[dict[str, Any]]:
    t = store.table(table)
    assert t is not None, f"no {table} table in {store.path}"
    return sorted(t.to_arrow().to_pylist(), key=lambda r: r[key])


def memory_rows(settings: Settings) -> dict[str, dict[str, Any]]:
    data, _ = LanceStore(store_path(settings.data_dir, "lance")).snapshot("memories")
    return {r["memory_id"]: r for r in data.to_pylist()}


async def log_records(settings: Settings, topic: str) -> list[Record]:
    """Every record of ``topic`` in the live log, partition by partition."""
    log = EmbeddedLog(settings.log_path)
    await log.start()
    try:
        out: list[Record] = []
        for partition, end in sorted((await log.end_offsets(topic)).items()):
            out += await log.read(topic, partition, 0, end, 100_000)
        return out
    finally:
        await log.close()


def lance_snapshot(store: LanceStore) -> dict[str, list[dict[str, Any]]]:
    out = {}
    for table, key in (("memories", "memory_id"), ("turns", "turn_key")):
        if store.table(table) is not None:
            out[table] = rows(store, table, key)
    return out


def recall_hits(settings: Settings, embedder: Embedder, bank: str, query: str, **kw: Any) -> list[RecallHit]:
    return recall(LanceStore(store_path(settings.data_dir, "lance")), embedder, bank, query, limit=10, **kw)


def hits(settings: Settings, embedder: Embedder, bank: str, query: str, **kw: Any) -> list[str]:
    return [h.memory_id for h in recall_hits(settings, embedder, bank, query, **kw)]


# ------------------------------------------------------------------ rebuild == live


def test_the_history_is_substantial(history: History) -> None:
    """Guards the other tests against passing on an empty or trivial history."""
    memories = memory_rows(history.live)
    statuses = [r["status"] for r in memories.values()]
    assert history.turns_published > 350
    assert {r["bank_id"] for r in memories.values()} == {A, B}
    assert len(LanceStore(store_path(history.live.data_dir, "lance")).positions("memories")) == 2  # a bank each
    assert {"active", "superseded", "forgotten", "retracted"} <= set(statuses)
    assert statuses.count("active") > 350


def test_rebuild_equals_live_memories_table(history: History) -> None:
    live, rebuilt = (
        rows(LanceStore(store_path(s.data_dir, "lance")), "memories", "memory_id")
        for s in (history.live, history.rebuilt)
    )
    assert len(live) == len(rebuilt)
    assert [r["memory_id"] for r in live] == [r["memory_id"] for r in rebuilt]
    for a, b in zip(live, rebuilt, strict=True):
        assert a == b, a["memory_id"]


async def test_positions_are_the_log_ends(history: History) -> None:
    """Both stores hold one position row per partition with memory events: the log's end."""
    ends = {(r.topic, r.partition): r.offset + 1 for r in await log_records(history.live, TOPIC_MEMORIES)}
    assert len(ends) == 2  # one partition per bank
    for settings in (history.live, history.rebuilt):
        assert LanceStore(store_path(settings.data_dir, "lance")).positions("memories") == ends


def test_rebuild_equals_live_turns_table(history: History) -> None:
    live, rebuilt = (
        rows(LanceStore(store_path(s.data_dir, "lance")), "turns", "turn_key") for s in (history.live, history.rebuilt)
    )
    assert live == rebuilt
    # The redelivered a-berlin turn is one row; the undecodable record is no turn. (The stray turn the
    # actor refused is left out: whether working memory should show it is an open question.)
    data, _ = LanceStore(store_path(history.live.data_dir, "lance")).snapshot("turns")
    turns = [r for r in data.to_pylist() if r["turn_id"] != "stray"]
    assert sum(r["turn_id"] == "a-berlin" for r in turns) == 1
    assert len(turns) == history.turns_published - 1
    assert {r["bank_id"] for r in turns} == {A, B}


def test_rebuild_equals_live_archive(history: History) -> None:
    live, rebuilt = (ArchiveStore(store_path(s.data_dir, "archive")) for s in (history.live, history.rebuilt))
    live_rows = live.table_rows()
    assert live_rows == rebuilt.table_rows()
    assert live.positions() == rebuilt.positions()
    topics = {r["topic"] for r in live_rows}
    assert topics == set(ALL_TOPICS)
    # The undecodable turn reached the dead-letter topic with its reason; the mis-keyed one was re-keyed.
    dead = [json.loads(r["payload"]) for r in live_rows if r["topic"] == TOPIC_DEAD_LETTER]
    assert [(d["topic"], d["key"]) for d in dead] == [(TOPIC_TURNS, A)]
    assert "not UTF-8" in dead[0]["reason"]
    strays = [r for r in live_rows if r["topic"] == TOPIC_TURNS and r["turn_id"] == "stray"]
    assert [(r["key"], r["bank_id"]) for r in strays] == [(A, B), (B, B)]
    assert live.counts()[UNDECODABLE] == 2  # the raw turn, and the dead letter (JSON, not an event)
    # Live wrote many small files (batches of 23, compacted now and then); the rebuild one per topic-partition.
    assert len(list(rebuilt.root.rglob("*.parquet"))) == len(rebuilt.positions())
    assert len(list(live.root.rglob("*.parquet"))) > 2 * len(live.positions())


def test_rebuild_recalls_the_same(history: History, embedder: Embedder) -> None:
    queries = [text for _, _, text in SPECIAL.values()]
    queries += ["which database do we use?", "where do I live?", "快递用哪家？"]
    for bank in (A, B):
        for query in queries:
            assert hits(history.live, embedder, bank, query) == hits(history.rebuilt, embedder, bank, query), query


def test_rebuild_recalls_the_same_when_full_text_scores_tie(history: History, embedder: Embedder) -> None:
    for query in ("status of the security audit", "the load test needs another pass", "the budget sheet"):
        assert hits(history.live, embedder, A, query) == hits(history.rebuilt, embedder, A, query), query


# ------------------------------------------------------------------ apply twice == apply once


async def test_apply_twice_equals_apply_once(history: History, tmp_path: Path) -> None:
    memories = decode_batch(await log_records(history.live, TOPIC_MEMORIES))
    turns = decode_batch(await log_records(history.live, TOPIC_TURNS)) + memories  # its topics (ContentErased)
    store = LanceStore(tmp_path / "lance")
    vectors, working = VectorsProjection(store), WorkingMemoryProjection(store)
    await vectors.apply(memories)
    await working.apply(turns)
    once = lance_snapshot(store)
    assert set(once) == {"memories", "turns"}
    await vectors.apply(memories)
    await working.apply(turns)
    assert lance_snapshot(store) == once
    # A restarted process (new store objects, positions read back from the table) redelivering the batch.
    again = LanceStore(tmp_path / "lance")
    await VectorsProjection(again).apply(memories)
    await WorkingMemoryProjection(again).apply(turns)
    assert lance_snapshot(again) == once
    # ... and it is what the live projections built.
    assert once == lance_snapshot(LanceStore(store_path(history.live.data_dir, "lance")))


@pytest.mark.parametrize(("n", "k", "m"), [(120, 40, 300), (1, 0, 2), (250, 249, None), (None, 0, 150)])
async def test_overlapping_redelivery_equals_one_pass(
    history: History, tmp_path: Path, n: int | None, k: int, m: int | None
) -> None:
    """[0, n) then [k, m) with k < n (redelivery after a crash, or a reader resuming from an old offset:
    the last case delivers an earlier window after everything) == the union applied once."""
    for topic, make in ((TOPIC_MEMORIES, VectorsProjection), (TOPIC_TURNS, WorkingMemoryProjection)):
        batch = decode_batch(await log_records(history.live, topic))
        first, second = batch[:n], batch[k:m]
        assert k < len(first) and second
        once, twice = LanceStore(tmp_path / f"{topic}-once"), LanceStore(tmp_path / f"{topic}-twice")
        await make(once).apply(batch[: max(len(first), k + len(second))])
        await make(twice).apply(first)
        await make(twice).apply(second)
        assert lance_snapshot(twice) == lance_snapshot(once), topic


async def test_stale_windows_change_nothing(history: History, tmp_path: Path) -> None:
    """After the whole log is applied, every earlier prefix of a partition delivered again is a no-op,
    e.g. a retained memory does not come back active, a redelivered turn keeps its later offset."""
    for topic, make in ((TOPIC_MEMORIES, VectorsProjection), (TOPIC_TURNS, WorkingMemoryProjection)):
        records = await log_records(history.live, topic)
        store = LanceStore(tmp_path / topic)
        await make(store).apply(decode_batch(records))
        once = lance_snapshot(store)
        for partition in sorted({r.partition for r in records}):
            mine = [r for r in records if r.partition == partition]
            for end in range(20, len(mine), 20):
                await make(store).apply(decode_batch(mine[:end]))
        assert lance_snapshot(store) == once, topic


# ------------------------------------------------------------------ lifecycle and what recall returns


def test_statuses_after_the_lifecycle(history: History) -> None:
    for settings in (history.live, history.rebuilt):
        rows_ = memory_rows(settings)
        status = {name: rows_[mid]["status"] for name, mid in history.ids.items()}
        # An episode saying only what its turn's fact says goes and comes back with that fact.
        assert status == {
            "a-mysql/episode": "superseded",
            "a-mysql/fact": "superseded",
            "a-postgres/episode": "active",
            "a-postgres/correction": "active",
            "a-berlin/episode": "superseded",
            "a-berlin/fact": "superseded",
            "a-paris/episode": "active",
            "a-paris/fact": "active",
            "a-python/episode": "superseded",
            "a-python/fact": "superseded",
            "a-rust/fact": "active",  # corrected
            "a-green/episode": "active",
            "a-green/preference": "active",  # superseded by blue, then restored
            "a-blue/episode": "superseded",
            "a-blue/preference": "superseded",  # by the restored green
            "a-hiking/episode": "forgotten",
            "a-hiking/preference": "forgotten",
            "a-tea/episode": "active",
            "a-tea/fact": "active",  # displaced by coffee, back when coffee was retracted
            "a-coffee/episode": "retracted",
            "a-coffee/fact": "retracted",
            "a-shellfish/episode": "retracted",
            "a-shellfish/constraint": "retracted",
            "b-berlin/episode": "active",
            "b-berlin/fact": "active",
            "b-mysql/episode": "active",
            "b-mysql/fact": "active",
        }
        ids = history.ids
        assert rows_[ids["a-mysql/fact"]]["superseded_by"] == ids["a-postgres/correction"]
        assert rows_[ids["a-postgres/correction"]]["supersedes"] == ids["a-mysql/fact"]
        assert rows_[ids["a-berlin/fact"]]["superseded_by"] == ids["a-paris/fact"]
        assert rows_[ids["a-python/fact"]]["superseded_by"] == ids["a-rust/fact"]
        # the correction's words read as a turn's: the rules' statement, the words its quote
        rust = rows_[ids["a-rust/fact"]]
        assert rust["extractor"].startswith("correction:rules/")
        assert rust["text"] == "The team's programming language: Rust"
        assert rows_[ids["a-blue/preference"]]["superseded_by"] == ids["a-green/preference"]
        assert rows_[ids["a-green/preference"]]["valid_to"] is None
        assert rows_[ids["a-tea/fact"]]["superseded_by"] is None and rows_[ids["a-tea/fact"]]["valid_to"] is None
        for episode, by in (
            ("a-mysql", "a-postgres/correction"),
            ("a-berlin", "a-paris/fact"),
            ("a-python", "a-rust/fact"),
            ("a-blue", "a-green/preference"),
        ):
            assert rows_[ids[f"{episode}/episode"]]["superseded_by"] == ids[by], episode
        for back in ("a-green/episode", "a-tea/episode"):  # restored, and back after the rollback
            assert (rows_[ids[back]]["superseded_by"], rows_[ids[back]]["valid_to"]) == (None, None), back


# Queries aimed at each memory that must not be recalled; name -> (query, its status).
HIDDEN = {
    "a-mysql/fact": ("We use MySQL for the order database.", "superseded"),
    "a-mysql/episode": ("We use MySQL for the order database.", "superseded"),
    "a-berlin/fact": ("I live in Berlin.", "superseded"),
    "a-berlin/episode": ("I live in Berlin.", "superseded"),
    "a-python/fact": ("We use Python for the backend.", "superseded"),
    "a-python/episode": ("We use Python for the backend.", "superseded"),
    "a-blue/preference": ("My favorite color is blue.", "superseded"),
    "a-blue/episode": ("My favorite color is blue.", "superseded"),
    "a-hiking/preference": ("I like hiking in the mountains.", "forgotten"),
    "a-hiking/episode": ("I like hiking in the mountains.", "forgotten"),
    "a-coffee/fact": ("I drink coffee every morning.", "retracted"),
    "a-coffee/episode": ("I drink coffee every morning.", "retracted"),
    "a-shellfish/constraint": ("I am allergic to shellfish.", "retracted"),
    "a-shellfish/episode": ("I am allergic to shellfish.", "retracted"),
}


@pytest.mark.parametrize("which", ["live", "rebuilt"])
def test_recall_never_returns_superseded_forgotten_or_retracted(
    history: History, embedder: Embedder, which: str
) -> None:
    settings = getattr(history, which)
    for name, (query, status) in HIDDEN.items():
        memory_id = history.ids[name]
        # The query does find it among memories of its status (recall shows one hit per thing said, so the
        # forgotten episode may stand behind its forgotten preference): its absence below means something.
        turn = name.split("/")[0]
        same_turn = {m for key, m in history.ids.items() if key.split("/")[0] == turn}
        assert same_turn & set(hits(settings, embedder, A, query, statuses=(status,))), name
        assert memory_id not in hits(settings, embedder, A, query), name
    # And no query at all brings back a row that is not active.
    rows_ = memory_rows(settings)
    for query in [q for q, _ in HIDDEN.values()] + ["what do I drink?", "favorite color", "allergies"]:
        assert {rows_[m]["status"] for m in hits(settings, embedder, A, query)} == {"active"}, query


@pytest.mark.parametrize("which", ["live", "rebuilt"])
def test_a_superseded_fact_s_utterance_no_longer_answers(history: History, embedder: Embedder, which: str) -> None:
    """ "We use MySQL ..." was corrected to PostgreSQL: neither the MySQL fact nor its turn's episode is served."""
    settings, ids = getattr(history, which), history.ids
    for query in ("what database do we use?", "which database do we use for orders?", "MySQL"):
        found = recall_hits(settings, embedder, A, query)
        assert found, query
        assert not {ids["a-mysql/fact"], ids["a-mysql/episode"]} & {h.memory_id for h in found}, query
        assert "a-mysql" not in {t for h in found for t in h.source_turn_ids}, query
    # Bank B never corrected it: there the same utterance still answers.
    assert ids["b-mysql/episode"] in hits(settings, embedder, B, "what database do we use?") or ids[
        "b-mysql/fact"
    ] in hits(settings, embedder, B, "what database do we use?")


@pytest.mark.parametrize("which", ["live", "rebuilt"])
def test_recall_returns_restored_and_replacing_memories(history: History, embedder: Embedder, which: str) -> None:
    settings = getattr(history, which)
    ids = history.ids
    assert ids["a-green/preference"] in hits(settings, embedder, A, "My favorite color is green.")  # restored
    assert ids["a-tea/fact"] in hits(settings, embedder, A, "I drink tea every afternoon.")  # back after retraction
    assert ids["a-rust/fact"] in hits(settings, embedder, A, CORRECTED_TEXT)
    assert ids["a-postgres/correction"] in hits(settings, embedder, A, SPECIAL["a-postgres"][2])
    assert ids["a-paris/fact"] in hits(settings, embedder, A, "We moved to Paris.")


@pytest.mark.parametrize("which", ["live", "rebuilt"])
def test_recall_stays_in_its_bank(history: History, embedder: Embedder, which: str) -> None:
    settings = getattr(history, which)
    bank_of = {m: r["bank_id"] for m, r in memory_rows(settings).items()}
    queries = [text for _, _, text in SPECIAL.values()] + ["Bob's status update 3", "Alice's status update 3"]
    for bank in (A, B):
        for query in queries:
            found = hits(settings, embedder, bank, query)
            assert found, (bank, query)
            assert {bank_of[m] for m in found} == {bank}, (bank, query)
    # Same text in both banks: each bank recalls its own memory only.
    assert history.ids["b-berlin/fact"] in hits(settings, embedder, B, "I live in Berlin.")
    assert history.ids["b-berlin/fact"] not in hits(settings, embedder, A, "I live in Berlin.")
    assert history.ids["b-mysql/fact"] not in hits(settings, embedder, A, "We use MySQL for the order database.")
