"""LanceDB hot store: the ``memories`` table (vectors + full text) and the ``turns`` table.

IO only. Each table also holds its tracking rows (``stores.tracking``: one position per topic-partition
it projects), written in the same ``merge_insert`` as the data rows by ``commit``; every read here
leaves them out. Reads take a ``MemoryFilter`` / ``TurnFilter`` (``stores.filters``), never SQL.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.errors import StoreError
from hindsight_es.stores import lance_indexes
from hindsight_es.stores.cards import CARD, with_cards
from hindsight_es.stores.filters import MemoryFilter, TurnFilter, one_of, quote
from hindsight_es.stores.lance_indexes import VectorIndexInfo, ivf_nprobes
from hindsight_es.stores.lance_schema import KEYS, TURN_SCHEMA, memory_schema, tracking_table
from hindsight_es.stores.lance_search import Searches
from hindsight_es.stores.objects import S3Options, is_remote, objects
from hindsight_es.stores.tracking import POSITION_BANK, Positions

Filter = MemoryFilter | TurnFilter
__all__ = ["KEYS", "TURN_SCHEMA", "Filter", "LanceStore", "erase_rows", "ivf_nprobes", "memory_schema"]
APPEND_CHECK_ROWS = 5000  # a batch at least this large looks for its keys before merging (see upsert)
# A scan's limit when it wants every match. Counting the rows first to use as the limit raced with
# writers: rows committed between the count and the scan pushed matches past it, dropped at random.
ALL_ROWS = 2**31 - 1
log_ = logging.getLogger("hindsight.stores.lance")


class LanceStore:
    """Both hot tables in one LanceDB directory (a local path or ``s3://bucket/prefix``); opened lazily,
    safe for one writer and many readers. ``stores.shards`` puts one per partition side by side."""

    def __init__(
        self,
        path: Path | str,
        *,
        read_consistency: timedelta | None = timedelta(0),
        options: S3Options | None = None,
    ) -> None:
        remote = is_remote(path)
        self.path: Path | str = str(path).rstrip("/") if remote else Path(path)
        if isinstance(self.path, Path):
            self.path.mkdir(parents=True, exist_ok=True)
        self.files = objects(self.path, options)  # side files beside the tables (the vector index's record)
        self._db = lancedb.connect(
            str(self.path),
            read_consistency_interval=read_consistency,
            storage_options=(options or S3Options()).lance() if remote else None,
        )
        self._tables: dict[str, Any] = {}
        self._checked: set[str] = set()  # tables whose columns were checked against the schema
        self._vector_types: dict[str, pa.DataType] = {}
        self.search = Searches(lambda: self.table("memories"), lambda: self.is_open("memories"))

    # ------------------------------------------------------------ tables

    def table(self, name: str) -> Any | None:
        if name not in self._tables:
            try:
                self._tables[name] = self._db.open_table(name)
            except (FileNotFoundError, ValueError):
                return None
        return self._tables[name]

    def _ensure(self, name: str, schema: pa.Schema) -> Any:
        """The table, created if missing; its columns are checked against ``schema`` once per store (a
        schema read goes through LanceDB's one background loop: on every write it cost more than the write)."""
        table = self.table(name)
        if table is None:
            table = self._db.create_table(name, schema=schema, exist_ok=True)
            if name == "memories":
                try:
                    lance_indexes.full_text_indexes(table)
                except Exception:  # another writer of a shared table created them first: a commit conflict
                    if lance_indexes.full_text_missing(table):
                        raise
            self._tables[name] = table
        elif name not in self._checked:
            self.add_missing_columns(name, schema)
        self._checked.add(name)
        return table

    def _as_stored(self, name: str, schema: pa.Schema) -> pa.Schema:
        """``schema`` with the vector type of the table as it exists (float32 in a table an older release
        wrote, float16 in a new one); a table of another vector size is refused."""
        if "vector" not in schema.names:
            return schema
        if (stored := self._vector_types.get(name)) is None:
            table = self.table(name)
            if table is None:
                return schema
            stored = self._vector_types[name] = table.schema.field("vector").type  # a table's never changes
        wanted = schema.field("vector").type
        if stored.list_size != wanted.list_size:
            raise StoreError(f"table {name} holds vectors of another size; rebuild into a new data directory")
        return schema if stored == wanted else schema.set(schema.get_field_index("vector"), pa.field("vector", stored))

    def add_missing_columns(self, name: str, schema: pa.Schema) -> None:
        """Columns of ``schema`` the table lacks are added, all null (a store written by an older release)."""
        table = self.table(name)
        if table is not None and (missing := [f for f in schema if f.name not in table.schema.names]):
            table.add_columns(missing)

    def upgrade(self) -> None:
        """Give a ``memories`` table written by an older release the columns readers now filter on
        (all null: e.g. ``owner``, so its memories are unowned). Idempotent; a no-op on a current table."""
        if (dim := self.vector_dim()) is not None:
            self.add_missing_columns("memories", memory_schema(dim))

    # ------------------------------------------------------------ writes

    def commit(
        self,
        name: str,
        schema: pa.Schema,
        rows: pa.Table,
        positions: Positions,
        *,
        delete: Sequence[str] = (),
        new: bool = False,
        first: bool = False,
    ) -> None:
        """Insert or replace ``rows`` (by the table's key), delete the rows keyed ``delete``, and record
        ``positions`` (the next offset per topic-partition), all in one commit. ``new`` and ``first``: as
        ``upsert``'s, the positions' tracking rows included."""
        schema = self._as_stored(name, schema)
        tracking = tracking_table(schema, KEYS[name], positions)
        rows = pa.concat_tables([rows.select(schema.names).cast(schema), tracking])
        self.upsert(name, schema, rows, delete=delete, new=new, first=first)

    def upsert(
        self,
        name: str,
        schema: pa.Schema,
        rows: pa.Table,
        *,
        delete: Sequence[str] = (),
        new: bool = False,
        first: bool = False,
    ) -> None:
        """Insert or replace rows by the table's key in one commit, and delete the rows whose key is in
        ``delete`` (not in ``rows``) in that same commit.

        A large batch none of whose keys exist yet is appended: the same rows without the cost of a
        merge. Live batches are smaller than ``APPEND_CHECK_ROWS`` and always merge. ``new``: the caller
        knows none of the keys exists (a rebuild's writer, ``projections.fresh``): appended unchecked.
        """
        if rows.num_rows == 0:
            return
        key = KEYS[name]
        schema = self._as_stored(name, schema)
        table = self._ensure(name, schema)
        if CARD in schema.names:  # derived from the row's columns, whoever writes it
            rows = with_cards(rows)
        if "vector" in schema.names and (at := rows.schema.get_field_index("vector")) >= 0:
            vector = schema.field("vector")
            if rows.schema.field(at).type != vector.type:
                rows = rows.set_column(at, vector, rows.column(at).cast(vector.type))
        # ``first``: a row whose key the table holds stays as it is (a turn id is decided once: its first words
        # stand); tracking rows are replaced as ever.
        kept = f"target.bank_id = {quote(POSITION_BANK)}" if first else None
        if delete:
            gone = one_of(key, list(delete))
            (
                table.merge_insert(key)
                .when_matched_update_all(where=kept)
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(gone)
                .execute(rows)
            )
            return
        if new and not delete:
            table.add(rows)
            return
        if rows.num_rows >= APPEND_CHECK_ROWS and not self._any_exists(table, key, rows.column(key)):
            table.add(rows)
            return
        table.merge_insert(key).when_matched_update_all(where=kept).when_not_matched_insert_all().execute(rows)

    def _any_exists(self, table: Any, key: str, keys: pa.ChunkedArray) -> bool:
        if table.count_rows() == 0:
            return False
        existing = table.search().select([key]).limit(ALL_ROWS).to_arrow().column(key)
        return bool(pc.any(pc.is_in(keys, value_set=existing.combine_chunks())).as_py())

    def positions(self, name: str, *, newest: bool = False) -> Positions:
        """The table's tracking records: the next offset per topic-partition it has projected. ``newest``:
        from the newest version (a writer's tables do not look for one: ``stores.shards.WRITER``)."""
        table = self.table(name)
        if table is None:
            return {}
        if newest:
            table.checkout_latest()
        rows = (
            table.search().where(f"bank_id = {quote(POSITION_BANK)}").select(["topic", "partition", "offset"]).to_list()
        )
        return {(r["topic"], r["partition"]): r["offset"] for r in rows}

    def snapshot(self, name: str) -> tuple[pa.Table, Positions]:
        """Every data row and the positions they stand at, from one version of the table (they agree)."""
        table = self.table(name)
        if table is None:
            return pa.table({}), {}
        data = table.to_arrow()
        tracking = pc.equal(data["bank_id"], POSITION_BANK)
        positions = {
            (r["topic"], r["partition"]): r["offset"]
            for r in data.filter(tracking).select(["topic", "partition", "offset"]).to_pylist()
        }
        return data.filter(pc.invert(tracking)), positions

    def rows_by_key(self, name: str, ids: Sequence[str]) -> pa.Table | None:
        """The rows (all columns) whose key (``memory_id``, ``turn_key``) is in ``ids``."""
        table = self.table(name)
        if table is None or not ids:
            return None
        key = KEYS[name]
        where = one_of(key, list(ids))
        # The row ids from the key's B-tree, then the rows by id: about a third of the CPU of one filtered
        # scan of every column (4 rows of a 20k-row table in 58 fragments: 17 against 54 ms). A write that
        # moved a row between the two (a compaction) leaves the ids stale: those rows are read by scan.
        found = table.search().where(where).with_row_id(True).select([key]).limit(len(ids) + 1).to_arrow()
        rows = table.take_row_ids(found.column("_rowid").to_pylist()).to_arrow()
        if sorted(rows.column(key).to_pylist()) == sorted(found.column(key).to_pylist()):
            return rows
        return table.search().where(where).limit(len(ids) + 1).to_arrow()

    def _rewrite(self, name: str) -> None:
        """Write table ``name`` anew from its live rows (tracking rows too), every column copied value by
        value into new buffers, then rebuild its indexes. An erase's last resort (``erase_rows``)."""
        table = self.table(name)
        if table is None:
            return
        live = table.to_arrow().combine_chunks()
        copied = live.take(pa.array(range(live.num_rows), pa.int64()))  # new buffers: the live values only
        self._db.create_table(name, copied, mode="overwrite")
        self._tables.pop(name, None)  # reopened, and its columns checked again, on next use
        self._checked.discard(name)
        self.ensure_indexes((name,))

    def ensure_indexes(self, tables: Sequence[str] = ("memories", "turns")) -> None:
        """Build missing indexes and fold new rows into existing ones (``lance_indexes.ensure_indexes``)."""
        lance_indexes.ensure_indexes(self.table, self.files, tables)

    def vector_index_info(self) -> VectorIndexInfo | None:
        """The IVF index as trained (rows, partition size), or None."""
        return lance_indexes.vector_index_info(self.files)

    def is_open(self, name: str) -> bool:
        return name in self._tables

    def for_bank(self, bank_id: str) -> LanceStore:
        """The store holding ``bank_id``'s rows: this one (``ShardedLance`` picks a partition's)."""
        return self

    def shards(self) -> list[LanceStore]:
        return [self]

    def vector_dim(self, name: str = "memories") -> int | None:
        """The size of ``name``'s vectors (a schema read: ~0.3 ms), or None when there is no such table."""
        table = self.table(name)
        return None if table is None else table.schema.field("vector").type.list_size

    # ------------------------------------------------------------ reads

    def scan(
        self,
        name: str,
        where: Filter,
        columns: Sequence[str] | None = None,
        limit: int | None = None,
        *,
        row_ids: bool = False,
    ) -> pa.Table:
        """Matching data rows (all columns, or only ``columns``; with ``row_ids`` also ``_rowid``)."""
        table = self.table(name)
        if table is None:
            return pa.table({})
        query = table.search().where(where.sql())
        if columns:
            query = query.select(list(columns))
        if row_ids:
            query = query.with_row_id(True)
        return query.limit(limit or ALL_ROWS).to_arrow()

    def rows_by_row_id(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table | None:
        """The ``memories`` rows at these Lance row ids, with ``_rowid`` (deleted ones are left out)."""
        table = self.table("memories")
        if table is None or not row_ids:
            return None
        return table.take_row_ids(list(row_ids)).with_row_id().select(list(columns)).to_arrow()

    def count(self, name: str, where: Filter | None = None) -> int:
        """Data rows matching ``where`` (every data row of the table without one)."""
        table = self.table(name)
        if table is None:
            return 0
        return int(
            table.count_rows((where or (MemoryFilter(statuses=None) if name == "memories" else TurnFilter())).sql())
        )

    def rows(self, name: str) -> int:
        """Rows of the table, tracking rows included (what a search over every bank scans)."""
        table = self.table(name)
        return 0 if table is None else int(table.count_rows())

    def banks(self) -> list[str]:
        """Every bank with a memory or a turn in the hot store."""
        found: set[str] = set()
        for name, where in (("memories", MemoryFilter(statuses=None)), ("turns", TurnFilter())):
            table = self.scan(name, where, ["bank_id"])
            if table.num_rows:
                found.update(table.column("bank_id").to_pylist())
        return sorted(found)

    def has_bank(self, bank_id: str) -> bool:
        return any(
            self.scan(name, where, ["bank_id"], limit=1).num_rows
            for name, where in (("memories", MemoryFilter(bank_id, statuses=None)), ("turns", TurnFilter(bank_id)))
        )


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
