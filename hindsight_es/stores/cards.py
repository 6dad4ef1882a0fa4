"""A memory row's card: the columns recall shows of it, as one JSON string in a column beside them.

Recall searches return row ids, and the rows it shows are read back by id (``recall.rowcache``). LanceDB
decodes a take column by column and row by row: in a million-row file (format 2.2) about 0.1 ms of CPU
per cell, so the 17 columns recall shows cost ~53 ms of CPU for the 50 rows a cold recall misses, and ~69
ms for 150; the same rows' cards, one column, ~7 and ~10 ms (``python -m benchmarks.take_cost``).

The card is derived, never written by hand: ``LanceStore.upsert`` computes it from the row's own columns
on every write of the ``memories`` table, whoever writes (a projection, a rebuild; an erase's rewrite
copies rows whole, cards with them), so it always says what its row's columns say. Tables written before
cards existed hold null cards until their rows are written again (or the store is rebuilt); ``read``
reads those rows column by column. DuckDB builds the JSON (vectorised: about 2 µs a row, where
``json.dumps`` over Python rows costs ~35).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import pyarrow as pa

from hindsight_es.errors import StoreError

CARD = "card"
# What recall shows of a memory (``recall.models.RecallHit``), in this order.
COLUMNS = (
    "memory_id",
    "kind",
    "text",
    "source_turn_ids",
    "session_id",
    "speaker",
    "key",
    "valid_from",
    "owner",
    "status",
    "valid_to",
    "scope",
    "source",
    "provenance",
    "confirmed",
    "disputed_by",
    "quote",  # which episode a typed memory says all of (``search._distinct``)
)
_TIMES = ("valid_from", "valid_to")  # kept as microseconds since the epoch: exact, and fast to read back
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SQL = "SELECT to_json(struct_pack({})) :: VARCHAR AS card, memory_id FROM rows".format(
    ", ".join(f'"{c}" := ' + (f'epoch_us("{c}")' if c in _TIMES else f'"{c}"') for c in COLUMNS)
)
_local = threading.local()


def with_cards(rows: pa.Table) -> pa.Table:
    """``rows`` (of the ``memories`` schema) with their ``card`` column computed from their columns."""
    cards = _cards(rows.select(list(COLUMNS)))
    at = rows.schema.get_field_index(CARD)
    field = pa.field(CARD, pa.string())
    return rows.append_column(field, cards) if at < 0 else rows.set_column(at, field, cards)


def _cards(rows: pa.Table) -> pa.ChunkedArray:
    con = getattr(_local, "con", None)
    if con is None:  # a connection per thread: one DuckDB connection is not for concurrent use
        con = _local.con = duckdb.connect(config={"preserve_insertion_order": True, "threads": 1})
    con.register("rows", rows)
    try:
        out = con.sql(_SQL).to_arrow_table()
    finally:
        con.unregister("rows")
    if not out.column("memory_id").equals(rows.column("memory_id")):  # one card per row, in the rows' order
        raise StoreError("memory cards came back out of their rows' order")
    return out.column(CARD)


def card_row(card: str) -> dict[str, Any]:
    """The columns a card holds, as a take of them would give them (datetimes in UTC)."""
    row: dict[str, Any] = json.loads(card)
    for name in _TIMES:
        if (us := row[name]) is not None:
            row[name] = _EPOCH + timedelta(microseconds=us)
    return row


async def read(
    take: Callable[[Sequence[int], Sequence[str]], Coroutine[Any, Any, pa.Table | None]], row_ids: Sequence[int]
) -> list[dict[str, Any]]:
    """The ``COLUMNS`` (and ``_rowid``) of the rows at ``row_ids`` by their cards; rows without one (written
    before cards) read column by column. ``take``: ``Searches.take``. Deleted rows are left out."""
    table = await take(row_ids, (CARD,))
    if table is None:
        return []
    out, bare = [], []
    for row_id, card in zip(table.column("_rowid").to_pylist(), table.column(CARD).to_pylist(), strict=True):
        if card is None:
            bare.append(row_id)
        else:
            out.append(card_row(card) | {"_rowid": row_id})
    if bare and (old := await take(bare, COLUMNS)) is not None:
        out += old.to_pylist()
    return out
