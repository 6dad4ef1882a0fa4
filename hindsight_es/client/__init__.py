"""Python client: publish turns and commands to either log, read the hot store and the archive.

    async with Hindsight(Settings()) as hs:
        await hs.record_turn("alice", "from now on use FedEx", session_id="s1")
        hits = await hs.recall("alice", "which carrier?")

``Hindsight`` is a facade over four roles that share one ``Connection`` (the log, the embedder, the
current stores): ``hs.writer`` (publish, retain, forget, correct, the lifecycle commands, waiting for
outcomes), ``hs.reader`` (recall, context, history, working memory, stats), ``hs.browser`` (filtered
pages of memories, banks, sessions, why a hit came back), ``hs.operator`` (quarantine review, rollback,
state as of a time) and ``hs.disputes`` (a bank's owners, and their disputes). The facade forwards the
everyday calls; the rest are on the roles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from hindsight_es.client.browse import Browser
from hindsight_es.client.connection import Connection, Stores
from hindsight_es.client.disputes import Disputes
from hindsight_es.client.inputs import build, check_text, make_turn, memory_uuid, turn_event_id
from hindsight_es.client.operator import Operator, QuarantinedMemory
from hindsight_es.client.reader import Reader
from hindsight_es.client.writer import Receipt, Writer
from hindsight_es.config import Settings
from hindsight_es.embedding import Embedder
from hindsight_es.events import Event, TurnRecorded
from hindsight_es.log import EventLog
from hindsight_es.recall.context import ContextBlock
from hindsight_es.recall.models import MemoryView, RecallHit

__all__ = [
    "Hindsight",
    "QuarantinedMemory",
    "Receipt",
    "Stores",
    "build",
    "check_text",
    "make_turn",
    "memory_uuid",
    "turn_event_id",
]


class Hindsight:
    """Client over the configured log (embedded or Kafka), the LanceDB hot store and the Parquet archive."""

    def __init__(self, settings: Settings, *, log: EventLog | None = None, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.conn = Connection(settings, log=log, embedder=embedder)
        self.log = self.conn.log
        self.reader = Reader(self.conn)
        self.writer = Writer(self.conn, self.reader)
        self.operator = Operator(self.conn, self.reader, self.writer)
        self.browser = Browser(self.conn, self.reader)
        self.disputes = Disputes(self.conn, self.reader, self.writer)

    async def __aenter__(self) -> Hindsight:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        await self.conn.start()

    async def close(self) -> None:
        await self.reader.close()
        await self.conn.close()

    @property
    def embedder(self) -> Embedder:
        return self.conn.embedder()

    def stores(self) -> Stores:
        """The current generation's hot store and archive (for tools that read them directly)."""
        return self.conn.stores()

    # ------------------------------------------------------------ writes (``writer``)

    async def publish(
        self, events: Sequence[Event], *, wait: bool = False, timeout_s: float | None = None
    ) -> bool | None:
        return await self.writer.publish(events, wait=wait, timeout_s=timeout_s)

    async def record_turn(self, bank_id: str, text: str, **fields: Any) -> TurnRecorded:
        return await self.writer.record_turn(bank_id, text, **fields)

    async def send(self, command: Event) -> Event:
        await self.writer.publish([command])
        return command

    async def submit(self, command: Event, *, wait: bool = True, timeout_s: float | None = None) -> Receipt:
        return await self.writer.submit(command, wait=wait, timeout_s=timeout_s)

    async def retain(self, bank_id: str, text: str, **fields: Any) -> Receipt:
        return await self.writer.retain(bank_id, text, **fields)

    async def forget(self, bank_id: str, memory_id: str | UUID, **options: Any) -> Receipt:
        return await self.writer.forget(bank_id, memory_id, **options)

    async def correct(self, bank_id: str, memory_id: str | UUID, text: str, **options: Any) -> Receipt:
        return await self.writer.correct(bank_id, memory_id, text, **options)

    async def restore(self, bank_id: str, memory_id: str | UUID, **options: Any) -> Receipt:
        return await self.writer.restore(bank_id, memory_id, **options)

    # ------------------------------------------------------------ reads (``reader``)

    async def recall(self, bank_id: str, query: str, **options: Any) -> list[RecallHit]:
        return await self.reader.recall(bank_id, query, **options)

    async def context(self, bank_id: str, session_id: str, message: str, **options: Any) -> ContextBlock:
        return await self.reader.context(bank_id, session_id, message, **options)

    async def memory(self, bank_id: str, memory_id: str | UUID) -> MemoryView:
        return await self.reader.memory(bank_id, memory_id)

    async def history(self, bank_id: str, memory_id: str | UUID) -> dict[str, Any]:
        return await self.reader.history(bank_id, memory_id)

    async def list_banks(self) -> list[str]:
        return await self.reader.list_banks()

    async def bank_stats(self, bank_id: str) -> dict[str, Any]:
        return await self.reader.bank_stats(bank_id)
