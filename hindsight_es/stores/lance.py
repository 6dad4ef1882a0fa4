"""LanceDB hot store: the ``memories`` table (vectors + full text) and the ``turns`` table.

IO only. Each table also holds one position row per (topic, partition) it projects, written in
the same ``merge_insert`` as the data rows, so a crash can never separate a view from its position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import lancedb
import pyarrow as pa
from lancedb.index import FTS, BTree

from hindsight_es.errors import StoreError

POSITION_BANK = "__positions__"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


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
    ])


TURN_SCHEMA = pa.schema([
    ("turn_key", pa.string()), ("bank_id", pa.string()), ("session_id", pa.string()), ("turn_id", pa.string()),
    ("role", pa.string()), ("speaker", pa.string()), ("source", pa.string()), ("text", pa.string()),
    ("occurred_at", pa.timestamp("us", tz="UTC")),
    ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
])


def quote(value: str) -> str:
    """A SQL string literal for LanceDB filters."""
    return "'" + value.replace("'", "''") + "'"


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


class LanceStore:
    """Both hot tables in one LanceDB directory; opened lazily, safe for one writer and many readers."""

    def __init__(self, path: Path, *, read_consistency: timedelta | None = timedelta(0)) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self._db = lancedb.connect(str(self.path), read_consistency_interval=read_consistency)
        self._tables: dict[str, Any] = {}

    # ------------------------------------------------------------ tables

    def table(self, name: str) -> Any | None:
        if name not in self._tables:
            try:
                self._tables[name] = self._db.open_table(name)
            except (FileNotFoundError, ValueError):
                return None
        return self._tables[name]

    def _ensure(self, name: str, schema: pa.Schema) -> Any:
        table = self.table(name)
        if table is None:
            table = self._db.create_table(name, schema=schema, exist_ok=True)
            self._tables[name] = table
        elif "vector" in schema.names and table.schema.field("vector").type != schema.field("vector").type:
            raise StoreError(f"table {name} holds vectors of another size; rebuild into a new data directory")
        return table

    # ------------------------------------------------------------ writes

    def upsert(self, name: str, schema: pa.Schema, key: str, rows: pa.Table) -> None:
        """Insert or replace rows by ``key`` in one commit (data and position rows together)."""
        if rows.num_rows == 0:
            return
        table = self._ensure(name, schema)
        table.merge_insert(key).when_matched_update_all().when_not_matched_insert_all().execute(rows)

    def positions(self, name: str) -> dict[tuple[str, int], int]:
        table = self.table(name)
        if table is None:
            return {}
        rows = table.search().where(f"bank_id = {quote(POSITION_BANK)}").select(["topic", "partition", "offset"]).to_list()
        return {(r["topic"], r["partition"]): r["offset"] for r in rows}

    def rows_by_id(self, name: str, key: str, ids: Sequence[str]) -> pa.Table | None:
        table = self.table(name)
        if table is None or not ids:
            return None
        in_list = ", ".join(quote(i) for i in ids)
        return table.search().where(f"{key} IN ({in_list})").limit(len(ids) + 1).to_arrow()

    def ensure_indexes(self, tables: Sequence[str] = ("memories", "turns")) -> None:
        """Build missing indexes and fold new rows into existing ones (``optimize``).

        Each projection passes only its own table: two concurrent index commits on one table conflict.
        """
        table = self.table("memories") if "memories" in tables else None
        if table is not None and table.count_rows() > 0:
            names = {i.name for i in table.list_indices()}
            if "search_text_idx" not in names:
                table.create_index("search_text", config=FTS(base_tokenizer="simple", stem=True, remove_stop_words=True))
            if "text_ngram_idx" not in names:
                table.create_index("text_ngram", config=FTS(base_tokenizer="ngram", ngram_min_length=1,
                                                            ngram_max_length=2, stem=False, remove_stop_words=False,
                                                            lower_case=True))
            for column in ("bank_id", "memory_id"):
                if f"{column}_idx" not in names:
                    table.create_index(column, config=BTree())
            table.optimize()
        turns = self.table("turns") if "turns" in tables else None
        if turns is not None and turns.count_rows() > 0:
            if "bank_id_idx" not in {i.name for i in turns.list_indices()}:
                turns.create_index("bank_id", config=BTree())
            turns.optimize()

    # ------------------------------------------------------------ reads

    def scan(self, name: str, where: str, columns: Sequence[str] | None = None, limit: int | None = None) -> pa.Table:
        table = self.table(name)
        if table is None:
            return pa.table({})
        query = table.search().where(where)
        if columns:
            query = query.select(list(columns))
        return query.limit(limit or max(table.count_rows(), 1)).to_arrow()

    def vector_search(self, vector: Sequence[float], where: str, limit: int, columns: Sequence[str]) -> list[dict]:
        table = self.table("memories")
        if table is None:
            return []
        return (table.search(list(vector), vector_column_name="vector").distance_type("cosine")
                .where(where, prefilter=True).select([*columns, "_distance"]).limit(limit).to_list())

    def text_search(self, query: str, column: str, where: str, limit: int, columns: Sequence[str]) -> list[dict]:
        table = self.table("memories")
        if table is None or not query.strip():
            return []
        return (table.search(query, query_type="fts", fts_columns=column)
                .where(where, prefilter=True).select([*columns, "_score"]).limit(limit).to_list())
