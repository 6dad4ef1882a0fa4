"""Searches of a table with rows no index covers yet: the covered rows from LanceDB, the rest in process
(``stores.tail``), giving what LanceDB's own search of every row gives."""

from __future__ import annotations

import asyncio
import random

import numpy as np
import pyarrow as pa
import pytest

from hindsight_es.recall.lexical import holds
from hindsight_es.stores import lance_indexes as LI
from hindsight_es.stores import tail as T
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema
from hindsight_es.stores.lance_search import INDEX_DISTANCE_SCALE
from tests.unit.test_lance_indexes import DIM, rows

WORDS = [
    "garden",
    "tomatoes",
    "invoice",
    "ferry",
    "violin",
    "lesson",
    "paris",
    "budget",
    "猫咪",
    "咖啡",
    "上海",
    "周末",
]
WHERE = MemoryFilter("b")


def worded(n: int, start: int) -> pa.Table:
    """``rows``, each with a text of three words (English or Chinese) drawn for its number."""
    table = rows(n, start=start)
    texts = [" ".join(random.Random(start + i).choices(WORDS, k=3)) for i in range(n)]
    for column in ("text", "search_text", "text_ngram"):
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(texts))
    return table


@pytest.fixture
def store(tmp_path, monkeypatch) -> LanceStore:
    """1,000 indexed rows (an IVF index of about four partitions) and 30 in three commits after them."""
    monkeypatch.setattr(LI, "VECTOR_INDEX_ROWS", 600)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), worded(1000, 0))
    store.ensure_indexes(("memories",))
    for start in (1000, 1010, 1020):
        store.upsert("memories", memory_schema(DIM), worded(10, start))
    assert store.table("memories").index_stats("vector_idx").num_unindexed_rows == 30
    return store


def lancedb_search(store: LanceStore, query) -> pa.Table:
    async def run() -> pa.Table:
        return await query(store.search._memories()).with_row_id().to_arrow()

    return store.search.start(run()).result()


def lancedb_nearest(store: LanceStore, vector: np.ndarray, limit: int) -> pa.Table:
    """LanceDB's own search of every row (every IVF partition probed) for ``vector``."""
    return lancedb_search(
        store,
        lambda t: (
            t.query()
            .nearest_to(vector)
            .column("vector")
            .distance_type("cosine")
            .where(WHERE.sql())
            .nprobes(64)
            .select(["_distance"])
            .limit(limit)
        ),
    )


def exact(store: LanceStore, vector: np.ndarray) -> dict[int, float]:
    """Every row's cosine distance to ``vector``, by row id, computed here."""
    table = lancedb_search(store, lambda t: t.query().where(WHERE.sql()).select(["vector"]))
    vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
    cos = vectors @ vector / np.linalg.norm(vectors, axis=1) / np.linalg.norm(vector)
    return dict(zip(table.column("_rowid").to_pylist(), (1.0 - cos).tolist(), strict=True))


def test_vector_search_finds_the_nearest_rows_indexed_or_not_with_their_cosine_distances(store) -> None:
    for seed in range(5):
        vector = np.random.default_rng(100 + seed).standard_normal(DIM).astype(np.float32)
        ours = store.search.start(store.search.vector_search(vector, WHERE, 25, nprobes=64)).result()
        truth = exact(store, vector)
        nearest = sorted(truth, key=truth.get)[:25]
        assert len({row_id for row_id, _ in ours} & set(nearest)) >= 23  # every partition probed: int8 codes only
        assert all(abs(distance - truth[row_id]) < 0.01 for row_id, distance in ours)
        assert [row_id for row_id in nearest[:10] if row_id >> 32] == [r for r, _ in ours[:10] if r >> 32]
    # the 30 new rows were searched here: one tail, kept for this version and filter
    kept = [t for t in T._TAILS.values() if t.table is store.search._memories()]
    assert [len(t.row_ids) for t in kept] == [30]


def test_the_index_alone_answers_with_twice_the_cosine_distance(store) -> None:
    store.ensure_indexes(("memories",))  # every row indexed: LanceDB searches the index alone
    vector = np.random.default_rng(7).standard_normal(DIM).astype(np.float32)
    theirs = lancedb_nearest(store, vector, 10)
    truth = exact(store, vector)
    for row_id, distance in zip(
        theirs.column("_rowid").to_pylist(), theirs.column("_distance").to_pylist(), strict=True
    ):
        assert abs(distance / INDEX_DISTANCE_SCALE - truth[row_id]) < 0.01
    ours = store.search.start(store.search.vector_search(vector, WHERE, 10, nprobes=64)).result()
    assert all(abs(distance - truth[row_id]) < 0.01 for row_id, distance in ours)


@pytest.mark.parametrize(("query", "column"), [("tomatoes in the garden", "search_text"), ("猫咪喝咖啡", "text_ngram")])
def test_full_text_search_matches_the_rows_lancedb_matches(store, query, column) -> None:
    ours = store.search.start(store.search.text_search(query, column, WHERE, 2001, holds=holds(query, column))).result()
    theirs = lancedb_search(
        store,
        lambda t: t.query().nearest_to_text(query, columns=column).where(WHERE.sql()).select(["_score"]).limit(2001),
    )
    assert 0 < len(ours) < 2001
    assert sorted(row_id for row_id, _ in ours) == sorted(theirs.column("_rowid").to_pylist())
    new = {row_id for row_id, score in ours if score == 0.0}  # matched here, to be scored by the caller
    assert new and all(row_id >> 32 != 0 for row_id in new)  # all in the fragments after the first


def test_a_match_larger_than_asked_for_is_lancedbs_whole_list(store) -> None:
    query = "garden invoice ferry violin"
    ours = store.search.start(
        store.search.text_search(query, "search_text", WHERE, 50, holds=holds(query, "search_text"))
    )
    theirs = lancedb_search(
        store,
        lambda t: (
            t.query().nearest_to_text(query, columns="search_text").where(WHERE.sql()).select(["_score"]).limit(50)
        ),
    )
    scores = theirs.column("_score").to_pylist()
    assert [score for _, score in ours.result()] == scores  # LanceDB's scores, the new rows' too
    above = {
        row_id for row_id, score in zip(theirs.column("_rowid").to_pylist(), scores, strict=True) if score > scores[-1]
    }
    assert above == {row_id for row_id, score in ours.result() if score > scores[-1]}  # ties at the cut in any order


def test_a_maintained_table_has_no_tail_and_a_large_backlog_is_left_to_lancedb(store, monkeypatch) -> None:
    store.ensure_indexes(("memories",))
    vector = np.ones(DIM, dtype=np.float32)
    store.search.start(store.search.vector_search(vector, WHERE, 5, nprobes=64)).result()
    kept = [t for t in T._TAILS.values() if t.table is store.search._memories()]
    assert [len(t.row_ids) for t in kept] == [0]
    monkeypatch.setattr(T, "MAX_ROWS", 5)
    store.upsert("memories", memory_schema(DIM), worded(10, 2000))
    table = store.search._memories()
    version = store.search.start(store.search.version()).result()
    assert store.search.start(T.tail(store.table("memories"), table, WHERE.sql(), version)).result() is None
    assert asyncio.iscoroutinefunction(T.tail)


def test_every_filter_recall_writes_reads_the_same_rows_from_the_tail_as_lancedb(store) -> None:
    from datetime import UTC, datetime

    filters = [
        WHERE,
        MemoryFilter("b", statuses=None, kinds=["episode", "fact"], agent=None, trusted_only=True),
        MemoryFilter(
            "b", since=datetime(2000, 1, 1, tzinfo=UTC), until=datetime(2100, 1, 1, tzinfo=UTC), script="latin"
        ),
        MemoryFilter("b", within=(datetime(2000, 1, 1, tzinfo=UTC), datetime(2001, 1, 1, tzinfo=UTC))),
    ]
    version = store.search.start(store.search.version()).result()
    assert T.read(store.table("memories"), WHERE.sql(), version).num_rows == 30
    for where in filters:
        rows = T.read(store.table("memories"), where.sql(), version)
        assert rows is not None
        theirs = lancedb_search(
            store, lambda t, w=where: t.query().where(f"({w.sql()}) AND _rowaddr >= {1 << 32}").select(["memory_id"])
        )
        assert sorted(rows.column("_rowid").to_pylist()) == sorted(theirs.column("_rowid").to_pylist())


def test_a_tail_that_cannot_be_read_is_left_to_lancedb(store, monkeypatch, caplog) -> None:
    def fails(*_args):
        raise OSError("version 41 was cleaned up")

    monkeypatch.setattr(T, "read", fails)
    T._TAILS.clear()
    vector = np.random.default_rng(3).standard_normal(DIM).astype(np.float32)
    ours = store.search.start(store.search.vector_search(vector, WHERE, 10, nprobes=64)).result()
    theirs = lancedb_nearest(store, vector, 10)
    assert ours == list(zip(theirs.column("_rowid").to_pylist(), theirs.column("_distance").to_pylist(), strict=True))
    assert "LanceDB searches them" in caplog.text
