"""Working-memory projection: consumes ``hindsight.turns``, produces the LanceDB ``turns`` table.

One row per turn (key ``bank/session/turn``), from which the recent turns of a session are read
for prompt context. The batch's positions are written in the same commit as the turns.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pyarrow as pa

from hindsight_es.config import DEFAULT_MAX_TEXT_CHARS, TOPIC_TURNS
from hindsight_es.errors import DecodeError
from hindsight_es.events import TurnRecorded
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.events.validation import check_input
from hindsight_es.log import Record, TopicPartition
from hindsight_es.stores.lance import TURN_SCHEMA, LanceStore
from projections.runner import Batch

TABLE = "turns"


def turn_key(bank_id: str, session_id: str, turn_id: str) -> str:
    return f"{bank_id}/{session_id}/{turn_id}"


class WorkingMemoryProjection:
    name = "working_memory"
    topics: tuple[str, ...] = (TOPIC_TURNS,)
    linger_s = 0.25  # a session's recent turns, not recall's memories: batch the commits a little (runner.run)

    def __init__(
        self, store: LanceStore, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS, partitions: frozenset[int] | None = None
    ) -> None:
        self.store = store
        self.partitions = partitions
        self.max_text_chars = max_text_chars
        self._done: dict[TopicPartition, int] | None = None  # positions as last written (see _apply)

    async def positions(self) -> dict[TopicPartition, int]:
        self._done = None
        return await asyncio.to_thread(self.store.positions, TABLE)

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        await asyncio.to_thread(self.store.ensure_indexes, (TABLE,))

    def _accepted(self, record: Record, event: TurnRecorded) -> bool:
        """The turns the bank actor accepts (others went to dead letters) are the ones worth showing."""
        try:
            check_input(event, topic=record.topic, key=record.key, max_text_chars=self.max_text_chars)
        except DecodeError:
            return False
        return True

    def _apply(self, batch: Batch) -> None:
        done = self._done if self._done is not None else self.store.positions(TABLE)
        rows: dict[str, dict[str, Any]] = {}
        ends: dict[TopicPartition, int] = {}
        for record, event in batch:
            if record.offset < done.get((record.topic, record.partition), 0):
                continue
            ends[(record.topic, record.partition)] = record.offset + 1
            if (
                isinstance(event, TurnRecorded)
                and event.text.strip()
                and not is_erased_turn(event.text, event.metadata)
                and self._accepted(record, event)
            ):
                key = turn_key(event.bank_id, event.session_id, event.turn_id)
                rows[key] = {
                    "turn_key": key,
                    "bank_id": event.bank_id,
                    "session_id": event.session_id,
                    "turn_id": event.turn_id,
                    "role": event.role,
                    "speaker": event.speaker,
                    "source": event.source,
                    "text": event.text,
                    "occurred_at": event.occurred_at,
                    "topic": record.topic,
                    "partition": record.partition,
                    "offset": record.offset,
                }
        self._done = None  # read again from the table if this write fails
        self.store.commit(TABLE, TURN_SCHEMA, pa.Table.from_pylist(list(rows.values()), schema=TURN_SCHEMA), ends)
        self._done = {**done, **ends}  # the only writer of the table: no read-back per batch
