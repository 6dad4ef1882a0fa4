"""The dashboard's dispute review: a bank's disputes (less trusted memories that contradict the owner's own,
kept apart until resolved), accepted or rejected with a reason by the bank's owner or an operator. The
client refuses anyone else (and so does the bank actor); each POST comes from this origin (``ui.session``
checks it) and answers 303 to the disputes page, with a one-time notice of the decision (``ui.notice``)."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from hindsight_es.app.gateway.api.access import Caller
from hindsight_es.app.gateway.ui import notice
from hindsight_es.app.gateway.ui.actions import Page, bank_href, required, review_notice
from hindsight_es.client import Hindsight
from hindsight_es.errors import NotFoundError
from hindsight_es.memory.trust import is_owner


def register(ui: APIRouter, hs: Hindsight, page: Page) -> None:
    @ui.get("/banks/{bank_id}/disputes")
    async def disputes(request: Request, bank_id: str, access: Caller) -> HTMLResponse:
        bank_id = access.bank(bank_id)
        if bank_id not in await hs.list_banks():  # as every other page of an unknown bank
            raise NotFoundError(f"unknown bank {bank_id!r}: nothing has been recorded in it yet")
        found = await hs.disputes.disputed(bank_id)
        # the buttons only for who may press them: the same check as resolve's (the client's and the actor's)
        decides = access.banks is None or is_owner(access.actor, (await hs.disputes.owners(bank_id)).owners)
        return page(request, "disputes.html", access, bank_id=bank_id, disputes=found, decides=decides)

    @ui.post("/banks/{bank_id}/disputes/{action}")
    async def resolve(
        request: Request,
        bank_id: str,
        action: str,
        access: Caller,
        memory_id: Annotated[UUID, Form()],
        reason: Annotated[str, Form(max_length=2000)] = "",
    ) -> RedirectResponse:
        if action not in ("accept", "reject"):
            raise NotFoundError(f"no dispute action {action!r}: accept or reject")
        bank = access.bank(bank_id)
        receipt = await hs.disputes.resolve(
            bank,
            [memory_id],
            accept=action == "accept",
            reason=required(reason),
            actor=access.actor,
            operator=access.banks is None,
        )
        done = await review_notice(hs, bank, memory_id, "accepted" if action == "accept" else "rejected", receipt)
        return notice.after_post(request, bank_href(bank, "disputes"), done)

    @ui.get("/banks/{bank_id}/disputes/{action}")
    async def resolve_page(bank_id: str, action: str, access: Caller) -> RedirectResponse:
        """A decision's address opened again (an error page's, reloaded or shared): the bank's disputes."""
        return RedirectResponse(bank_href(access.bank(bank_id), "disputes"), status_code=303)
