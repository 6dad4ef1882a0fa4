"""The dashboard's quarantine review (release or reject, with a reason) and what the forms that change
something share: the reason a review requires and what a review's notice says. Rollback is ``ui.rollback``;
the dispute review ``ui.disputes``. The login, a POST's origin (with the SameSite cookie, against CSRF) and
the operator's pages are checked before a page reads its request (``ui.session``).

Each POST answers 303 to a GET page with a one-time notice of what it did (``ui.notice``)."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from collections.abc import Callable
from typing import Annotated
from urllib.parse import quote
from uuid import UUID

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from hindsight_es.app.gateway.api.access import Operator
from hindsight_es.app.gateway.ui import notice
from hindsight_es.app.gateway.ui.errors import PREFIX
from hindsight_es.client import Hindsight, Receipt
from hindsight_es.errors import InvalidInputError, NotFoundError

Page = Callable[..., HTMLResponse]


def bank_href(bank_id: str, *rest: str) -> str:
    """A bank's page (or one under it); the bank id is one path segment, encoded whole."""
    return "/".join([f"{PREFIX}/banks/{quote(bank_id, safe='')}", *rest])


async def review_notice(hs: Hindsight, bank_id: str, memory_id: UUID, done: str, receipt: Receipt) -> str:
    """What a review did to a memory, as its notice says it: its status now, or that it is on its way."""
    if not receipt.ready:
        return f"{done} {memory_id}: asked; the bank actor has not answered yet (reload in a moment)"
    return f"{done} {memory_id}: now {(await hs.memory(bank_id, memory_id)).status}"


def register(ui: APIRouter, hs: Hindsight, page: Page) -> None:
    @ui.get("/quarantine")
    async def quarantine(request: Request, access: Operator) -> HTMLResponse:
        held = await hs.operator.quarantined(None)
        return page(request, "quarantine.html", access, memories=held)

    @ui.post("/banks/{bank_id}/quarantine/{action}")
    async def review(
        request: Request,
        bank_id: str,
        action: str,
        access: Operator,
        memory_id: Annotated[UUID, Form()],
        reason: Annotated[str, Form(max_length=2000)] = "",
    ) -> RedirectResponse:
        if action not in ("release", "reject"):
            raise NotFoundError(f"no review action {action!r}: release or reject")
        receipt = await hs.operator.review(
            bank_id, [memory_id], release=action == "release", reason=required(reason), actor=access.actor
        )
        done = await review_notice(hs, bank_id, memory_id, "released" if action == "release" else "rejected", receipt)
        return notice.after_post(request, f"{PREFIX}/quarantine", done)

    @ui.get("/banks/{bank_id}/quarantine/{action}")
    async def review_page(bank_id: str, action: str, access: Operator) -> RedirectResponse:
        """A review's address opened again (an error page's, reloaded or shared): the quarantine page."""
        return RedirectResponse(f"{PREFIX}/quarantine", status_code=303)


def required(reason: str) -> str:
    """A review's reason, which the form requires: refused here too, not only in the browser."""
    if not reason.strip():
        raise InvalidInputError("a reason is needed (it is kept in the memory's history)")
    return reason.strip()
