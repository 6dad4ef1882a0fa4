"""The operator's side of the client: review what the poisoning guard held back.

Quarantined memories are never recalled. Releasing one publishes a ``ReleaseRequested`` (the bank
actor makes it active, superseding the holder of its key); rejecting publishes a ``RejectRequested``
(it is forgotten with reason "rejected"). Both are events, so the review stays in the memory's history.
Used by ``hindsight-es quarantine`` and the MCP ``quarantine`` tool.

Rollbacks (``hindsight_es.history``) are the operator's too: ``rollback_plan`` is the dry run (what the
actor will decide, on the state folded from the log; it writes nothing), ``rollback`` publishes the
``RetractionRequested`` and waits for its ``SourceRetracted``, ``undo_rollback`` brings back what one
took away, and ``state_as_of`` folds a bank's memory events up to a time. ``erase`` erases content for
good (``client.erasure``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel

from hindsight_es.client.connection import Connection
from hindsight_es.client.erasure import Drive, Erasure, erase, erase_bank
from hindsight_es.client.inputs import build, memory_uuid
from hindsight_es.client.reader import Reader
from hindsight_es.client.writer import Receipt, Writer
from hindsight_es.errors import ConflictError, InvalidInputError, NotFoundError
from hindsight_es.events import Event, RejectRequested, ReleaseRequested, RetractionRequested, SourceRetracted
from hindsight_es.history import Plan, memory_events, plan, undo, undone
from hindsight_es.memory import BankState, fold
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
                raise ConflictError(f"memory {memory_id} is {current.status}, not quarantined")
        kind = ReleaseRequested if release else RejectRequested
        command = build(kind, bank_id=bank_id, memory_ids=tuple(ids), reason=reason, actor=actor)
        return await self.writer.submit(command, wait=wait, timeout_s=timeout_s)

    # ------------------------------------------------------------ rollback

    async def rollback_plan(self, command: RetractionRequested) -> Plan:
        """The dry run of a rollback: what it retracts and what comes back; changes nothing. ``NotFoundError``
        for a bank without memories; ``InvalidInputError`` for a session the bank never had (a mistyped id
        would plan nothing, and a rollback of it record a SourceRetracted of nothing), at every door."""
        from hindsight_es.client.browse import Browser

        await self.conn.start()
        planned = await self.conn.logged(plan(self.conn.log, command))
        session = command.session_id
        if session is not None and not await Browser(self.conn, self.reader).has_session(command.bank_id, session):
            raise InvalidInputError(
                f"no session {session!r} in bank {command.bank_id!r}: check the session id and the bank"
            )
        return planned

    async def rollback(
        self, command: RetractionRequested, *, wait: bool = True, timeout_s: float | None = None
    ) -> tuple[Receipt, SourceRetracted | None]:
        """Publish a rollback; with ``wait``, return once its ``SourceRetracted`` is decided and projected."""
        await self.rollback_plan(command)  # refuses a bank without memories
        receipt = await self.writer.submit(command, wait=wait, timeout_s=timeout_s)
        done = None
        if receipt.ready:
            events = await self.conn.logged(memory_events(self.conn.log, command.bank_id))
            done = next(
                (e for e in events if isinstance(e, SourceRetracted) and e.causation_id == command.event_id), None
            )
        return receipt, done

    async def undo_rollback(
        self, bank_id: str, retraction_id: str | UUID, *, reason: str = "", actor: str = "operator", wait: bool = True
    ) -> tuple[Receipt | None, SourceRetracted, tuple[UUID, ...]]:
        """Bring back what a rollback took out of use (its ``SourceRetracted`` id, or its request's;
        ``history.rollback.undone``), with the memories the undo names; ``None`` for the receipt when none of
        them is still out."""
        found, events = await self._rollback(bank_id, retraction_id)
        state, command = fold(bank_id, events), undo(found, events, reason=reason, actor=actor)
        if all(state.memories[m].status == "active" for m in command.memory_ids):
            return None, found, command.memory_ids  # nothing it took out of use is still out
        receipt = await self.writer.submit(command, wait=wait)
        return receipt, found, command.memory_ids

    async def to_undo(self, bank_id: str, retraction_id: str | UUID) -> tuple[UUID, ...]:
        """The memories an undo of the rollback would bring back now: those it took out of use that are not
        active again (none: nothing left to undo)."""
        found, events = await self._rollback(bank_id, retraction_id)
        state = fold(bank_id, events)
        return tuple(m for m in undone(found, events) if state.memories[m].status != "active")

    async def _rollback(self, bank_id: str, retraction_id: str | UUID) -> tuple[SourceRetracted, list[Event]]:
        wanted = memory_uuid(retraction_id)
        await self.conn.start()
        events = await self.conn.logged(memory_events(self.conn.log, bank_id))
        found = [e for e in events if isinstance(e, SourceRetracted) and wanted in (e.event_id, e.causation_id)]
        if not found:
            raise NotFoundError(f"no rollback {wanted} in bank {bank_id!r}")
        return found[0], events

    async def erase(
        self,
        bank_id: str,
        *,
        session_id: str | None = None,
        turn_id: str | None = None,
        memory_id: str | UUID | None = None,
        reason: str,
        actor: str = "operator",
        wait: bool = True,
        timeout_s: float | None = None,
        drive: Drive | None = None,
    ) -> Erasure:
        """Erase a session, a turn (and the memories from it) or a memory for good (``client.erasure``)."""
        return await erase(
            self.conn,
            self.writer,
            bank_id,
            session_id=session_id,
            turn_id=turn_id,
            memory_id=memory_id,
            reason=reason,
            actor=actor,
            wait=wait,
            timeout_s=timeout_s,
            drive=drive,
        )

    async def erase_bank(
        self,
        bank_id: str,
        *,
        reason: str,
        actor: str = "operator",
        wait: bool = True,
        timeout_s: float | None = None,
        drive: Drive | None = None,
        done: Callable[[str, Erasure, int, int], object] = lambda *_: None,
    ) -> list[Erasure]:
        """Erase everything the bank holds for good, a session at a time (``client.erasure.erase_bank``)."""
        return await erase_bank(
            self.conn,
            self.writer,
            bank_id,
            reason=reason,
            actor=actor,
            wait=wait,
            timeout_s=timeout_s,
            drive=drive,
            done=done,
        )

    async def state_as_of(self, bank_id: str, as_of: datetime | None = None) -> BankState:
        """The bank's memories as they stood at ``as_of`` (event time, inclusive), folded from the log."""
        await self.conn.start()
        events = await self.conn.logged(memory_events(self.conn.log, bank_id))
        if not events:
            raise NotFoundError(f"bank {bank_id!r} has no memories in the log")
        return fold(bank_id, events, as_of=as_of)
