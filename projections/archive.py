"""Archive projection: consumes every topic (turns, commands, memories, dead-letter), produces the
cold Parquet archive (``ArchiveStore``): one row per record, keyed by (topic, partition, offset).

Records that cannot be decoded are archived too (type NULL, raw bytes as payload). One file per
topic-partition per batch; its name is the position, so redelivery and rebuild need no other state.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Any
from uuid import UUID

import numpy as np
import pyarrow as pa

from hindsight_es.config import ALL_TOPICS
from hindsight_es.events import Event, MemoryRetained
from hindsight_es.log import Record, TopicPartition
from hindsight_es.stores.archive import SCHEMA, ArchiveStore
from projections.runner import Batch

_ENVELOPE = ("event_id", "type", "schema_version", "bank_id", "occurred_at", "causation_id", "actor")
_SCALARS = ("memory_id", "superseded_by", "session_id", "turn_id", "kind", "text")
_LISTS = ("source_turn_ids", "retracted_memory_ids", "restored_memory_ids")
_COLUMNS = ("topic", "partition", "offset", "timestamp_ms", "key", *_ENVELOPE, *_SCALARS, *_LISTS, "payload")
_UNDECODED = (None,) * (len(_ENVELOPE) + len(_SCALARS) + len(_LISTS))
_NO_VECTOR = {"vector"}


class ArchiveProjection:
    name = "archive"
    topics = ALL_TOPICS

    def __init__(self, store: ArchiveStore) -> None:
        self.store = store

    async def positions(self) -> dict[TopicPartition, int]:
        return await asyncio.to_thread(self.store.positions)

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        """Merge small files once enough pile up; queries return the same rows before and after."""
        await asyncio.to_thread(self.store.compact_all, min_files=16)

    def _apply(self, batch: Batch) -> None:
        for (topic, partition), items in _groups(batch).items():
            start = self.store.position(topic, partition)
            fresh = [item for item in items if item[0].offset >= start]
            if fresh:
                self.store.write(archive_table(fresh), topic, partition, fresh[0][0].offset, fresh[-1][0].offset)


def _groups(batch: Batch) -> dict[TopicPartition, list[tuple[Record, Event | None]]]:
    """Records per topic-partition, in offset order, each offset once."""
    groups: dict[TopicPartition, dict[int, tuple[Record, Event | None]]] = {}
    for record, event in batch:
        groups.setdefault((record.topic, record.partition), {}).setdefault(record.offset, (record, event))
    return {tp: [by_offset[o] for o in sorted(by_offset)] for tp, by_offset in groups.items()}


def archive_table(items: list[tuple[Record, Event | None]]) -> pa.Table:
    """One Arrow table in ``SCHEMA`` from decoded records, built column by column in one pass."""
    columns: dict[str, list[Any]] = {name: [] for name in _COLUMNS}
    fill = [columns[name].append for name in _COLUMNS]
    vectors: list[bytes | None] = []
    for record, event in items:
        for append, value in zip(fill, _cells(record, event), strict=True):
            append(value)
        vectors.append(event.vector if isinstance(event, MemoryRetained) else None)
    arrays = [_vector_array(vectors) if f.name == "vector" else pa.array(columns[f.name], f.type) for f in SCHEMA]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _cells(record: Record, event: Event | None) -> tuple[Any, ...]:
    head = (record.topic, record.partition, record.offset, record.timestamp_ms, record.key)
    if event is None:
        return (*head, *_UNDECODED, _raw(record.value))
    fields = event.__dict__  # a pydantic model's field values; .get avoids AttributeError for absent fields
    envelope = tuple(_text(fields[name]) for name in _ENVELOPE)
    scalars = tuple(_text(fields.get(name)) for name in _SCALARS)
    lists = tuple(_ids(fields.get(name)) for name in _LISTS)
    return (*head, *envelope, *scalars, *lists, event.model_dump_json(exclude=_NO_VECTOR))


def _text(value: Any) -> Any:
    return str(value) if isinstance(value, UUID) else value


def _ids(values: tuple[Any, ...] | None) -> list[str] | None:
    return None if values is None else [str(v) for v in values]


def _raw(value: bytes) -> str:
    """Undecodable bytes kept losslessly: the text if it is UTF-8, else ``base64:`` + base64."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return "base64:" + base64.b64encode(value).decode("ascii")


def _vector_array(vectors: list[bytes | None]) -> pa.Array:
    """float32 little-endian bytes (or None) -> list<float32>, without a Python float per element."""
    lengths = np.fromiter((0 if v is None else len(v) // 4 for v in vectors), dtype=np.int64, count=len(vectors))
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    values = np.frombuffer(b"".join(v for v in vectors if v is not None), dtype="<f4")
    mask = pa.array([v is None for v in vectors], pa.bool_())
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(values, pa.float32()), mask=mask)
