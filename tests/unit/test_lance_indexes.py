"""The hot table's indexes: bitmaps for every prefilter column, an IVF_SQ vector index sized by partition."""

from __future__ import annotations

import json
import time

import numpy as np
import pyarrow as pa
import pytest

from hindsight_es.errors import StoreError
from hindsight_es.stores import lance_indexes as LI
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema

DIM = 8


def rows(n: int, start: int = 0, bank: str = "b") -> pa.Table:
    vectors = np.random.default_rng(start).standard_normal((n, DIM), dtype=np.float32)
    data = {f.name: [None] * n for f in memory_schema(DIM)}
    data.update(
        memory_id=[f"m{start + i}" for i in range(n)],
        bank_id=[bank] * n,
        status=["active"] * n,
        kind=["episode"] * n,
        text=[f"note {start + i}" for i in range(n)],
        search_text=[f"note {start + i}" for i in range(n)],
        text_ngram=[f"note {start + i}" for i in range(n)],
        entities=[[]] * n,
        source_turn_ids=[[f"t{start + i}"] for i in range(n)],
        vector=list(vectors.astype(np.float16)),  # as the table holds them
    )
    return pa.Table.from_pydict(data, schema=memory_schema(DIM))


def test_prefilter_columns_get_bitmaps_and_a_large_table_an_ivf_sq_index(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(LI, "VECTOR_INDEX_ROWS", 600)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(500))
    store.ensure_indexes(("memories",))
    kinds = {i.name: i.index_type for i in store.table("memories").list_indices()}
    assert {kinds[f"{c}_idx"] for c in ("bank_id", "status", "owner", "kind")} == {"Bitmap"}
    assert (
        "vector_idx" not in kinds
        and store.vector_index_info() is None
        and LI.ivf_nprobes(5000, 5000, store.vector_index_info()) is None
    )

    store.upsert("memories", memory_schema(DIM), rows(500, start=500))
    store.ensure_indexes(("memories",))
    kinds = {i.name: i.index_type for i in store.table("memories").list_indices()}
    assert kinds["vector_idx"] == "IvfSq"
    assert store.vector_index_info() == {"index": "IVF_SQ", "rows": 1000, "partition_rows": LI.PARTITION_ROWS}
    hits = store.search.start(
        store.search.vector_search(
            rows(1, start=7).column("vector")[0].as_py(), MemoryFilter("b", statuses=None), 5, nprobes=4
        )
    ).result()
    assert len(hits) == 5


def test_an_index_this_release_did_not_record_is_retrained(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(LI, "VECTOR_INDEX_ROWS", 600)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(1000))
    store.ensure_indexes(("memories",))
    (tmp_path / LI.VECTOR_INDEX_FILE).write_text(json.dumps({"rows": 1000, "partition_rows": 256}))  # older release
    store.ensure_indexes(("memories",))
    assert store.vector_index_info()["index"] == "IVF_SQ"


@pytest.mark.parametrize(
    ("bank_rows", "table_rows", "expected"),
    [
        (2_000, 2_000, None),  # small banks: exact
        (100_000, 100_000, 32),  # 8k of the bank's rows in ~32 partitions of 256
        (400_000, 400_000, 32),
        (20_000, 1_000_000, None),  # probing enough of a small bank would scan more than the bank: exact
        (200_000, 1_000_000, 157),  # a fifth of the table: five times the probes
    ],
)
def test_probes_follow_the_banks_share_of_the_table(tmp_path, bank_rows, table_rows, expected) -> None:
    store = LanceStore(tmp_path)
    (tmp_path / LI.VECTOR_INDEX_FILE).write_text(
        json.dumps({"index": "IVF_SQ", "rows": table_rows, "partition_rows": 256})
    )
    assert LI.ivf_nprobes(bank_rows, table_rows, store.vector_index_info()) == expected


def test_searches_filter_before_they_rank_and_run_together_on_lancedbs_loop(tmp_path) -> None:
    """The searches recall starts side by side: a filter applies before the ranking (the bank's own
    nearest rows come back, however many nearer rows other banks hold), on the vector and on full text."""
    store = LanceStore(tmp_path)
    others = rows(300, bank="other")
    store.upsert("memories", memory_schema(DIM), others)
    store.upsert("memories", memory_schema(DIM), rows(5, start=1000, bank="b"))
    probe = others.column("vector")[7].as_py()  # the vector of m7, in bank "other"
    vector = store.search.start(store.search.vector_search(probe, MemoryFilter("b", statuses=None), 10))
    text = store.search.start(store.search.text_search("note", "search_text", MemoryFilter("b", statuses=None), 10))
    count = store.search.start(store.search.count_memories(MemoryFilter("b", statuses=None)))
    ids = {
        row["_rowid"]: row["memory_id"]
        for row in store.scan("memories", MemoryFilter(statuses=None), ["memory_id"], row_ids=True).to_pylist()
    }
    assert sorted(ids[row_id] for row_id, _ in vector.result(timeout=30)) == [f"m{1000 + i}" for i in range(5)]
    assert sorted(ids[row_id] for row_id, _ in text.result(timeout=30)) == [f"m{1000 + i}" for i in range(5)]
    assert count.result(timeout=30) == 5
    [(nearest, distance)] = store.search.start(
        store.search.vector_search(probe, MemoryFilter("other", statuses=None), 1)
    ).result()
    assert ids[nearest] == "m7" and distance == pytest.approx(0.0, abs=1e-5)


def test_a_search_started_on_an_unopened_table_fails_instead_of_waiting_forever(tmp_path) -> None:
    LanceStore(tmp_path).upsert("memories", memory_schema(DIM), rows(3))
    store = LanceStore(tmp_path)  # has not opened the table

    async def search_from_the_loop() -> list[tuple[int, float]]:
        return await store.search.text_search("note", "search_text", MemoryFilter(statuses=None), 3)

    with pytest.raises(StoreError, match="must be opened"):
        store.search.start(search_from_the_loop()).result(timeout=30)
    store.table("memories")
    assert len(store.search.start(search_from_the_loop()).result(timeout=30)) == 3


def test_partitions_grow_before_their_count_passes_what_lancedb_indexes() -> None:
    assert LI.partition_rows(1000) == LI.PARTITION_ROWS
    for rows in (1_078_168, 10_000_000, 50_000_000):  # LanceDB leaves rows of partitions past 4096 unindexed
        assert rows / LI.partition_rows(rows) <= LI.MAX_PARTITIONS * 0.8
    assert LI.partition_rows(10_000_000) < 2 * 10_000_000 * 1.25 / LI.MAX_PARTITIONS  # no bigger than needed


def test_full_text_search_finds_a_new_stores_rows_before_any_maintenance(tmp_path) -> None:
    """Without a full-text index LanceDB's full-text search finds nothing: a new store answered its first
    recalls (until a maintenance pass built the index, seconds later) with no word evidence, so the same rows
    ranked differently a few seconds apart. The indexes are made with the table; new rows are searched with
    their tokenizers (stems, and n-grams for CJK) before they are folded in."""
    store = LanceStore(tmp_path)
    table = rows(3)
    texts = ["我们的快递用顺丰", "shipping with carriers", "note 2"]
    table = table.set_column(table.schema.get_field_index("search_text"), "search_text", pa.array(texts))
    table = table.set_column(table.schema.get_field_index("text_ngram"), "text_ngram", pa.array(texts))
    store.upsert("memories", memory_schema(DIM), table)
    where = MemoryFilter("b", statuses=None)

    def found(query: str, column: str) -> list[int]:
        return sorted(r for r, _ in store.search.start(store.search.text_search(query, column, where, 10)).result())

    ids = {memory: row for row, memory in zip(*_row_ids(store), strict=True)}
    assert found("快递用哪家？", "text_ngram") == [ids["m0"]]
    assert found("which carrier ships?", "search_text") == [ids["m1"]]  # stemmed: "shipping", "carriers"
    store.ensure_indexes(("memories",))  # folded in: the same rows
    ids = {memory: row for row, memory in zip(*_row_ids(store), strict=True)}
    assert found("快递用哪家？", "text_ngram") == [ids["m0"]]
    assert found("which carrier ships?", "search_text") == [ids["m1"]]


def _row_ids(store: LanceStore) -> tuple[list[int], list[str]]:
    got = store.table("memories").search().with_row_id(True).select(["memory_id"]).to_arrow()
    return got.column("_rowid").to_pylist(), got.column("memory_id").to_pylist()


def _bytes(path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def test_maintenance_drops_versions_older_than_versions_kept(tmp_path, monkeypatch) -> None:
    """Every write and compaction is a new version whose files the old ones still point to; a maintenance
    pass removes the versions older than ``VERSIONS_KEPT`` (LanceDB's default kept them a week), and
    keeps the newer ones for the readers still on them."""
    store = LanceStore(tmp_path)
    for start in range(0, 400, 40):  # ten writes, then a compaction that rewrites them
        store.upsert("memories", memory_schema(DIM), rows(40, start))
    store.ensure_indexes(("memories",))
    table = store.table("memories")
    assert table is not None
    many = len(table.list_versions())
    assert many > 10
    store.ensure_indexes(("memories",))  # within VERSIONS_KEPT: every version stays
    assert len(table.list_versions()) >= many

    before = _bytes(tmp_path / "memories.lance")
    monkeypatch.setattr(LI, "VERSIONS_KEPT", LI.timedelta(milliseconds=1))
    time.sleep(0.01)
    store.ensure_indexes(("memories",))
    assert len(table.list_versions()) <= 2  # the newest (and the pass's own, if it wrote one)
    assert _bytes(tmp_path / "memories.lance") < before / 2
    assert store.count("memories", MemoryFilter("b")) == 400


def test_a_table_emptied_below_half_an_indexs_worth_drops_its_vector_index_and_keeps_being_maintained(
    tmp_path, monkeypatch
) -> None:
    """A bank erased whole left a table of a tracking row beside an IVF index over rows all gone; maintaining
    it failed ("KMeans cannot train 1 centroids with 0 vectors"), and with it the erase. Now the index goes
    with the rows (searched flat, exactly) and comes back when the table grows to an index's worth again."""
    monkeypatch.setattr(LI, "VECTOR_INDEX_ROWS", 600)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(1000))
    store.ensure_indexes(("memories",))
    assert "vector_idx" in {i.name for i in store.table("memories").list_indices()}
    store.table("memories").delete("bank_id = 'b'")
    kept = rows(1, start=5000, bank="other")  # what the projection keeps: its position, a zero vector
    kept = kept.set_column(
        kept.schema.get_field_index("vector"),
        "vector",
        pa.array([np.zeros(DIM, np.float16)], kept.schema.field("vector").type),
    )
    store.upsert("memories", memory_schema(DIM), kept)
    store.ensure_indexes(("memories",))  # raised before
    assert "vector_idx" not in {i.name for i in store.table("memories").list_indices()}
    assert store.vector_index_info() is None
    hits = store.search.start(
        store.search.vector_search(rows(1, start=1).column("vector")[0].as_py(), MemoryFilter("other"), 5)
    ).result()
    assert len(hits) == 1
    store.upsert("memories", memory_schema(DIM), rows(700, start=6000))
    store.ensure_indexes(("memories",))
    assert "vector_idx" in {i.name for i in store.table("memories").list_indices()}
