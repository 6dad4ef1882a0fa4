"""LanceDB hot store: the ``memories`` table (vectors + full text) and the ``turns`` table.

IO only. Each table also holds its tracking rows (``stores.tracking``: one position per topic-partition
it projects), written in the same ``merge_insert`` as the data rows by ``commit``; every read here
leaves them out. Reads take a ``MemoryFilter`` / ``TurnFilter`` (``stores.filters``), never SQL.
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import lancedb
import pyarrow as pa
import pyarrow.compute as pc
from lancedb.background_loop import LOOP
from lancedb.index import FTS, Bitmap, BTree, IvfSq
from lancedb.table import AsyncTable

from hindsight_es.errors import StoreError
from hindsight_es.stores.filters import MemoryFilter, TurnFilter, one_of, quote
from hindsight_es.stores.tracking import POSITION_BANK, Positions, tracking_key

T = TypeVar("T")
Filter = MemoryFilter | TurnFilter
VECTOR_INDEX_ROWS = 5_000  # below this a flat scan is fast enough and exact
VECTOR_INDEX_FILE = "memories.vector_index.json"  # rows and partitions the IVF index was trained with
PROBED_BANK_ROWS = 8_000  # an IVF search probes enough partitions to see about this many rows of the bank
PARTITION_ROWS = 256  # IVF partition size: ~30 partitions hold PROBED_BANK_ROWS
VECTOR_INDEX_TYPE = "IVF_SQ"
MAX_VECTOR_DELTAS = 4  # delta indexes from optimize before the IVF index is retrained
MIN_NPROBES = 32
EXACT_BANK_ROWS = 3_000  # banks up to this size always get an exact vector scan
APPEND_CHECK_ROWS = 5000  # a batch at least this large looks for its keys before merging (see upsert)
KEYS = {"memories": "memory_id", "turns": "turn_key"}  # each table's row key


def memory_schema(dim: int) -> pa.Schema:
    ts = pa.timestamp("us", tz="UTC")
    return pa.schema([
        ("memory_id", pa.string()), ("bank_id", pa.string()), ("status", pa.string()), ("kind", pa.string()),
        ("text", pa.string()), ("search_text", pa.string()), ("text_ngram", pa.string()), ("key", pa.string()), ("value", pa.string()),
        ("entities", pa.list_(pa.string())), ("importance", pa.float32()), ("confidence", pa.float32()),
        ("scope", pa.string()), ("session_id", pa.string()), ("speaker", pa.string()), ("source", pa.string()),
        ("trust", pa.string()), ("actor", pa.string()), ("source_turn_ids", pa.list_(pa.string())),
        ("valid_from", ts), ("valid_to", ts), ("supersedes", pa.string()), ("superseded_by", pa.string()),
        ("embedder", pa.string()), ("extractor", pa.string()), ("vector", pa.list_(pa.float32(), dim)),
        ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
        ("owner", pa.string()),  # added after the first release: older tables gain it in ``_ensure``
        ("script", pa.string()),  # "cjk" | "latin" (of the text); added later: null on older rows
    ])


TURN_SCHEMA = pa.schema([
    ("turn_key", pa.string()), ("bank_id", pa.string()), ("session_id", pa.string()), ("turn_id", pa.string()),
    ("role", pa.string()), ("speaker", pa.string()), ("source", pa.string()), ("text", pa.string()),
    ("occurred_at", pa.timestamp("us", tz="UTC")),
    ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
])


class LanceStore:
    """Both hot tables in one LanceDB directory; opened lazily, safe for one writer and many readers."""

    def __init__(self, path: Path, *, read_consistency: timedelta | None = timedelta(0)) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(self.path), read_consistency_interval=read_consistency)
        self._tables: dict[str, Any] = {}
        self._checked: set[str] = set()  # tables whose columns were checked against the schema

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
            self._tables[name] = table
        elif name not in self._checked:
            if "vector" in schema.names and table.schema.field("vector").type != schema.field("vector").type:
                raise StoreError(f"table {name} holds vectors of another size; rebuild into a new data directory")
            self.add_missing_columns(name, schema)
        self._checked.add(name)
        return table

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

    def commit(self, name: str, schema: pa.Schema, rows: pa.Table, positions: Positions, *,
               delete: Sequence[str] = ()) -> None:
        """Insert or replace ``rows`` (by the table's key), delete the rows keyed ``delete``, and record
        ``positions`` (the next offset per topic-partition), all in one commit."""
        tracking = _tracking_table(schema, KEYS[name], positions)
        self.upsert(name, schema, pa.concat_tables([rows.select(schema.names).cast(schema), tracking]), delete=delete)

    def upsert(self, name: str, schema: pa.Schema, rows: pa.Table, *, delete: Sequence[str] = ()) -> None:
        """Insert or replace rows by the table's key in one commit, and delete the rows whose key is in
        ``delete`` (not in ``rows``) in that same commit.

        A large batch none of whose keys exist yet (a rebuild) is appended: the same rows without the
        cost of a merge. Live batches are smaller than ``APPEND_CHECK_ROWS`` and always merge.
        """
        if rows.num_rows == 0:
            return
        key = KEYS[name]
        table = self._ensure(name, schema)
        if delete:
            gone = one_of(key, list(delete))
            (table.merge_insert(key).when_matched_update_all().when_not_matched_insert_all()
             .when_not_matched_by_source_delete(gone).execute(rows))
            return
        if rows.num_rows >= APPEND_CHECK_ROWS and not self._any_exists(table, key, rows.column(key)):
            table.add(rows)
            return
        table.merge_insert(key).when_matched_update_all().when_not_matched_insert_all().execute(rows)

    def _any_exists(self, table: Any, key: str, keys: pa.ChunkedArray) -> bool:
        count = table.count_rows()
        if count == 0:
            return False
        existing = table.search().select([key]).limit(count).to_arrow().column(key)
        return bool(pc.any(pc.is_in(keys, value_set=existing.combine_chunks())).as_py())

    def positions(self, name: str) -> Positions:
        """The table's tracking records: the next offset per topic-partition it has projected."""
        table = self.table(name)
        if table is None:
            return {}
        rows = table.search().where(f"bank_id = {quote(POSITION_BANK)}").select(["topic", "partition", "offset"]).to_list()
        return {(r["topic"], r["partition"]): r["offset"] for r in rows}

    def snapshot(self, name: str) -> tuple[pa.Table, Positions]:
        """Every data row and the positions they stand at, from one version of the table (they agree)."""
        table = self.table(name)
        if table is None:
            return pa.table({}), {}
        data = table.to_arrow()
        tracking = pc.equal(data["bank_id"], POSITION_BANK)
        positions = {(r["topic"], r["partition"]): r["offset"]
                     for r in data.filter(tracking).select(["topic", "partition", "offset"]).to_pylist()}
        return data.filter(pc.invert(tracking)), positions

    def rows_by_key(self, name: str, ids: Sequence[str]) -> pa.Table | None:
        """The rows (all columns) whose key (``memory_id``, ``turn_key``) is in ``ids``."""
        table = self.table(name)
        if table is None or not ids:
            return None
        return table.search().where(one_of(KEYS[name], list(ids))).limit(len(ids) + 1).to_arrow()

    def ensure_indexes(self, tables: Sequence[str] = ("memories", "turns")) -> None:
        """Build missing indexes and fold new rows into existing ones (``optimize``).

        Each projection passes only its own table: two concurrent index commits on one table conflict.
        """
        table = self.table("memories") if "memories" in tables else None
        if table is not None and table.count_rows() > 0:
            kinds = {i.name: i.index_type for i in table.list_indices()}
            if kinds.get("bank_id_idx") == "BTree":  # an older release's; see below
                table.drop_index("bank_id_idx")
                del kinds["bank_id_idx"]
            names = set(kinds)
            if "search_text_idx" not in names:
                table.create_index("search_text", config=FTS(base_tokenizer="simple", stem=True, remove_stop_words=True))
            if "text_ngram_idx" not in names:
                table.create_index("text_ngram", config=FTS(base_tokenizer="ngram", ngram_min_length=1,
                                                            ngram_max_length=2, stem=False, remove_stop_words=False,
                                                            lower_case=True))
            if "memory_id_idx" not in names:
                table.create_index("memory_id", config=BTree())
            # Every search is prefiltered on bank, status and owner (an agent's recall), some on kind or a
            # time range. Bitmaps answer "= value" and "IS NULL" with a ready row set: on a 195k-row table
            # 0.7 ms, where a B-tree over bank_id took 5 ms and an unindexed owner clause 25 ms per search.
            for column in ("bank_id", "status", "owner", "kind", "script"):
                if f"{column}_idx" not in names:
                    table.create_index(column, config=Bitmap())
            if "valid_from_idx" not in names:
                table.create_index("valid_from", config=BTree())
            self._ensure_vector_index(table, names)
            table.optimize()
        turns = self.table("turns") if "turns" in tables else None
        if turns is not None and turns.count_rows() > 0:
            if "bank_id_idx" not in {i.name for i in turns.list_indices()}:
                turns.create_index("bank_id", config=BTree())
            turns.optimize()

    def _ensure_vector_index(self, table: Any, names: set[str]) -> None:
        """An IVF index once the table is large enough for flat search to hurt.

        IVF_SQ: vectors quantised to int8 in the index (a quarter of IVF_FLAT's memory: 170 MB instead of
        670 MB at 195k 896-d rows, and faster to scan); candidates only need their rank, not exact
        distances. It is trained with a target partition *size*: ``optimize`` then folds new rows in as
        delta indexes whose partitions keep that size (trained with a partition *count*, optimize
        re-partitioned it into a few huge ones, and every search compared every row). Too many deltas
        (each probed separately) trigger a retrain; so does an index this release did not record.
        """
        rows = table.count_rows()
        if rows < VECTOR_INDEX_ROWS:
            return
        info = self.vector_index_info()
        if "vector_idx" in names and info is not None and info.get("index") == VECTOR_INDEX_TYPE:
            if table.index_stats("vector_idx").num_indices <= MAX_VECTOR_DELTAS:
                return
        table.create_index("vector", config=IvfSq(distance_type="cosine", target_partition_size=PARTITION_ROWS),
                           replace=True)
        (self.path / VECTOR_INDEX_FILE).write_text(json.dumps({"index": VECTOR_INDEX_TYPE, "rows": rows,
                                                               "partition_rows": PARTITION_ROWS}))

    def vector_index_info(self) -> dict[str, int] | None:
        """``{"rows": .., "partition_rows": ..}`` of the IVF index as trained, or None (no index, or one
        trained by a release that did not record it)."""
        path = self.path / VECTOR_INDEX_FILE
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None

    def vector_dim(self, name: str = "memories") -> int | None:
        """The size of ``name``'s vectors (a schema read: ~0.3 ms), or None when there is no such table."""
        table = self.table(name)
        return None if table is None else table.schema.field("vector").type.list_size

    # ------------------------------------------------------------ reads

    def scan(self, name: str, where: Filter, columns: Sequence[str] | None = None, limit: int | None = None,
             *, row_ids: bool = False) -> pa.Table:
        """Matching data rows (all columns, or only ``columns``; with ``row_ids`` also ``_rowid``)."""
        table = self.table(name)
        if table is None:
            return pa.table({})
        query = table.search().where(where.sql())
        if columns:
            query = query.select(list(columns))
        if row_ids:
            query = query.with_row_id(True)
        return query.limit(limit or max(table.count_rows(), 1)).to_arrow()

    def rows_by_row_id(self, row_ids: Sequence[int], columns: Sequence[str]) -> pa.Table | None:
        """The ``memories`` rows at these Lance row ids, with ``_rowid`` (deleted ones are left out)."""
        table = self.table("memories")
        if table is None or not row_ids:
            return None
        return table.take_row_ids(list(row_ids)).with_row_id().select(list(columns)).to_arrow()

    # Searches that read back nothing but row ids and scores. Reading columns back costs LanceDB a
    # take of each hit (~3-4 ms for 75 hits on a 195k-row table, as much as the search itself); recall
    # gets the rows from its row cache instead (``hindsight_es.recall.rowcache``).
    #
    # They are coroutines on LanceDB's own event loop, over the async table behind the sync one (the
    # same dataset, caches and read consistency). LanceDB's sync query API makes five round trips to
    # that loop and two schema reads per query: on the 100k bench store a full-text search, a vector
    # search and a count took 16.3 ms one after another through it, 10.4 ms as one gather of these.
    # ``start`` runs several at once without a Python thread for each.

    def start(self, search: Coroutine[Any, Any, T]) -> Future[T]:
        """Run one of the search coroutines below on LanceDB's event loop; its result is the future's."""
        return asyncio.run_coroutine_threadsafe(search, LOOP.loop)

    def vector_search(self, vector: Sequence[float], where: MemoryFilter, limit: int, *,
                      nprobes: int | None = None) -> Coroutine[Any, Any, list[tuple[int, float]]]:
        """``(row id, cosine distance)`` of the nearest memories: with ``nprobes`` that many IVF partitions,
        else every matching row (exact; see ``ivf_nprobes``). A filter applies before the search."""
        table = self._async_memories()  # opened here, not on the loop (opening waits on the loop)

        async def search() -> list[tuple[int, float]]:
            if table is None:
                return []
            query = table.query().nearest_to(vector).column("vector").distance_type("cosine").where(where.sql())
            query = query.bypass_vector_index() if nprobes is None else query.nprobes(nprobes)
            return _pairs(await query.with_row_id().select(["_distance"]).limit(limit).to_arrow(), "_distance")

        return search()

    def text_search(self, query: str, column: str, where: MemoryFilter,
                    limit: int) -> Coroutine[Any, Any, list[tuple[int, float]]]:
        """``(row id, BM25 score)`` of the best full-text matches in ``column``; the filter applies first."""
        table = self._async_memories()

        async def search() -> list[tuple[int, float]]:
            if table is None or not query.strip():
                return []
            found = (table.query().nearest_to_text(query, columns=column).where(where.sql()).with_row_id()
                     .select(["_score"]).limit(limit))
            return _pairs(await found.to_arrow(), "_score")

        return search()

    def count_memories(self, where: MemoryFilter) -> Coroutine[Any, Any, int]:
        """Memories matching ``where``, as a coroutine for ``start``."""
        table = self._async_memories()

        async def count() -> int:
            return 0 if table is None else int(await table.count_rows(where.sql()))

        return count()

    def _async_memories(self) -> AsyncTable | None:
        if threading.current_thread() is LOOP.thread and "memories" not in self._tables:
            # Opening a table waits on LanceDB's loop: from the loop itself it would never return.
            raise StoreError("the memories table must be opened (LanceStore.table) before searching from the loop")
        table = self.table("memories")
        if table is None:
            return None
        inner = getattr(table, "_table", None)  # LanceTable keeps its AsyncTable here (lancedb 0.40)
        if not isinstance(inner, AsyncTable):
            raise StoreError(f"this LanceDB ({lancedb.__version__}) keeps no async table behind a sync one")
        return inner

    def count(self, name: str, where: Filter | None = None) -> int:
        """Data rows matching ``where`` (every data row of the table without one)."""
        table = self.table(name)
        if table is None:
            return 0
        return int(table.count_rows((where or (MemoryFilter(statuses=None) if name == "memories" else TurnFilter())).sql()))

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
        return any(self.scan(name, where, ["bank_id"], limit=1).num_rows for name, where in (
            ("memories", MemoryFilter(bank_id, statuses=None)), ("turns", TurnFilter(bank_id))))


def ivf_nprobes(bank_rows: int, table_rows: int, index: dict[str, int] | None) -> int | None:
    """IVF partitions to probe for a bank of ``bank_rows``, or None for an exact (flat) search.

    The table holds every bank, in partitions of about ``partition_rows`` (of ``index``, the
    ``vector_index_info``). Probing ``p`` partitions compares ``p * partition_rows`` rows,
    ``bank_rows / table_rows`` of them the bank's; we want ``PROBED_BANK_ROWS`` of the bank's. When that
    costs more than a filtered flat scan of the bank (``bank_rows`` comparisons), or there is no index,
    the flat scan is used: it is also exact.
    """
    if index is None or bank_rows <= EXACT_BANK_ROWS:
        return None
    compared = PROBED_BANK_ROWS * table_rows / bank_rows
    if compared >= bank_rows:
        return None
    return max(MIN_NPROBES, math.ceil(compared / index["partition_rows"]))


def _tracking_table(schema: pa.Schema, key: str, positions: Positions) -> pa.Table:
    """The tracking rows of ``positions`` in a table's schema (a zero vector where the table has one)."""
    rows: list[dict[str, Any]] = []
    for (topic, partition), offset in sorted(positions.items()):
        row: dict[str, Any] = {key: tracking_key(topic, partition), "bank_id": POSITION_BANK, "topic": topic,
                               "partition": partition, "offset": offset}
        if "vector" in schema.names:  # the memories table: columns its indexes need set
            row |= {"status": "position", "kind": "position", "text": "", "search_text": "", "text_ngram": "",
                    "entities": [], "source_turn_ids": [], "vector": [0.0] * schema.field("vector").type.list_size}
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)


def _pairs(found: pa.Table, score: str) -> list[tuple[int, float]]:
    return list(zip(found.column("_rowid").to_pylist(), found.column(score).to_pylist(), strict=True))
