"""Erasing rows from a LanceDB table leaves none of their words in any of its files."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from hindsight_es.stores.lance import LanceStore, erase_rows, files_holding, memory_schema
from hindsight_es.stores.lance_schema import tracking_table
from tests.unit.test_lance_indexes import DIM, rows

SCHEMA = memory_schema(DIM)
SECRET = "My passport number is ZX9931Q"


def said(n: int, start: int, text: str) -> pa.Table:
    table = rows(n, start=start)
    for column in ("text", "quote"):
        table = table.set_column(table.schema.get_field_index(column), column, pa.array([text] * n))
    return table


def test_erased_words_leave_every_file_even_where_compaction_kept_them(tmp_path: Path) -> None:
    """Three appended commits, each with a tracking row; the first commit's rows erased while its tracking
    row stays. LanceDB 0.40's compaction wrote that fragment's erased text into the compacted file."""
    store = LanceStore(tmp_path)
    store.upsert("memories", SCHEMA, said(1, 100, "created"))
    table = store.table("memories")
    assert table is not None
    for offset, part in (
        (3, said(3, 0, SECRET)),
        (5, said(2, 10, "I prefer green tea")),
        (7, said(2, 20, "allergic to peanuts")),
    ):
        table.add(pa.concat_tables([part, tracking_table(SCHEMA, "memory_id", {("m", 0): offset})]))
    assert files_holding(store, "memories", [SECRET.encode()])

    assert erase_rows(store, "memories", ["m0", "m1", "m2"]) == 3

    assert files_holding(store, "memories", [SECRET.encode()]) == []
    data, positions = LanceStore(tmp_path).snapshot("memories")
    assert sorted(data.column("memory_id").to_pylist()) == ["m10", "m100", "m11", "m20", "m21"]
    assert positions == {("m", 0): 7}
    texts = {r["memory_id"]: r["text"] for r in data.to_pylist()}
    assert texts["m10"] == "I prefer green tea" and texts["m20"] == "allergic to peanuts"


def test_a_live_copy_of_erased_words_is_not_a_leftover(tmp_path: Path) -> None:
    store = LanceStore(tmp_path)
    store.upsert(
        "memories", SCHEMA, pa.concat_tables([said(2, 0, "I prefer green tea"), said(1, 5, "I prefer green tea")])
    )
    erase_rows(store, "memories", ["m0", "m1"])
    data, _ = LanceStore(tmp_path).snapshot("memories")
    assert data.column("memory_id").to_pylist() == ["m5"]  # kept, with its words (said again in another turn)
    assert files_holding(store, "memories", [b"I prefer green tea"])
