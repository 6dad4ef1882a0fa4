"""Archive projection: consumes every topic (turns, commands, memories, dead-letter), produces the
cold Parquet archive (``ArchiveStore``): one row per record, keyed by (topic, partition, offset).

Records that cannot be decoded are archived too (type NULL, raw bytes as payload). One file per
topic-partition per batch; its name is the position, so redelivery and rebuild need no other state.
"""

from __future__ import annotations

import asyncio
import base64
from itertools import repeat
from typing import Any
from uuid import UUID

import numpy as np
import pyarrow as pa
from pydantic import TypeAdapter

from hindsight_es.config import ALL_TOPICS
from hindsight_es.events import ContentErased, Event, MemoryRetained, vectors
from hindsight_es.log import Record, TopicPartition
from hindsight_es.stores.archive import SCHEMA, ArchiveStore
from projections.erasure import erase_archived, erase_table
from projections.runner import Batch

_ENVELOPE = ("event_id", "type", "schema_version", "bank_id", "occurred_at", "causation_id", "actor")
_SCALARS = ("memory_id", "superseded_by", "session_id", "turn_id", "kind", "text")
_LISTS = ("source_turn_ids", "retracted_memory_ids", "restored_memory_ids")
_NO_VECTOR = {"vector"}
_NOTHING: dict[str, Any] = {}  # the fields of an undecodable record
# UUIDs in the events (``UUID`` fields, or tuples of them: the event models say so), text in the archive:
# converted a column at a time by pydantic-core, whose JSON form of a UUID is ``str(uuid)`` (a Python
# ``str`` per cell cost a rebuild's archive about 2 us a record).
_IDS = {"event_id", "causation_id", "memory_id", "superseded_by", "retracted_memory_ids", "restored_memory_ids"}
_AS_TEXT: TypeAdapter[list[Any]] = TypeAdapter(list[Any])


class ArchiveProjection:
    """Every topic by default; with ``topics``, only those (a rebuild splits the archive between processes:
    files and positions are per topic-partition, so two projections of disjoint topics share a store)."""

    name = "archive"
    linger_s = 1.0  # history, audits and archived recall read it, not live recall: batch its files (runner.run)

    def __init__(
        self, store: ArchiveStore, topics: tuple[str, ...] = ALL_TOPICS, partitions: frozenset[int] | None = None
    ) -> None:
        self.store = store
        self.topics = topics
        self.partitions = partitions

    async def positions(self) -> dict[TopicPartition, int]:
        """Where the archive stands (read at start and after a failure: leftovers of killed writes go then)."""
        await asyncio.to_thread(self.store.sweep)
        return {
            tp: n
            for tp, n in (await asyncio.to_thread(self.store.positions)).items()
            if tp[0] in self.topics and (self.partitions is None or tp[1] in self.partitions)
        }

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        """Merge small files once enough pile up (queries return the same rows before and after); remove
        what killed writers left."""
        await asyncio.to_thread(self.store.sweep)
        await asyncio.to_thread(self.store.compact_all, min_files=16, topics=self.topics, partitions=self.partitions)

    def _apply(self, batch: Batch) -> None:
        # An erasure rewrites the files written before it first, and blanks this batch's rows of it too,
        # so a reader waiting on a position past it (``client.erasure``) finds every file without it.
        erased = [event for _, event in batch if isinstance(event, ContentErased)]
        erase_archived(self.store, erased, self.topics, self.partitions, archive_table)
        for (topic, partition), items in _groups(batch).items():
            start = self.store.position(topic, partition)
            fresh = [item for item in items if item[0].offset >= start]
            if fresh:
                table = erase_table(archive_table(fresh), erased, archive_table)
                self.store.write(table, topic, partition, fresh[0][0].offset, fresh[-1][0].offset)


def _groups(batch: Batch) -> dict[TopicPartition, list[tuple[Record, Event | None]]]:
    """Records per topic-partition, in offset order, each offset once."""
    groups: dict[TopicPartition, dict[int, tuple[Record, Event | None]]] = {}
    for record, event in batch:
        groups.setdefault((record.topic, record.partition), {}).setdefault(record.offset, (record, event))
    return {tp: [by_offset[o] for o in sorted(by_offset)] for tp, by_offset in groups.items()}


def archive_table(items: list[tuple[Record, Event | None]]) -> pa.Table:
    """One Arrow table in ``SCHEMA`` from decoded records, built column by column (a comprehension
    per column, not a Python call per cell: this is a rebuild's busiest loop)."""
    records = [record for record, _ in items]
    fields = [_NOTHING if event is None else event.__dict__ for _, event in items]  # pydantic field values
    cells: dict[str, list[Any]] = {
        "topic": [r.topic for r in records],
        "partition": [r.partition for r in records],
        "offset": [r.offset for r in records],
        "timestamp_ms": [r.timestamp_ms for r in records],
        "key": [r.key for r in records],
        "payload": [_raw(r.value) if e is None else e.model_dump_json(exclude=_NO_VECTOR) for r, e in items],
    }
    for name in (*_ENVELOPE, *_SCALARS, *_LISTS):
        values = list(map(dict.get, fields, repeat(name)))  # no Python frame per cell
        cells[name] = _AS_TEXT.dump_python(values, mode="json") if name in _IDS else values
    vectors = [event.vector if isinstance(event, MemoryRetained) else None for _, event in items]
    arrays = [_vector_array(vectors) if f.name == "vector" else _array(cells[f.name], f.type) for f in SCHEMA]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _array(values: list[Any], type_: pa.DataType) -> pa.Array:
    """``values`` as an Arrow array; ids (UUIDs), alone or in lists, become their text."""
    try:
        return pa.array(values, type_)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([_text(v) for v in values], type_)


def _text(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    return [_text(v) for v in value] if isinstance(value, (tuple, list)) else value


def _raw(value: bytes) -> str:
    """Undecodable bytes kept losslessly: the text if it is UTF-8, else ``base64:`` + base64."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return "base64:" + base64.b64encode(value).decode("ascii")


def _vector_array(packed: list[bytes | None]) -> pa.Array:
    """Packed vectors (or None) -> list<int8> of their codes (``vectors.codes``: the direction a cosine
    search needs, a byte per dimension), without a Python call per element."""
    codes = [None if p is None else vectors.codes(p) for p in packed]
    lengths = np.fromiter((0 if c is None else len(c) for c in codes), dtype=np.int64, count=len(codes))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    values = np.concatenate([c for c in codes if c is not None] or [np.zeros(0, np.int8)])
    mask = pa.array([c is None for c in codes], pa.bool_())
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.int8()), mask=mask)
