"""Python client: publish turns and commands to either log, recall from the hot store.

    async with Hindsight(Settings()) as hs:
        await hs.record_turn("alice", "from now on use FedEx", session_id="s1")
        hits = await hs.recall("alice", "which carrier?")
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from pydantic import ValidationError

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.errors import InvalidInputError, LogError, NotFoundError
from hindsight_es.events import Event, TurnRecorded, encode
from hindsight_es.log import EventLog, open_log
from hindsight_es.recall import RecallHit, recall
from hindsight_es.stores.lance import POSITION_BANK, LanceStore, quote

_TURN_NS = uuid5(NAMESPACE_URL, "https://hindsight.local/turns")


def turn_event_id(bank_id: str, session_id: str, turn_id: str) -> UUID:
    """Stable id of a turn, so publishing the same turn twice is decided once."""
    return uuid5(_TURN_NS, f"{bank_id}/{session_id}/{turn_id}")


def make_turn(settings: Settings, bank_id: str, text: str, *, session_id: str = "default",
              turn_id: str | None = None, occurred_at: datetime | None = None, **fields: Any) -> TurnRecorded:
    """Validate and build a ``TurnRecorded``; raises ``InvalidInputError`` with the reason."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("text is empty")
    if len(text) > settings.max_text_chars:
        raise InvalidInputError(f"text of {len(text)} chars exceeds the limit of {settings.max_text_chars} "
                                "(HINDSIGHT_MAX_TEXT_CHARS)")
    turn_id = turn_id or str(uuid4())
    try:
        extra = {"occurred_at": occurred_at} if occurred_at is not None else {}
        return TurnRecorded(event_id=turn_event_id(bank_id, session_id, turn_id), bank_id=bank_id,
                            session_id=session_id, turn_id=turn_id, text=text, **extra, **fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInputError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


class Hindsight:
    """Client over the configured log (embedded or Kafka) and the LanceDB hot store."""

    def __init__(self, settings: Settings, *, log: EventLog | None = None, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.log = log or open_log(settings)
        self._own_log = log is None
        self._embedder = embedder
        self._store: LanceStore | None = None

    async def __aenter__(self) -> Hindsight:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        if self._own_log:
            await asyncio.wait_for(self.log.start(), self.settings.request_timeout_s)

    async def close(self) -> None:
        if self._own_log:
            await self.log.close()

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedder)
        return self._embedder

    @property
    def store(self) -> LanceStore:
        if self._store is None:
            self._store = LanceStore(self.settings.lance_path)
        return self._store

    # ------------------------------------------------------------ writes

    async def publish(self, events: Sequence[Event]) -> None:
        """Append events to their topic, grouped per bank, in order."""
        by_topic_bank: dict[tuple[str, str], list[bytes]] = defaultdict(list)
        for event in events:
            topic = TOPIC_TURNS if isinstance(event, TurnRecorded) else TOPIC_COMMANDS
            by_topic_bank[(topic, event.bank_id)].append(encode(event))
        try:
            for (topic, bank_id), values in by_topic_bank.items():
                await asyncio.wait_for(self.log.append(topic, bank_id, values), self.settings.request_timeout_s)
        except TimeoutError as exc:
            raise LogError(f"the log did not accept the write within {self.settings.request_timeout_s}s") from exc

    async def record_turn(self, bank_id: str, text: str, **fields: Any) -> TurnRecorded:
        turn = make_turn(self.settings, bank_id, text, **fields)
        await self.publish([turn])
        return turn

    async def send(self, command: Event) -> Event:
        await self.publish([command])
        return command

    # ------------------------------------------------------------ reads

    def banks(self) -> list[str]:
        found: set[str] = set()
        for name in ("memories", "turns"):
            table = self.store.scan(name, f"bank_id != {quote(POSITION_BANK)}", ["bank_id"])
            if table.num_rows:
                found.update(table.column("bank_id").to_pylist())
        return sorted(found)

    def require_bank(self, bank_id: str) -> None:
        where = f"bank_id = {quote(bank_id)}"
        if not any(self.store.scan(n, where, ["bank_id"], limit=1).num_rows for n in ("memories", "turns")):
            raise NotFoundError(f"unknown bank {bank_id!r}: nothing has been recorded in it yet")

    async def recall(self, bank_id: str, query: str, *, limit: int = 10, **filters: Any) -> list[RecallHit]:
        if not query.strip():
            raise InvalidInputError("query is empty")
        return await asyncio.to_thread(self._recall, bank_id, query, limit, filters)

    def _recall(self, bank_id: str, query: str, limit: int, filters: dict[str, Any]) -> list[RecallHit]:
        self.require_bank(bank_id)
        return recall(self.store, self.embedder, bank_id, query, limit=limit, **filters)
