"""Erasing rows from a LanceDB table for good: deleted, compacted, every older version dropped, and the
files checked for the erased words (crypto-shredding's last step in the hot store)."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Protocol

import pyarrow as pa

from hindsight_es.stores.filters import one_of
from hindsight_es.stores.lance_schema import ALL_ROWS, KEYS
from hindsight_es.stores.objects import ObjectStore


class LanceStore(Protocol):
    """What erasing needs of ``stores.lance.LanceStore`` (which imports this module)."""

    files: ObjectStore

    def table(self, name: str) -> Any | None: ...

    def rows_by_key(self, name: str, ids: Sequence[str]) -> pa.Table | None: ...

    def _rewrite(self, name: str) -> None: ...


log_ = logging.getLogger("hindsight.stores.lance")

# Columns holding what a person said (memories and turns), looked for in the files after an erase.
_CONTENT = ("text", "quote", "value")
_NEEDLE_BYTES = 8  # shorter values are too common to tell an erased one from a live one


def erase_rows(store: LanceStore, name: str, keys: Sequence[str]) -> int:
    """Delete the rows with these keys, then compact the table and drop every older version of it, whose
    data files and indexes still hold them (crypto-shredding's last step); returns how many rows went.
    Only the table's writer (its projection) calls it, before the commit that moves its positions past the
    erasure, so no write of it is in flight and a reader waiting on that position finds the bytes gone.

    Compaction alone is not always enough: a read of a fragment with deleted rows can return a string
    column whose buffer still holds the deleted values, and the compacted file is written from that
    buffer (seen with LanceDB 0.40: a fragment's data rows erased and its other row kept, the erased text
    was in the compacted file). So the erased rows' words are looked for in the table's files afterwards;
    where they are found, the table is rewritten from arrays copied value by value (``LanceStore._rewrite``)."""
    table = store.table(name)
    if table is None or not keys:
        return 0
    said = store.rows_by_key(name, list(keys))
    gone = 0
    for start in range(0, len(keys), 500):
        gone += int(getattr(table.delete(one_of(KEYS[name], list(keys[start : start + 500]))), "num_deleted_rows", 0))
    _drop_old_versions(table)
    needles = _erased_content(table, said)
    if needles and (held := files_holding(store, name, needles)):
        log_.warning(
            "erase: %s still held erased content in %d file(s) after compaction: rewriting it", name, len(held)
        )
        store._rewrite(name)
        _drop_old_versions(store.table(name))
        if held := files_holding(store, name, needles):  # a live row holding the words inside a longer text
            log_.error("erase: %s: erased words are still in %s after a rewrite", name, ", ".join(held[:3]))
    return gone


def files_holding(store: LanceStore, name: str, needles: Sequence[bytes]) -> list[str]:
    """The files of table ``name`` (data and indexes) holding any of ``needles`` as bytes."""
    return [
        key
        for key, _ in store.files.list(f"{name}.lance/")
        if (data := store.files.get(key)) is not None and any(n in data for n in needles)
    ]


def _drop_old_versions(table: Any) -> None:
    with warnings.catch_warnings():  # dropping every older version is the point (readers reopen the latest)
        warnings.simplefilter("ignore", UserWarning)
        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)


def _erased_content(table: Any, said: pa.Table | None) -> list[bytes]:
    """The erased rows' words that no live row holds as its own (a live copy is not a leftover)."""
    if said is None:
        return []
    columns = [c for c in _CONTENT if c in said.column_names]
    values = {v for c in columns for v in said.column(c).to_pylist() if v and len(v.encode("utf-8")) >= _NEEDLE_BYTES}
    if not values:
        return []
    where = sorted(values)
    for column in columns:
        found = table.search().where(one_of(column, where)).select([column]).limit(ALL_ROWS).to_arrow()
        values -= set(found.column(column).to_pylist())
    return sorted(v.encode("utf-8") for v in values)
