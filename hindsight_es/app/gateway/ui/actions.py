"""The dashboard's operator pages: the quarantine review (release or reject, with a reason) and rollback
(choose a session, source or time range, see the dry-run plan, apply exactly that plan, watch what it
displaced come back, and undo it). Each POST checks that it comes from this origin (with the SameSite
cookie, against CSRF)."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Annotated
from urllib.parse import urlsplit
from uuid import UUID

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse

from hindsight_es.app.gateway.api.access import operator
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import memory_of, planned_of
from hindsight_es.app.gateway.ui.forms import parse_time
from hindsight_es.client import Hindsight
from hindsight_es.errors import AccessDeniedError, ConflictError, InvalidInputError, NotFoundError
from hindsight_es.events import RetractionRequested
from hindsight_es.history import Plan, retraction

Page = Callable[..., HTMLResponse]


def same_origin(request: Request) -> None:
    """Refuse a form post from another site: its Origin (or Referer) must name this host."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    host = request.headers.get("host", "")
    if not origin or urlsplit(origin).netloc != host:
        raise AccessDeniedError("this form must be sent from the dashboard itself")


def register(ui: APIRouter, hs: Hindsight, viewer: Callable[[Request], Awaitable[Access]], page: Page) -> None:
    async def op(request: Request, access: Annotated[Access, Depends(viewer)]) -> Access:
        if request.method == "POST":
            same_origin(request)
        return operator(access)

    Operator = Annotated[Access, Depends(op)]

    @ui.get("/quarantine")
    async def quarantine(request: Request, access: Operator, done: str = "") -> HTMLResponse:
        held = await hs.operator.quarantined(None)
        return page(request, "quarantine.html", access, memories=held, done=done)

    @ui.post("/banks/{bank_id}/quarantine/{action}")
    async def review(
        request: Request,
        bank_id: str,
        action: str,
        access: Operator,
        memory_id: Annotated[UUID, Form()],
        reason: Annotated[str, Form(max_length=2000)] = "",
    ) -> HTMLResponse:
        if action not in ("release", "reject"):
            raise NotFoundError(f"no review action {action!r}: release or reject")
        receipt = await hs.operator.review(
            bank_id, [memory_id], release=action == "release", reason=required(reason), actor=access.actor
        )
        current = memory_of(await hs.memory(bank_id, memory_id))
        held = await hs.operator.quarantined(None)
        done = f"{'released' if action == 'release' else 'rejected'} {memory_id}: now {current.status}"
        return page(request, "quarantine.html", access, memories=held, done=done, ready=receipt.ready)

    @ui.get("/banks/{bank_id}/rollback")
    async def rollback_form(request: Request, bank_id: str, access: Operator) -> HTMLResponse:
        sessions = await hs.browser.sessions(bank_id)
        return page(request, "rollback.html", access, bank_id=bank_id, sessions=sessions, form={}, plan=None)

    def selection(bank_id: str, form: dict[str, str], access: Access) -> RetractionRequested:
        return retraction(
            bank_id,
            session_id=form.get("session_id") or None,
            source=form.get("source") or None,
            since=parse_time(form.get("since"), "since"),
            until=parse_time(form.get("until"), "until"),
            reason=form.get("reason", ""),
            actor=access.actor,
        )

    async def form_of(request: Request) -> dict[str, str]:
        return {k: str(v) for k, v in (await request.form()).items()}

    @ui.post("/banks/{bank_id}/rollback/plan")
    async def plan(request: Request, bank_id: str, access: Operator) -> HTMLResponse:
        """The dry run, with its own apply form: the criteria planned (hidden) and the plan's digest."""
        form = await form_of(request)
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
    async def apply(request: Request, bank_id: str, access: Operator) -> HTMLResponse:
        """Applies the plan that was shown, and only that: the criteria and what they match must still give
        its digest (another selection, or a bank that changed since, is refused before anything is written)."""
        form = await form_of(request)
        command = selection(bank_id, form, access)
        planned = await hs.operator.rollback_plan(command)
        if not planned.retract:
            raise InvalidInputError("nothing matches these criteria: nothing to roll back")
        if form.get("plan") != digest(form, planned):
            raise ConflictError(
                "this is not the plan that was shown (other criteria, or the bank changed since): show the plan again"
            )
        receipt, done = await hs.operator.rollback(command)
        retracted = [memory_of(await hs.memory(bank_id, m)) for m in (done.retracted_memory_ids if done else ())]
        restored = [memory_of(await hs.memory(bank_id, m)) for m in (done.restored_memory_ids if done else ())]
        return page(
            request,
            "rolled_back.html",
            access,
            bank_id=bank_id,
            ready=receipt.ready,
            retraction_id=str(done.event_id) if done else None,
            retracted=retracted,
            restored=restored,
        )

    @ui.post("/banks/{bank_id}/rollback/{retraction_id}/undo")
    async def undo(
        request: Request,
        bank_id: str,
        retraction_id: UUID,
        access: Operator,
        reason: Annotated[str, Form(max_length=2000)] = "",
    ) -> HTMLResponse:
        receipt, done = await hs.operator.undo_rollback(bank_id, retraction_id, reason=reason, actor=access.actor)
        back = [memory_of(await hs.memory(bank_id, m)) for m in done.retracted_memory_ids]
        return page(
            request,
            "rolled_back.html",
            access,
            bank_id=bank_id,
            ready=True if receipt is None else receipt.ready,
            retraction_id=None,
            retracted=[],
            restored=back,
            undone=True,
            nothing_left=receipt is None,
        )


CRITERIA = ("session_id", "source", "since", "until")


def criteria_of(form: dict[str, str]) -> dict[str, str]:
    """The selection of a rollback form (its reason is not part of it)."""
    return {k: form.get(k, "") for k in CRITERIA}


def digest(form: dict[str, str], planned: Plan) -> str:
    """What a plan shown was: its criteria and the memories it retracts and brings back."""
    retract = sorted(str(m.memory_id) for m in planned.retract)
    restore = sorted(str(m.memory_id) for m in planned.restore)
    body = json.dumps([criteria_of(form), retract, restore], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()


def required(reason: str) -> str:
    """A review's reason, which the form requires: refused here too, not only in the browser."""
    if not reason.strip():
        raise InvalidInputError("a reason is needed (it is kept in the memory's history)")
    return reason.strip()
