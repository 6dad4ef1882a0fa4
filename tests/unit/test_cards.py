"""A memory's card (``stores.cards``) says what its row's columns say, after every kind of write, and rows
written before cards existed are still read whole."""

from __future__ import annotations

from datetime import UTC, datetime

import lancedb
import numpy as np
import pyarrow as pa

from hindsight_es.recall.rowcache import RowCache
from hindsight_es.stores.cards import CARD, COLUMNS, card_row, with_cards
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema

DIM = 8
AWKWARD = [
    'He said "ship it"\nthen left\t(\\ back\\slash)',
    "用户改用顺丰寄快递。\u0001 control",
    "plain",
]


def rows(status: str = "active") -> pa.Table:
    n = len(AWKWARD)
    schema = memory_schema(DIM)
    data: dict[str, list[object]] = {f.name: [None] * n for f in schema}
    data.update(
        memory_id=[f"m{i}" for i in range(n)],
        bank_id=["b"] * n,
        status=[status] * n,
        kind=["fact", "episode", "preference"],
        text=AWKWARD,
        search_text=AWKWARD,
        text_ngram=AWKWARD,
        entities=[[]] * n,
        source_turn_ids=[["t1", "t2"], [], None],
        session_id=["s1", None, "s3"],
        speaker=["Ann", "林", None],
        key=["user/carrier", None, "user/drink"],
        valid_from=[datetime(2025, 3, 4, 5, 6, 7, 123456, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC), None],
        valid_to=[None, datetime(2026, 12, 31, 23, 59, 59, 999999, tzinfo=UTC), None],
        scope=["global", "session", None],
        provenance=["user", "tool", None],
        confirmed=[True, False, None],
        disputed_by=[["m9"], [], None],
        quote=[None, "ship it", None],
        vector=list(np.eye(n, DIM, dtype=np.float16)),
    )
    return pa.Table.from_pydict(data, schema=schema)


def test_a_card_reads_back_as_its_columns() -> None:
    table = with_cards(rows())
    assert [card_row(c) for c in table.column(CARD).to_pylist()] == table.select(list(COLUMNS)).to_pylist()


def test_cards_follow_every_write(tmp_path) -> None:
    store = LanceStore(tmp_path)
    schema = memory_schema(DIM)
    store.upsert("memories", schema, rows("active"))
    store.commit("memories", schema, rows("forgotten").slice(1, 1), {}, delete=["m2"])

    stored = store.scan("memories", MemoryFilter(statuses=None), [*COLUMNS, CARD], row_ids=True)
    data = sorted(stored.to_pylist(), key=lambda r: r["memory_id"])
    assert [(r["memory_id"], r["status"]) for r in data] == [("m0", "active"), ("m1", "forgotten")]
    for row in data:
        assert card_row(row[CARD]) == {c: row[c] for c in COLUMNS}

    cache = RowCache(store)
    assert {r["memory_id"]: r["status"] for r in cache.rows(r["_rowid"] for r in data).values()} == {
        "m0": "active",
        "m1": "forgotten",
    }


def test_rows_without_cards_are_read_column_by_column(tmp_path) -> None:
    """A table written before cards: its rows have none until written again, and read the same."""
    schema = memory_schema(DIM)
    old = rows().drop_columns([CARD])
    lancedb.connect(tmp_path).create_table("memories", old)
    store = LanceStore(tmp_path)
    store.upgrade()  # as a new release does: the card column is added, all null
    store.upsert("memories", schema, rows().slice(0, 1))  # one row written again: it has a card now

    stored = store.scan("memories", MemoryFilter(statuses=None), ["memory_id", CARD], row_ids=True).to_pylist()
    assert sorted((r["memory_id"], r[CARD] is None) for r in stored) == [("m0", False), ("m1", True), ("m2", True)]
    read = RowCache(store).rows(r["_rowid"] for r in stored)
    assert sorted((r["memory_id"], r["text"], r["valid_to"]) for r in read.values()) == sorted(
        (r["memory_id"], r["text"], r["valid_to"]) for r in rows().to_pylist()
    )
