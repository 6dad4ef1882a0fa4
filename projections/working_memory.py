"""Working-memory projection: consumes ``hindsight.turns``, produces the LanceDB ``turns`` table.

One row per turn (key ``bank/session/turn``), from which the recent turns of a session are read
for prompt context. The batch's positions are written in the same commit as the turns.

It reads ``hindsight.memories`` too, for ``ContentErased`` alone: the rows of the erased turns leave the
table, with every older version of it (this projection is the table's only writer, so it is the one
that drops them). Its positions on that topic are stored like those on its own topic (a rebuild and
``replay verify`` read how far each table stands from them), but a batch that changes no row (memory
events other than an erasure: most of that topic) is not a commit of its own: its positions are kept
in memory and written with the next commit, or by the next maintenance pass. Until then the stored
position trails; a restart reads those records again, and they change nothing again.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pyarrow as pa

from hindsight_es.config import DEFAULT_MAX_TEXT_CHARS, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.errors import DecodeError
from hindsight_es.events import ContentErased, TurnRecorded
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.events.validation import check_input
from hindsight_es.log import Record, TopicPartition
from hindsight_es.stores.filters import TurnFilter
from hindsight_es.stores.lance import TURN_SCHEMA, LanceStore, erase_rows
from projections.runner import Batch

TABLE = "turns"


def turn_key(bank_id: str, session_id: str, turn_id: str) -> str:
    return f"{bank_id}/{session_id}/{turn_id}"


class WorkingMemoryProjection:
    name = "working_memory"
    topics: tuple[str, ...] = (TOPIC_TURNS, TOPIC_MEMORIES)
    linger_s = 0.25  # a session's recent turns, not recall's memories: batch the commits a little (runner.run)

    def __init__(
        self, store: LanceStore, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS, partitions: frozenset[int] | None = None
    ) -> None:
        self.store = store
        self.partitions = partitions
        self.max_text_chars = max_text_chars
        self._done: dict[TopicPartition, int] | None = None  # positions as last applied (see _apply)
        self._unwritten: dict[TopicPartition, int] = {}  # positions of batches that changed no row

    async def positions(self) -> dict[TopicPartition, int]:
        self._done, self._unwritten = None, {}
        return await asyncio.to_thread(self.store.positions, TABLE)

    async def apply(self, batch: Batch) -> None:
        await asyncio.to_thread(self._apply, batch)

    async def maintain(self) -> None:
        await self.write_positions()
        await asyncio.to_thread(self.store.ensure_indexes, (TABLE,))

    async def write_positions(self) -> None:
        """Store the positions of the batches that changed no row (``replay_into`` calls it at the end)."""
        if self._unwritten and self._done is not None:
            await asyncio.to_thread(self._commit, {}, {})

    def _accepted(self, record: Record, event: TurnRecorded) -> bool:
        """The turns the bank actor accepts (others went to dead letters) are the ones worth showing."""
        try:
            check_input(event, topic=record.topic, key=record.key, max_text_chars=self.max_text_chars)
        except DecodeError:
            return False
        return True

    def _apply(self, batch: Batch) -> None:
        done = self._done if self._done is not None else self.store.positions(TABLE)
        rows, ends, erased = self.rows_of(batch, done)
        gone = self.erased_keys(erased, rows)
        if not rows and not erased:  # nothing to write but positions (see the module's docstring)
            self._done = {**done, **ends}
            self._unwritten.update(ends)
            return
        self._done = done
        erase_rows(self.store, TABLE, gone)  # with every older version, before the positions pass the erasure
        self._commit(rows, ends)

    def _commit(self, rows: dict[str, dict[str, Any]], ends: dict[TopicPartition, int]) -> None:
        done, positions = self._done or {}, {**self._unwritten, **ends}
        self._done = None  # read again from the table if this write fails
        table = pa.Table.from_pylist(list(rows.values()), schema=TURN_SCHEMA)
        self.store.commit(TABLE, TURN_SCHEMA, table, positions, first=True)
        self._done, self._unwritten = {**done, **positions}, {}  # the only writer: no read-back per batch

    def rows_of(
        self, batch: Batch, done: dict[TopicPartition, int]
    ) -> tuple[dict[str, dict[str, Any]], dict[TopicPartition, int], list[ContentErased]]:
        """The rows of the batch's turns past ``done`` (by turn key, the first one of a key kept: a turn id is
        decided once, and the bank actor decides its first words), the positions after them, and the
        erasures among them."""
        rows: dict[str, dict[str, Any]] = {}
        ends: dict[TopicPartition, int] = {}
        erased: list[ContentErased] = []
        for record, event in batch:
            if record.offset < done.get((record.topic, record.partition), 0):
                continue
            ends[(record.topic, record.partition)] = record.offset + 1
            if isinstance(event, ContentErased):
                erased.append(event)
            elif (
                isinstance(event, TurnRecorded)
                and event.text.strip()
                and not is_erased_turn(event.text, event.metadata)
                and self._accepted(record, event)
            ):
                key = turn_key(event.bank_id, event.session_id, event.turn_id)
                if key in rows:
                    continue  # the same turn id again, later: its first words stand (``first`` in the commit)
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
        return rows, ends, erased

    def erased_keys(self, erased: list[ContentErased], rows: dict[str, dict[str, Any]]) -> list[str]:
        """The keys of the table's rows of the erased turns; this batch's rows of them are left out."""
        keys: set[str] = set()
        by_bank: dict[str, set[str]] = {}  # one scan of a bank's rows for all its erasures (a whole bank's: hundreds)
        for event in erased:
            by_bank.setdefault(event.bank_id, set()).update(event.turn_ids)
        for bank_id, turns in by_bank.items():
            for key in [k for k, row in rows.items() if row["bank_id"] == bank_id and row["turn_id"] in turns]:
                del rows[key]
            found = self.store.scan(TABLE, TurnFilter(bank_id), ["turn_key", "turn_id"]) if turns else None
            if found is not None and found.num_rows:
                pairs = zip(found.column("turn_key").to_pylist(), found.column("turn_id").to_pylist(), strict=True)
                keys.update(key for key, turn in pairs if turn in turns)
        return sorted(keys)
