"""Vectors projection: consumes ``hindsight.memories``, produces the LanceDB ``memories`` table.

One row per memory ever retained, keyed by ``memory_id``, with its status (active, superseded,
forgotten, archived, quarantined, retracted); recall reads only active rows. The rows and the
(topic, partition) position rows of a batch are written in one ``merge_insert``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pyarrow as pa

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import MemoryRetained
from hindsight_es.log import TopicPartition
from hindsight_es.memory.lifecycle import changes
from hindsight_es.recall.indexing import index_text
from hindsight_es.stores.lance import POSITION_BANK, LanceStore, memory_schema
from projections.runner import Batch

TABLE = "memories"


def retained_row(event: MemoryRetained) -> dict[str, Any]:
    indexed = index_text(event.text, event.speaker, event.context)
    return {
        "memory_id": str(event.memory_id), "bank_id": event.bank_id, "status": "active", "kind": event.kind,
        "text": event.text, "search_text": indexed, "text_ngram": indexed, "key": event.key, "value": event.value,
        "entities": list(event.entities), "importance": event.importance, "confidence": event.confidence,
        "scope": event.scope, "session_id": event.session_id, "speaker": event.speaker, "source": event.source,
        "trust": event.trust, "actor": event.actor, "source_turn_ids": list(event.source_turn_ids),
        "valid_from": event.valid_from, "valid_to": None, "supersedes": None, "superseded_by": None,
        "embedder": event.embedder, "extractor": event.extractor, "vector": event.embedding(),
    }


def position_row(topic: str, partition: int, next_offset: int, dim: int) -> dict[str, Any]:
    return {"memory_id": f"{POSITION_BANK}/{topic}/{partition}", "bank_id": POSITION_BANK, "status": "position",
            "kind": "position", "text": "", "search_text": "", "text_ngram": "", "entities": [], "source_turn_ids": [],
            "vector": np.zeros(dim, dtype=np.float32), "topic": topic, "partition": partition, "offset": next_offset}


class VectorsProjection:
    name = "vectors"
    topics = (TOPIC_MEMORIES,)

    def __init__(self, store: LanceStore) -> None:
        self.store = store

    async def positions(self) -> dict[TopicPartition, int]:
        return await asyncio.to_thread(self.store.positions, TABLE)

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        await asyncio.to_thread(self.store.ensure_indexes, (TABLE,))

    def _apply(self, batch: Batch) -> None:
        done = self.store.positions(TABLE)
        fresh = [(r, e) for r, e in batch if r.offset >= done.get((r.topic, r.partition), 0)]
        rows = self._load_touched(fresh)
        for record, event in fresh:
            if event is None:
                continue
            if isinstance(event, MemoryRetained):
                rows[str(event.memory_id)] = retained_row(event)
            for memory_id, fields in changes(event):
                row = rows.get(str(memory_id))
                if row is not None:
                    row.update({k: str(v) if k in ("supersedes", "superseded_by") and v else v for k, v in fields.items()})
            if str(getattr(event, "memory_id", "")) in rows:
                rows[str(event.memory_id)].update(topic=record.topic, partition=record.partition, offset=record.offset)
        dim = self._dim(rows)
        if dim is None:
            return  # nothing retained yet: no table to hold positions, redelivery is harmless
        ends: dict[TopicPartition, int] = {}
        for record, _ in fresh:
            ends[(record.topic, record.partition)] = record.offset + 1
        out = list(rows.values()) + [position_row(t, p, o, dim) for (t, p), o in ends.items()]
        self.store.upsert(TABLE, memory_schema(dim), "memory_id", pa.Table.from_pylist(out, schema=memory_schema(dim)))

    def _load_touched(self, batch: Batch) -> dict[str, dict[str, Any]]:
        """Existing rows of memories this batch changes but does not retain."""
        retained = {str(e.memory_id) for _, e in batch if isinstance(e, MemoryRetained)}
        touched = {str(m) for _, e in batch if e is not None for m, _ in changes(e)} - retained
        table = self.store.rows_by_id(TABLE, "memory_id", sorted(touched))
        if table is None:
            return {}
        return {row["memory_id"]: row for row in table.drop_columns(
            [c for c in table.column_names if c.startswith("_")]).to_pylist()}

    def _dim(self, rows: dict[str, dict[str, Any]]) -> int | None:
        table = self.store.table(TABLE)
        if table is not None:
            return table.schema.field("vector").type.list_size
        for row in rows.values():
            return len(row["vector"])
        return None
