"""The operator's side of the client: review what the poisoning guard held back.

Quarantined memories are never recalled. Releasing one publishes a ``ReleaseRequested`` (the bank
actor makes it active, superseding the holder of its key); rejecting publishes a ``RejectRequested``
(it is forgotten with reason "rejected"). Both are events, so the review stays in the memory's history.
Used by ``hindsight-es quarantine`` and the MCP ``quarantine`` tool.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel

from hindsight_es.client.connection import Connection
from hindsight_es.client.inputs import build, memory_uuid
from hindsight_es.client.reader import Reader
from hindsight_es.client.writer import Receipt, Writer
from hindsight_es.errors import InvalidInputError
from hindsight_es.events import RejectRequested, ReleaseRequested
from hindsight_es.stores.filters import MemoryFilter

_COLUMNS = ("memory_id", "bank_id", "kind", "text", "source", "trust", "session_id", "source_turn_ids", "valid_from")


class QuarantinedMemory(BaseModel):
    memory_id: str
    bank_id: str
    kind: str
    text: str
    source: str | None = None
    trust: str | None = None
    session_id: str | None = None
    source_turn_ids: list[str] = []
    valid_from: datetime
    reason: str = ""  # the guard's, from the MemoryQuarantined event (empty until the archive has it)


class Operator:
    def __init__(self, conn: Connection, reader: Reader, writer: Writer) -> None:
        self.conn, self.reader, self.writer = conn, reader, writer

    async def quarantined(self, bank_id: str | None = None, *, limit: int = 200) -> list[QuarantinedMemory]:
        """Quarantined memories of one bank (or of every bank), oldest first, each with why it was quarantined."""

        def collect() -> list[QuarantinedMemory]:
            stores = self.conn.stores()
            table = stores.lance.scan("memories", MemoryFilter(bank_id, statuses=("quarantined",)), _COLUMNS)
            rows = (
                sorted(table.to_pylist(), key=lambda r: (r["valid_from"], r["memory_id"]))[:limit]
                if table.num_rows
                else []
            )
            reasons: dict[str, str] = {}
            for bank in sorted({r["bank_id"] for r in rows}):
                for event in stores.archive.events(bank, types=["MemoryQuarantined"]):
                    reasons[event["memory_id"]] = json.loads(event["payload"]).get("reason", "")
            return [QuarantinedMemory(**r, reason=reasons.get(r["memory_id"], "")) for r in rows]

        return await self.conn.read(collect)

    async def review(
        self,
        bank_id: str,
        memory_ids: Sequence[str | UUID],
        *,
        release: bool,
        reason: str = "",
        actor: str = "operator",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Release (``release=True``) or reject quarantined memories of one bank; refuses ids that are not
        quarantined."""
        if not memory_ids:
            raise InvalidInputError("no memory ids given")
        ids = list(dict.fromkeys(memory_uuid(m) for m in memory_ids))
        for memory_id in ids:
            current = await self.reader.memory(bank_id, memory_id)
            if current.status != "quarantined":
                raise InvalidInputError(f"memory {memory_id} is {current.status}, not quarantined")
        kind = ReleaseRequested if release else RejectRequested
        command = build(kind, bank_id=bank_id, memory_ids=tuple(ids), reason=reason, actor=actor)
        return await self.writer.submit(command, wait=wait, timeout_s=timeout_s)
