"""``/v1/banks``: the banks a caller may use with their counts, one bank's stats, its sessions and a session's
timeline; ``/v1/stats`` (operators): every bank's counts and the log's and projections' positions."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from typing import Any

from fastapi import APIRouter, Depends

from hindsight_es.app.gateway.api.access import Caller, Gate, Operator
from hindsight_es.app.gateway.api.memories import BankPath
from hindsight_es.app.gateway.api.problems import PROBLEMS, known_query
from hindsight_es.app.gateway.models import linked_of, turn_ref_of
from hindsight_es.client import Hindsight
from hindsight_es.remote.models import BankStats, BankSummary, SessionSummary, SessionTimeline
from hindsight_es.remote.requests import SessionId


def router(hs: Hindsight, gate: Gate) -> APIRouter:
    api = APIRouter(
        prefix="/v1", tags=["banks"], responses=PROBLEMS, dependencies=[Depends(known_query)], route_class=gate.route()
    )

    @api.get("/banks", response_model=list[BankSummary], summary="The banks this token may use")
    async def banks(access: Caller) -> list[BankSummary]:
        """Each bank with anything recorded that the token covers, with its counts and last activity."""
        return [BankSummary(**b) for b in await hs.browser.banks() if access.allows(b["bank_id"])]

    @api.get("/banks/{bank_id}/stats", response_model=BankStats, summary="Counts of one bank")
    async def stats(bank_id: BankPath, access: Caller) -> BankStats:
        """Memories by status and kind, hot and cold, turns, sessions, first and last activity."""
        return BankStats(**await hs.bank_stats(access.bank(bank_id)))

    @api.get("/banks/{bank_id}/sessions", response_model=list[SessionSummary], summary="A bank's sessions")
    async def sessions(bank_id: BankPath, access: Caller) -> list[SessionSummary]:
        """Oldest first: turns, first and last turn, and the memories each produced by status."""
        return [SessionSummary(**s) for s in await hs.browser.sessions(access.bank(bank_id))]

    @api.get("/banks/{bank_id}/sessions/{session_id}", response_model=SessionTimeline, summary="A session's timeline")
    async def session(bank_id: BankPath, session_id: SessionId, access: Caller) -> SessionTimeline:
        """The session's turns in time order and every memory retained in it or from its turns."""
        bank = access.bank(bank_id)
        turns, memories = await hs.browser.session(bank, session_id)
        return SessionTimeline(
            bank_id=bank,
            session_id=session_id,
            turns=[turn_ref_of(t) for t in turns],
            memories=[linked_of(m) for m in memories],
        )

    @api.get("/stats", summary="Every bank's counts and the log's positions (operators)")
    async def everything(access: Operator) -> dict[str, Any]:
        """Per-bank counts by status, the log's end offsets per topic and the projections' positions."""
        return await hs.reader.stats()

    return api
