"""An exact vector search is answered from the vectors kept in process (``stores.exact``): the same rows and
distances as LanceDB's flat search, read again after every write, and left to LanceDB past its size."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest

from hindsight_es.stores import exact, lance_search
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema

DIM = 32


def rows(ids: range, bank: str, rng: np.random.Generator) -> pa.Table:
    n = len(ids)
    data = {f.name: [None] * n for f in memory_schema(DIM)}
    data.update(
        memory_id=[f"m{i}" for i in ids],
        bank_id=[bank] * n,
        status=["active"] * n,
        kind=["fact"] * n,
        text=[f"memory {i}" for i in ids],
        entities=[[]] * n,
        scope=["global"] * n,
        source_turn_ids=[[f"t{i}"] for i in ids],
        valid_from=[datetime(2026, 1, 1, tzinfo=UTC)] * n,
        vector=list(rng.standard_normal((n, DIM)).astype(np.float16)),
    )
    return pa.Table.from_pydict(data, schema=memory_schema(DIM))


def lancedb_flat(store: LanceStore, vector: np.ndarray, where: MemoryFilter, limit: int) -> list[tuple[int, float]]:
    found = (
        store.table("memories")
        .search(vector, vector_column_name="vector")
        .distance_type("cosine")
        .where(where.sql(), prefilter=True)
        .bypass_vector_index()
        .with_row_id(True)
        .select(["_distance"])
        .limit(limit)
        .to_arrow()
    )
    return list(zip(found["_rowid"].to_pylist(), found["_distance"].to_pylist(), strict=True))


def search(store: LanceStore, vector: np.ndarray, where: MemoryFilter, limit: int) -> list[tuple[int, float]]:
    return store.search.start(store.search.vector_search(vector, where, limit, nprobes=None)).result()


def whole_reads(monkeypatch) -> list[str]:
    """The filters whose kept set is read whole (``lance_search._vectors``), one entry per read, from now on."""
    reads: list[str] = []
    real = lance_search._vectors

    async def counted(table, where):
        reads.append(where.sql())
        return await real(table, where)

    monkeypatch.setattr(lance_search, "_vectors", counted)
    return reads


def test_kept_vectors_rank_like_lancedbs_flat_search_and_follow_every_write(tmp_path):
    rng = np.random.default_rng(1)
    store = LanceStore(tmp_path)
    schema = memory_schema(DIM)
    store.upsert("memories", schema, rows(range(300), "a", rng))
    store.upsert("memories", schema, rows(range(300, 400), "b", rng))
    where = MemoryFilter("a")
    for _ in range(5):
        query = rng.standard_normal(DIM).astype(np.float32)
        ours, theirs = search(store, query, where, 20), lancedb_flat(store, query, where, 20)
        assert [r for r, _ in ours] == [r for r, _ in theirs]
        assert np.allclose([d for _, d in ours], [d for _, d in theirs], atol=1e-4)

    # a new row of bank a, the query's own vector: found at once (the write made a new version)
    query = rng.standard_normal(DIM).astype(np.float32)
    new = rows(range(400, 401), "a", rng).set_column(
        list(schema.names).index("vector"), "vector", pa.array([query.astype(np.float16)], schema.field("vector").type)
    )
    store.upsert("memories", schema, new)
    best = search(store, query, where, 1)
    assert [r for r, _ in best] == [r for r, _ in lancedb_flat(store, query, where, 1)]
    assert best[0][1] == pytest.approx(0.0, abs=1e-3)
    assert store.scan("memories", MemoryFilter("a"), ["memory_id"], row_ids=True).num_rows == 301


def test_a_set_past_the_kept_size_is_searched_by_lancedb(tmp_path, monkeypatch):
    rng = np.random.default_rng(2)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(range(50), "a", rng))
    monkeypatch.setattr(exact, "MAX_ROWS", 10)
    kept_before = len(exact._SETS)
    query = rng.standard_normal(DIM).astype(np.float32)
    assert [r for r, _ in search(store, query, MemoryFilter("a"), 5)] == [
        r for r, _ in lancedb_flat(store, query, MemoryFilter("a"), 5)
    ]
    assert len(exact._SETS) == kept_before  # nothing kept for it


def test_a_set_past_the_kept_size_is_read_once_per_version(tmp_path, monkeypatch):
    """Refused once, a filter's rows are not read again at that version (every query paid for the read and
    then for LanceDB's search); a write makes a new version, which is looked at again."""
    rng = np.random.default_rng(3)
    store = LanceStore(tmp_path)
    schema = memory_schema(DIM)
    store.upsert("memories", schema, rows(range(50), "a", rng))
    monkeypatch.setattr(exact, "MAX_ROWS", 10)
    reads = whole_reads(monkeypatch)
    where = MemoryFilter("a")
    for _ in range(3):
        query = rng.standard_normal(DIM).astype(np.float32)
        assert [r for r, _ in search(store, query, where, 5)] == [r for r, _ in lancedb_flat(store, query, where, 5)]
    assert len(reads) == 1
    store.upsert("memories", schema, rows(range(50, 60), "a", rng))
    query = rng.standard_normal(DIM).astype(np.float32)
    assert [r for r, _ in search(store, query, where, 5)] == [r for r, _ in lancedb_flat(store, query, where, 5)]
    assert len(reads) == 2


def test_a_kept_set_follows_appends_updates_deletes_and_compactions_without_reading_it_again(tmp_path, monkeypatch):
    """After a write, a kept set is brought up to date from its row ids and the new rows' vectors
    (``exact._refresh``), and ranks exactly as LanceDB's flat search does over what the table holds now: new
    rows found, an updated row at its new vector only, a row leaving the filter gone. A compaction that
    moves the rows makes it read the set whole once more."""
    rng = np.random.default_rng(4)
    store = LanceStore(tmp_path)
    schema = memory_schema(DIM)
    store.upsert("memories", schema, rows(range(200), "a", rng))
    reads = whole_reads(monkeypatch)
    where = MemoryFilter("a")

    def agrees() -> None:
        for _ in range(3):
            query = rng.standard_normal(DIM).astype(np.float32)
            ours, theirs = search(store, query, where, 15), lancedb_flat(store, query, where, 15)
            # the same rows; two a few 1e-5 apart may swap places (float32 sums in another order)
            assert sorted(r for r, _ in ours) == sorted(r for r, _ in theirs)
            assert np.allclose([d for _, d in ours], [d for _, d in theirs], atol=1e-4)

    agrees()
    assert len(reads) == 1
    store.upsert("memories", schema, rows(range(200, 210), "a", rng))  # appended
    agrees()
    moved = rows(range(5), "a", rng)  # the same memories with other vectors: updated, at new row ids
    store.upsert("memories", schema, moved)
    agrees()
    gone = rows(range(5, 8), "a", rng).set_column(
        list(schema.names).index("status"), "status", pa.array(["archived"] * 3)
    )
    store.upsert("memories", schema, gone)  # no longer selected by the filter
    agrees()
    assert len(reads) == 1  # three writes, never read whole again
    assert store.count("memories", where) == 207
    store.table("memories").optimize()  # compaction: every row at a new address
    agrees()
    assert len(reads) == 2
