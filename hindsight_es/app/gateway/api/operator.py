"""Operator routes (a token for every bank): the quarantine review, rollback (dry run, apply, undo), erase
(crypto-shredding, ``client.erasure``) and a bank's state as of a time. Each is an event in the log
(``ReleaseRequested``, ``RetractionRequested``, ``ErasureRequested``, …),
so every review and rollback stays in the memories' history."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from typing import Annotated, cast
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query

from hindsight_es.app.gateway.api.access import Caller, Gate, Operator
from hindsight_es.app.gateway.api.memories import BankPath
from hindsight_es.app.gateway.api.problems import PROBLEMS, known_query
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import planned_of, quarantined_of
from hindsight_es.client import Hindsight
from hindsight_es.events import RejectRequested, ReleaseRequested, RetractionRequested
from hindsight_es.history import retraction
from hindsight_es.remote.erasure import BankErasureResult, EraseBankRequest, EraseRequest, ErasureResult
from hindsight_es.remote.models import (
    QuarantineResult,
    RollbackPlan,
    RollbackResult,
    StateAsOf,
    UndoResult,
)
from hindsight_es.remote.requests import (
    ID_PATTERN,
    ReviewRequest,
    RollbackRequest,
    RollbackSelection,
    Time,
    UndoRequest,
)


def router(hs: Hindsight, gate: Gate) -> APIRouter:
    api = APIRouter(
        prefix="/v1",
        tags=["operator"],
        responses=PROBLEMS,
        dependencies=[Depends(known_query)],
        route_class=gate.route(),
    )

    @api.get("/quarantine", response_model=QuarantineResult, summary="Quarantined memories")
    async def quarantined(
        access: Operator,
        bank_id: Annotated[str | None, Query(min_length=1, max_length=128, pattern=ID_PATTERN)] = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    ) -> QuarantineResult:
        """What the poisoning guard held back (never recalled), oldest first, each with the guard's reason."""
        found = await hs.operator.quarantined(bank_id, limit=limit)
        return QuarantineResult(bank_id=bank_id, action="list", memories=[quarantined_of(m) for m in found])

    async def review(bank_id: str, body: ReviewRequest, access: Access, *, release: bool) -> QuarantineResult:
        receipt = await hs.operator.review(
            bank_id, body.memory_ids, release=release, reason=body.reason, actor=access.actor, wait=body.wait
        )
        reviewed = cast(ReleaseRequested | RejectRequested, receipt.event).memory_ids
        return QuarantineResult(
            bank_id=bank_id,
            action="release" if release else "reject",
            ready=bool(receipt.ready),
            reviewed=[str(m) for m in reviewed],
        )

    @api.post("/banks/{bank_id}/quarantine/release", response_model=QuarantineResult, summary="Release")
    async def release(bank_id: BankPath, body: ReviewRequest, access: Operator) -> QuarantineResult:
        """Quarantined memories become active and recallable (superseding their key's holder)."""
        return await review(bank_id, body, access, release=True)

    @api.post("/banks/{bank_id}/quarantine/reject", response_model=QuarantineResult, summary="Reject")
    async def reject(bank_id: BankPath, body: ReviewRequest, access: Operator) -> QuarantineResult:
        """Quarantined memories are forgotten (reason "rejected: …"), their history kept."""
        return await review(bank_id, body, access, release=False)

    def command(bank_id: str, body: RollbackSelection, access: Access, reason: str = "") -> RetractionRequested:
        return retraction(
            bank_id,
            session_id=body.session_id,
            turn_ids=tuple(body.turn_ids or ()),
            source=body.source,
            turn_actor=body.actor,
            since=body.since,
            until=body.until,
            reason=reason,
            actor=access.actor,
        )

    @api.post("/banks/{bank_id}/rollback/plan", response_model=RollbackPlan, summary="Rollback dry run")
    async def plan(bank_id: BankPath, body: RollbackSelection, access: Operator) -> RollbackPlan:
        """What a rollback of the matching turns would retract, and what comes back; changes nothing."""
        planned = await hs.operator.rollback_plan(command(bank_id, body, access))
        return RollbackPlan(
            bank_id=bank_id,
            retract=[planned_of(m) for m in planned.retract],
            restore=[planned_of(m) for m in planned.restore],
        )

    @api.post("/banks/{bank_id}/rollback", response_model=RollbackResult, summary="Roll back")
    async def rollback(bank_id: BankPath, body: RollbackRequest, access: Operator) -> RollbackResult:
        """Retract every memory derived from the matching turns and restore what they displaced."""
        receipt, done = await hs.operator.rollback(
            command(bank_id, body, access, body.reason), wait=body.wait, timeout_s=body.timeout_s
        )
        return RollbackResult(
            bank_id=bank_id,
            retraction_id=str(done.event_id) if done else None,
            retracted=[str(m) for m in done.retracted_memory_ids] if done else [],
            restored=[str(m) for m in done.restored_memory_ids] if done else [],
            ready=bool(receipt.ready),
        )

    @api.post("/banks/{bank_id}/rollback/{retraction_id}/undo", response_model=UndoResult, summary="Undo a rollback")
    async def undo(
        bank_id: BankPath,
        retraction_id: Annotated[UUID, Path(description="The rollback's SourceRetracted id (or its request's)")],
        access: Operator,
        body: UndoRequest | None = None,
    ) -> UndoResult:
        """Bring back what a rollback took out of use; it displaces again what the rollback had restored. The
        body, all of whose fields are optional, may be left out."""
        body = body or UndoRequest()
        receipt, done, back = await hs.operator.undo_rollback(
            bank_id, retraction_id, reason=body.reason, actor=access.actor, wait=body.wait
        )
        return UndoResult(
            bank_id=bank_id,
            retraction_id=str(done.event_id),
            restored=[str(m) for m in back],
            ready=True if receipt is None else bool(receipt.ready),
        )

    @api.post("/banks/{bank_id}/erase", response_model=ErasureResult, summary="Erase for good")
    async def erase(bank_id: BankPath, body: EraseRequest, access: Operator) -> ErasureResult:
        """Erase a session, a turn (with the memories drawn from it) or a memory for good: its data keys are
        destroyed, an ErasureRequested / ContentErased pair records who erased what and when, and every store
        drops it; the log, a rebuild, an export and an audit read an erased placeholder from then on."""
        done = await hs.operator.erase(
            bank_id, **body.scope(), reason=body.reason, actor=access.actor, wait=body.wait, timeout_s=body.timeout_s
        )
        return done.result()

    @api.post("/banks/{bank_id}/erase-all", response_model=BankErasureResult, summary="Erase a whole bank for good")
    async def erase_bank(bank_id: BankPath, body: EraseBankRequest, access: Operator) -> BankErasureResult:
        """Erase everything the bank holds (an account's deletion): each session that holds a live data key is
        erased as ``/erase`` erases one, in turn, then any turn or memory keyed outside a session; 404 when
        nothing is left to erase. Other banks keep every word."""
        steps = await hs.operator.erase_bank(
            bank_id, reason=body.reason, actor=access.actor, wait=body.wait, timeout_s=body.timeout_s
        )
        return BankErasureResult(bank_id=bank_id, erasures=[done.result() for done in steps])

    @api.get("/banks/{bank_id}/state", response_model=StateAsOf, summary="The bank as of a time")
    async def state(
        bank_id: BankPath,
        access: Caller,
        as_of: Annotated[Time | None, Query(description="ISO 8601 with a zone (default: now)")] = None,
        every: Annotated[bool, Query(alias="all", description="Every memory with its status, not only active")] = False,
    ) -> StateAsOf:
        """The bank's memories as they stood at a time, folded from the log (event time, inclusive)."""
        bank = access.bank(bank_id)
        folded = await hs.operator.state_as_of(bank, as_of)
        memories = sorted(
            (m for m in folded.memories.values() if every or m.status == "active"),
            key=lambda m: (m.valid_from, str(m.memory_id)),
        )
        return StateAsOf(bank_id=bank, as_of=as_of, memories=[planned_of(m) for m in memories])

    return api
