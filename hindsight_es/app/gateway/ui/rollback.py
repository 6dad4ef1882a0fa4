"""The dashboard's rollback: choose a session, a source or a time range; see the plan (the dry run, a GET: it
changes nothing, so it reloads and is shared as any page); apply exactly the plan shown; then the rollback's
own page, keyed by its id, with each memory's status now and the undo.

Apply and undo are POSTs from this origin that answer 303 to the rollback's page with a one-time notice
(``ui.notice``): a reload shows the rollback as it is now and applies nothing again."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from hindsight_es.app.gateway.api.access import Operator
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import planned_of
from hindsight_es.app.gateway.ui import notice
from hindsight_es.app.gateway.ui.actions import Page, bank_href
from hindsight_es.app.gateway.ui.forms import parse_time
from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS
from hindsight_es.errors import ConflictError, InvalidInputError, NotFoundError
from hindsight_es.events import RetractionRequested, SourceRetracted, decoded
from hindsight_es.history import Plan, bank_records, memory_events, retraction
from hindsight_es.text import plural

CRITERIA = ("session_id", "source", "since", "until")
FIELDS = (*CRITERIA, "reason")  # what the rollback form sends


def register(ui: APIRouter, hs: Hindsight, page: Page) -> None:
    @ui.get("/banks/{bank_id}/rollback")
    async def rollback_form(request: Request, bank_id: str, access: Operator) -> HTMLResponse:
        sessions = await hs.browser.sessions(bank_id)
        form = fields_of(request.query_params)  # a session's "Roll this session back…" names it
        return page(request, "rollback.html", access, bank_id=bank_id, sessions=sessions, form=form, plan=None)

    def selection(bank_id: str, form: Mapping[str, str], access: Access) -> RetractionRequested:
        return retraction(
            bank_id,
            session_id=form.get("session_id") or None,
            source=form.get("source") or None,
            since=parse_time(form.get("since"), "since"),
            until=parse_time(form.get("until"), "until"),
            reason=form.get("reason", ""),
            actor=access.actor,
        )

    @ui.get("/banks/{bank_id}/rollback/plan")
    async def plan(request: Request, bank_id: str, access: Operator) -> HTMLResponse:
        """The dry run, with its own apply form: the criteria planned (hidden) and the plan's digest."""
        form = fields_of(request.query_params)
        planned = await hs.operator.rollback_plan(selection(bank_id, form, access))
        shown = {
            "retract": [planned_of(m) for m in planned.retract],
            "restore": [planned_of(m) for m in planned.restore],
            "criteria": criteria_of(form),
            "digest": digest(form, planned),
        }
        sessions = await hs.browser.sessions(bank_id)
        return page(request, "rollback.html", access, bank_id=bank_id, sessions=sessions, form=form, plan=shown)

    @ui.post("/banks/{bank_id}/rollback")
    async def apply(request: Request, bank_id: str, access: Operator) -> RedirectResponse:
        """Applies the plan that was shown, and only that: the criteria and what they match must still give
        its digest (another selection, or a bank that changed since, is refused before anything is written)."""
        form = {k: str(v) for k, v in (await request.form()).items()}
        command = selection(bank_id, form, access)
        planned = await hs.operator.rollback_plan(command)
        if not planned.retract:
            raise InvalidInputError("nothing matches these criteria: nothing to roll back")
        if form.get("plan") != digest(form, planned):
            raise ConflictError(
                "this is not the plan that was shown (other criteria, or the bank changed since): show the plan again"
            )
        receipt, done = await hs.operator.rollback(command)
        if done is None:  # its page says so until the bank actor answers
            return RedirectResponse(bank_href(bank_id, "rollbacks", str(command.event_id)), status_code=303)
        told = f"rolled back: {plural(len(done.retracted_memory_ids), 'memory', 'memories')} retracted, "
        told += f"{len(done.restored_memory_ids)} came back"
        return notice.after_post(request, bank_href(bank_id, "rollbacks", str(done.event_id)), told)

    @ui.get("/banks/{bank_id}/rollbacks/{rollback_id}")
    async def rolled_back(request: Request, bank_id: str, rollback_id: UUID, access: Operator) -> HTMLResponse:
        """A rollback (its ``SourceRetracted`` id, or its request's): what it retracted and brought back, each
        with its status now, and the undo while something it retracted still is."""
        found = await retraction_of(hs, bank_id, rollback_id)
        if found is None and not await requested(hs, bank_id, rollback_id):
            raise NotFoundError(f"no rollback {rollback_id} in bank {bank_id!r}")
        ids = (found.retracted_memory_ids, found.restored_memory_ids) if found else ((), ())
        retracted = [await listed(hs, bank_id, m) for m in ids[0]]
        restored = [await listed(hs, bank_id, m) for m in ids[1]]
        undoable = bool(found and await hs.operator.to_undo(bank_id, found.event_id))
        context = {"bank_id": bank_id, "rollback": found, "retracted": retracted, "restored": restored}
        return page(request, "rolled_back.html", access, rollback_id=rollback_id, undoable=undoable, **context)

    @ui.post("/banks/{bank_id}/rollback/{retraction_id}/undo")
    async def undo(
        request: Request,
        bank_id: str,
        retraction_id: UUID,
        access: Operator,
        reason: Annotated[str, Form(max_length=2000)] = "",
    ) -> RedirectResponse:
        receipt, done, back = await hs.operator.undo_rollback(bank_id, retraction_id, reason=reason, actor=access.actor)
        if receipt is None:
            told = "Nothing left to undo: what this rollback took out of use is active again (undone before); "
            told += "what was forgotten, quarantined or replaced before it stays retracted. Nothing was recorded now."
        elif not receipt.ready:
            told = "undo asked; the bank actor has not answered yet (reload in a moment)"
        else:
            told = f"rollback undone: {plural(len(back), 'memory', 'memories')} back"
        return notice.after_post(request, bank_href(bank_id, "rollbacks", str(done.event_id)), told)

    @ui.get("/banks/{bank_id}/rollback/{retraction_id}/undo")
    async def undo_page(bank_id: str, retraction_id: UUID, access: Operator) -> RedirectResponse:
        """An undo's address opened again (an error page's, reloaded or shared): the rollback's page."""
        return RedirectResponse(bank_href(bank_id, "rollbacks", str(retraction_id)), status_code=303)


@dataclass(frozen=True)
class Listed:
    """A memory as a rollback's page lists it: its status now, or, gone (erased since), why it cannot be read."""

    memory_id: str
    kind: str
    text: str
    status: str


async def listed(hs: Hindsight, bank_id: str, memory_id: UUID) -> Listed:
    try:
        found = await hs.memory(bank_id, memory_id)
    except NotFoundError as exc:  # its row dropped by an erasure: the rest of the rollback is shown all the same
        return Listed(str(memory_id), "", str(exc), "gone")
    return Listed(str(found.memory_id), found.kind, found.text, found.status)


async def retraction_of(hs: Hindsight, bank_id: str, wanted: UUID) -> SourceRetracted | None:
    """The ``SourceRetracted`` of a rollback, by its id or its request's, as ``undo_rollback`` finds it."""
    await hs.start()
    events = await hs.conn.logged(memory_events(hs.log, bank_id))
    return next((e for e in events if isinstance(e, SourceRetracted) and wanted in (e.event_id, e.causation_id)), None)


async def requested(hs: Hindsight, bank_id: str, wanted: UUID) -> bool:
    """Whether a rollback was asked for with this id (in the commands' log), though not decided yet."""

    async def scan() -> bool:
        async for records in bank_records(hs.log, TOPIC_COMMANDS, bank_id):
            if any(isinstance(e, RetractionRequested) and e.event_id == wanted for _, e in decoded(records)):
                return True
        return False

    return await hs.conn.logged(scan())


def fields_of(params: Mapping[str, str]) -> dict[str, str]:
    """The rollback form's fields of a query string (anything else is left out)."""
    return {k: str(params[k]) for k in FIELDS if k in params}


def criteria_of(form: Mapping[str, str]) -> dict[str, str]:
    """The selection of a rollback form (its reason is not part of it)."""
    return {k: form.get(k, "") for k in CRITERIA}


def digest(form: Mapping[str, str], planned: Plan) -> str:
    """What a plan shown was: its criteria and the memories it retracts and brings back."""
    retract = sorted(str(m.memory_id) for m in planned.retract)
    restore = sorted(str(m.memory_id) for m in planned.restore)
    body = json.dumps([criteria_of(form), retract, restore], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()
