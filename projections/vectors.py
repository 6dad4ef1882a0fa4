"""Vectors projection: consumes ``hindsight.memories``, produces the LanceDB ``memories`` table.

One row per memory retained and not archived, keyed by ``memory_id``, with its status (active,
superseded, forgotten, quarantined, retracted); recall reads only active rows. An archived memory's
row leaves the table (it lives in the Parquet archive) and comes back from ``MemoryRestored.revived``.
Rows, deletions and the batch's positions are written in one commit (``LanceStore.commit``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any, Protocol
from uuid import UUID

import numpy as np
import pyarrow as pa

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.errors import StoreError
from hindsight_es.events import ContentErased, Event, MemoryArchived, MemoryRestored, MemoryRetained, vectors
from hindsight_es.events.changes import changes, subject
from hindsight_es.log import Record, TopicPartition
from hindsight_es.memory.indexing import full_text
from hindsight_es.stores.lance import LanceStore, erase_rows, memory_schema
from hindsight_es.text import has_cjk, is_cjk, plural
from projections.runner import Batch

TABLE = "memories"
_LINKS = ("supersedes", "superseded_by", "disputes")
ROWS_KEPT = 2048  # rows written last, kept per projection (a table of one partition): 2-5 KB each
log_ = logging.getLogger("hindsight.projections.vectors")

Step = tuple[Record, Event, list[tuple[UUID, dict[str, Any]]]]  # a record, its event and what it changes


def retained_row(event: MemoryRetained) -> dict[str, Any]:
    indexed = full_text(event.text, event.speaker, event.context, event.quote)
    cjk = is_cjk(event.text)
    return {
        "memory_id": str(event.memory_id),
        "bank_id": event.bank_id,
        "status": "active",
        "kind": event.kind,
        # The n-gram index answers CJK queries and only memories with CJK in them count (recall.search):
        # other text in it would only grow the index every maintenance pass updates.
        "text": event.text,
        "search_text": indexed,
        "text_ngram": indexed if has_cjk(event.text) else "",
        "key": event.key,
        "value": event.value,
        "entities": list(event.entities),
        "importance": event.importance,
        "confidence": event.confidence,
        "scope": event.scope,
        "owner": event.owner,
        "session_id": event.session_id,
        "speaker": event.speaker,
        "source": event.source,
        "trust": event.trust,
        "actor": event.actor,
        "source_turn_ids": list(event.source_turn_ids),
        "valid_from": event.valid_from,
        "valid_to": None,
        "supersedes": None,
        "superseded_by": None,
        "embedder": event.embedder,
        "extractor": event.extractor,
        "vector": Packed(event.vector),  # decoded with the batch's others (``memory_table``)
        "script": "cjk" if cjk else "latin",  # recall searches the other script apart
        "provenance": event.provenance or event.source,
        "confirmed": event.confirmed or (event.provenance is None and event.source == "user"),
        "disputes": None,
        "disputed_by": [],
        "quote": event.quote,
    }


def _stored(name: str, value: Any) -> Any:
    """A changed field as the table holds it: memory ids as text."""
    if name == "disputed_by":
        return [str(v) for v in value]
    return str(value) if name in _LINKS and value else value


class Packed(bytes):
    """A row's vector as its event carries it (``events.vectors``); any other row's is float32 little-endian
    bytes (read back from the table). Decoded for the whole batch at once in ``memory_table``."""


def vector_dim(vector: bytes) -> int:
    """The dimensions of a row's vector, either form."""
    return vectors.dim(vector) if isinstance(vector, Packed) else len(vector) // 4


def memory_table(rows: list[dict[str, Any]], dim: int) -> pa.Table:
    """Rows -> a table in ``memory_schema(dim)``; the vectors become one Arrow column without a Python
    float (or a numpy call) per vector."""
    schema = memory_schema(dim)
    at = schema.get_field_index("vector")
    column = [row["vector"] for row in rows]
    if {vector_dim(v) for v in column} - {dim}:
        raise StoreError(f"a memory vector is not {dim}-d like the table's; rebuild into a new data directory")
    table = pa.Table.from_pylist(rows, schema=schema.remove(at))
    values = np.empty((len(rows), dim), np.float32)
    packed = [i for i, v in enumerate(column) if isinstance(v, Packed)]
    plain = [i for i, v in enumerate(column) if not isinstance(v, Packed)]
    if packed:
        values[packed] = vectors.unpack_many([column[i] for i in packed], dim)
    if plain:
        values[plain] = np.frombuffer(b"".join(column[i] for i in plain), dtype="<f4").reshape(len(plain), dim)
    value_type = schema.field(at).type.value_type
    flat = pa.array(values.reshape(-1).astype(value_type.to_pandas_dtype()), value_type)
    return table.add_column(at, schema.field(at), pa.FixedSizeListArray.from_arrays(flat, dim))


def stored_rows(table: pa.Table) -> dict[str, dict[str, Any]]:
    """Rows read from the table, by memory id, as ``fold`` changes them (vectors as float32 bytes)."""
    column = table.column("vector").combine_chunks()
    vectors = column.flatten().to_numpy().astype("<f4").reshape(len(column), column.type.list_size)
    rows = table.drop_columns([c for c in table.column_names if c.startswith("_") or c == "vector"]).to_pylist()
    return {row["memory_id"]: row | {"vector": vector.tobytes()} for row, vector in zip(rows, vectors, strict=True)}


def leave_out_misfits(rows: dict[str, dict[str, Any]], dim: int) -> None:
    """Drop (and log) rows whose vector is not ``dim``-d: written by a process with another embedder (the
    bank actor now refuses to start with one; logs from before may hold some). They cannot go into this
    table: rather than stop every later memory behind them, they are left out, the same way live and in
    a rebuild; the log and the archive keep them."""
    if misfits := sorted(m for m, row in rows.items() if vector_dim(row["vector"]) != dim):
        log_.error(
            "vectors: %s embedded by another model (vectors not %d-d) not projected: %s",
            plural(len(misfits), "memory", "memories"),
            dim,
            ", ".join(misfits[:5]) + (" ..." if len(misfits) > 5 else ""),
        )
        for misfit in misfits:
            del rows[misfit]


class Rows(Protocol):
    """Where ``fold`` writes what a batch's events do to the table's rows, keyed by memory id."""

    def put(self, memory_id: str, row: dict[str, Any]) -> None: ...  # a whole row: retained or revived

    def change(self, memory_id: str, fields: dict[str, Any]) -> None: ...  # fields of a row, if it is held

    def drop(self, memory_id: str, *, erased: bool) -> None: ...  # archived (out of the table) or erased


def fold(steps: list[Step], rows: Rows) -> None:
    """Every event's effect on the rows, in log order. A change to a memory with no row (archived, not
    projected) does nothing, the same live and in a rebuild."""
    for record, event, changed in steps:
        if isinstance(event, MemoryRetained):
            row = retained_row(event)
            rows.put(row["memory_id"], row)
        elif isinstance(event, MemoryRestored) and event.revived is not None:  # back from the archive
            row = retained_row(event.revived)
            rows.put(row["memory_id"], row)
        for memory_id, fields in changed:
            rows.change(str(memory_id), {k: _stored(k, v) for k, v in fields.items()})
        if (own := subject(event)) is not None:
            rows.change(str(own), {"topic": record.topic, "partition": record.partition, "offset": record.offset})
        if isinstance(event, MemoryArchived):
            rows.drop(str(event.memory_id), erased=False)
        elif isinstance(event, ContentErased):  # erased: out of the hot table, whatever its status
            for erased_id in map(str, event.memory_ids):
                rows.drop(erased_id, erased=True)


class Held:
    """``Rows`` over one batch's rows in memory (the touched ones read from the table first); what
    leaves the table is deleted in the batch's commit (archived) or erased before it."""

    def __init__(self, rows: dict[str, dict[str, Any]]) -> None:
        self.rows = rows
        self.gone: set[str] = set()
        self.erased: set[str] = set()

    def put(self, memory_id: str, row: dict[str, Any]) -> None:
        self.rows[memory_id] = row
        self.gone.discard(memory_id)

    def change(self, memory_id: str, fields: dict[str, Any]) -> None:
        if (row := self.rows.get(memory_id)) is not None:
            row.update(fields)

    def drop(self, memory_id: str, *, erased: bool) -> None:
        self.rows.pop(memory_id, None)
        (self.erased if erased else self.gone).add(memory_id)


class VectorsProjection:
    name = "vectors"
    topics: tuple[str, ...] = (TOPIC_MEMORIES,)
    # Recall reads this table, and every commit it sees costs it: a new version and more fragments to search
    # until the next compaction. Under a steady stream a quarter second of gathering (a lone event still
    # goes at once) halved recall's latency beside 20 turns/s and put ~0.2 s on the time to recallable.
    linger_s = 0.25

    def __init__(self, store: LanceStore, partitions: frozenset[int] | None = None) -> None:
        self.store = store
        self.partitions = partitions
        self._done: dict[TopicPartition, int] | None = None  # positions as last written (see _apply)
        self._table_dim: int | None = None
        # The rows this projection wrote last, as written: a change to one of them (a supersession, a
        # status) needs no read of the table. Valid while the projection is its table's one writer, so
        # dropped whenever the positions are read back from the table (a failed write, an acquisition).
        self._rows: OrderedDict[str, dict[str, Any]] = OrderedDict()

    async def positions(self) -> dict[TopicPartition, int]:
        return await asyncio.to_thread(self._positions)

    def _positions(self) -> dict[TopicPartition, int]:
        if (dim := self._dim({})) is not None:  # readers filter on columns newer than an old store's
            self.store.add_missing_columns(TABLE, memory_schema(dim))
        self._done = None
        return self.store.positions(TABLE)

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        await asyncio.to_thread(self.store.ensure_indexes, (TABLE,))

    def _apply(self, batch: Batch) -> None:
        if self._done is None:  # the table's positions, and rows, as stored (after a failed write too)
            self._rows.clear()
        done = self._done if self._done is not None else self.store.positions(TABLE, newest=True)
        fresh = [(r, e) for r, e in batch if r.offset >= done.get((r.topic, r.partition), 0)]
        steps = [(record, event, changes(event)) for record, event in fresh if event is not None]
        rows = self._load_touched(steps)
        held = Held(rows)
        fold(steps, held)
        gone, erased = held.gone, held.erased
        dim = self._dim(rows)
        if dim is None:
            return  # nothing retained yet: no table to hold positions, redelivery is harmless
        leave_out_misfits(rows, dim)
        ends: dict[TopicPartition, int] = {}
        for record, _ in fresh:
            ends[(record.topic, record.partition)] = record.offset + 1
        self._done = None  # read again from the table if this write fails
        if erased:  # gone with every older version before the positions pass the erasure (``erase_rows``)
            erase_rows(self.store, TABLE, sorted(erased))
        self.store.commit(TABLE, memory_schema(dim), memory_table(list(rows.values()), dim), ends, delete=sorted(gone))
        # This projection is the table's only writer, so what it wrote is the stored position: the next
        # batch need not read it back (a read per batch cost as much as the write on a busy service).
        self._done = {**done, **ends}
        self._remember(rows, gone | erased)

    def _remember(self, rows: dict[str, dict[str, Any]], gone: set[str]) -> None:
        for memory_id in gone:
            self._rows.pop(memory_id, None)
        for memory_id, row in rows.items():
            self._rows[memory_id] = row
            self._rows.move_to_end(memory_id)
        while len(self._rows) > ROWS_KEPT:
            self._rows.popitem(last=False)

    def _load_touched(self, steps: list[Step]) -> dict[str, dict[str, Any]]:
        """Existing rows of memories this batch changes but does not retain, archive or bring back from
        the archive (those rows are built from the events alone; vectors as bytes)."""
        retained = {
            e.memory_id
            for _, e, _ in steps
            if isinstance(e, (MemoryRetained, MemoryArchived))
            or isinstance(e, MemoryRestored)
            and e.revived is not None
        }
        touched = {str(m) for _, _, changed in steps for m, _ in changed} - {str(m) for m in retained}
        kept = {m: dict(self._rows[m]) for m in touched if m in self._rows}  # copies: the batch changes them
        table = self.store.rows_by_key(TABLE, sorted(touched - set(kept)))
        if table is None or table.num_rows == 0:
            return kept
        return kept | stored_rows(table)

    def _dim(self, rows: dict[str, dict[str, Any]]) -> int | None:
        if self._table_dim is not None:  # a table's vector size never changes
            return self._table_dim
        if (dim := self.store.vector_dim(TABLE)) is not None:
            self._table_dim = dim
            return dim
        for row in rows.values():
            return vector_dim(row["vector"])
        return None
