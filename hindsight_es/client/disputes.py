"""The owner's side of the client: a bank's owners, and the disputes waiting for them.

A dispute is a less trusted memory (a document, a tool output, another user, the assistant) that
contradicts a more trusted one (``memory.disputes``). Accepting it publishes a
``DisputeResolutionRequested`` the bank actor turns into ``DisputeResolved`` (the challenger becomes
active and confirmed, superseding the disputed memory); rejecting it forgets the challenger. Only the
bank's owners and operators may resolve: the bank actor ignores anyone else's request, and this client
refuses it first with a clear error. Owners are read from the archive (``BankOwnersSet``, or the
principal of the bank's first user memory); declaring them (``set_owners``) is an operator's action.
Used by ``hindsight-es disputes`` / ``owners`` and the MCP ``trust`` tool.
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
from hindsight_es.errors import AccessDeniedError, ConflictError, InvalidInputError
from hindsight_es.events import DisputeResolutionRequested, SetOwnersRequested
from hindsight_es.memory.trust import is_owner
from hindsight_es.stores.filters import MemoryFilter

_COLUMNS = ("memory_id", "bank_id", "text", "provenance", "source", "disputes", "valid_from", "source_turn_ids")


class DisputedMemory(BaseModel):
    memory_id: str
    bank_id: str
    text: str
    provenance: str | None = None
    source: str | None = None
    source_turn_ids: list[str] = []
    valid_from: datetime
    disputes: str | None = None  # the more trusted memory it contradicts
    disputed_text: str = ""
    reason: str = ""  # why it was disputed, from the MemoryDisputed event (empty until the archive has it)


class BankOwners(BaseModel):
    bank_id: str
    owners: list[str]
    declared: bool  # false: no declaration, the principal of the bank's first user memory owns it


class Disputes:
    def __init__(self, conn: Connection, reader: Reader, writer: Writer) -> None:
        self.conn, self.reader, self.writer = conn, reader, writer

    async def owners(self, bank_id: str) -> BankOwners:
        """The declared owners, else the principal of the bank's first user memory; ``NotFoundError`` for a bank
        with neither a declaration nor anything recorded, as every read of an unknown bank."""

        def collect() -> BankOwners:
            archive = self.conn.archive()
            declared = archive.events(bank_id, types=["BankOwnersSet"])
            if declared:
                payload = json.loads(declared[-1]["payload"])
                return BankOwners(bank_id=bank_id, owners=list(payload["owners"]), declared=True)
            self.reader.require_bank(bank_id)
            for event in archive.events(bank_id, types=["MemoryRetained"]):
                if json.loads(event["payload"]).get("source") == "user":
                    return BankOwners(bank_id=bank_id, owners=[event["actor"]], declared=False)
            return BankOwners(bank_id=bank_id, owners=[], declared=False)

        return await self.conn.read(collect)

    async def set_owners(
        self, bank_id: str, owners: Sequence[str], *, reason: str = "", actor: str = "operator", wait: bool = True
    ) -> Receipt:
        """Declare the bank's owners (principals as events record them, e.g. ``mcp:token-ab12cd34``). An empty
        list is refused: it would make every user turn of the bank another user's, the owner's included."""
        if not owners:
            raise InvalidInputError(
                f"no owners given for bank {bank_id!r}: name at least one principal (the owners action shows them)"
            )
        command = build(SetOwnersRequested, bank_id=bank_id, owners=tuple(owners), reason=reason, actor=actor)
        return await self.writer.submit(command, wait=wait)

    async def disputed(self, bank_id: str | None = None, *, limit: int = 200) -> list[DisputedMemory]:
        """Disputed memories of one bank (or of every bank), oldest first, with what they dispute and why;
        ``NotFoundError`` for a bank with nothing recorded, as every read of an unknown bank."""

        def collect() -> list[DisputedMemory]:
            if bank_id is not None:
                self.reader.require_bank(bank_id)
            stores = self.conn.stores()
            table = stores.lance.scan("memories", MemoryFilter(bank_id, statuses=("disputed",)), _COLUMNS)
            rows = sorted(table.to_pylist(), key=lambda r: (r["valid_from"], r["memory_id"]))[:limit]
            out = []
            for bank in sorted({r["bank_id"] for r in rows}):
                mine = [r for r in rows if r["bank_id"] == bank]
                held = {m.memory_id: m.text for m in self.reader.memory_rows(bank, [r["disputes"] for r in mine])}
                reasons = {
                    e["memory_id"]: json.loads(e["payload"]).get("reason", "")
                    for e in stores.archive.events(bank, types=["MemoryDisputed"])
                }
                out += [
                    DisputedMemory(
                        **r, disputed_text=held.get(r["disputes"], ""), reason=reasons.get(r["memory_id"], "")
                    )
                    for r in mine
                ]
            return sorted(out, key=lambda m: (m.valid_from, m.memory_id))

        return await self.conn.read(collect)

    async def resolve(
        self,
        bank_id: str,
        memory_ids: Sequence[str | UUID],
        *,
        accept: bool,
        reason: str = "",
        actor: str = "operator",
        operator: bool = True,
        wait: bool = True,
    ) -> Receipt:
        """Accept or reject disputed memories of one bank; refuses ids that are not disputed, and a caller
        that is neither an operator (``operator``) nor one of the bank's owners (``actor``)."""
        if not memory_ids:
            raise InvalidInputError("no memory ids given")
        if not operator and not is_owner(actor, (await self.owners(bank_id)).owners):
            raise AccessDeniedError(f"only the owners of bank {bank_id!r} or an operator may resolve its disputes")
        ids = list(dict.fromkeys(memory_uuid(m) for m in memory_ids))
        for memory_id in ids:
            current = await self.reader.memory(bank_id, memory_id)
            if current.status != "disputed":
                raise ConflictError(f"memory {memory_id} is {current.status}, not disputed")
        command = build(
            DisputeResolutionRequested,
            bank_id=bank_id,
            memory_ids=tuple(ids),
            outcome="accept" if accept else "reject",
            reason=reason,
            actor=actor,
            operator=operator,
        )
        return await self.writer.submit(command, wait=wait)
