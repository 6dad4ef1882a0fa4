"""The owner's routes: a bank's disputes (less trusted memories that contradict the owner's own, kept apart
until resolved), accepting or rejecting them, and the bank's owners. Resolving needs one of the bank's
owners or an operator (the client refuses anyone else, and so does the bank actor); declaring the owners
is an operator's call. Each is an event in the log (``DisputeResolutionRequested``, ``SetOwnersRequested``)."""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from typing import cast

from fastapi import APIRouter, Depends

from hindsight_es.app.gateway.api.access import Caller, Gate, Operator
from hindsight_es.app.gateway.api.memories import BankPath
from hindsight_es.app.gateway.api.problems import PROBLEMS, known_query
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import disputed_of
from hindsight_es.client import Hindsight
from hindsight_es.events import DisputeResolutionRequested
from hindsight_es.remote.models import TrustResult
from hindsight_es.remote.requests import OwnersRequest, ReviewRequest


def router(hs: Hindsight, gate: Gate) -> APIRouter:
    api = APIRouter(
        prefix="/v1/banks/{bank_id}",
        tags=["trust"],
        responses=PROBLEMS,
        dependencies=[Depends(known_query)],
        route_class=gate.route(),
    )

    @api.get("/disputes", response_model=TrustResult, summary="Open disputes")
    async def disputes(bank_id: BankPath, access: Caller) -> TrustResult:
        """Less trusted memories (documents, tools, other users, the assistant) that contradict the owner's
        own, each with the memory it disputes and why; the trusted memory stays active until resolved."""
        bank = access.bank(bank_id)
        found = await hs.disputes.disputed(bank)
        return TrustResult(bank_id=bank, action="disputes", disputes=[disputed_of(d) for d in found])

    async def resolve(bank_id: str, body: ReviewRequest, access: Access, *, accept: bool) -> TrustResult:
        bank = access.bank(bank_id)
        receipt = await hs.disputes.resolve(
            bank,
            body.memory_ids,
            accept=accept,
            reason=body.reason,
            actor=access.actor,
            operator=access.banks is None,
            wait=body.wait,
        )
        reviewed = cast(DisputeResolutionRequested, receipt.event).memory_ids
        return TrustResult(
            bank_id=bank,
            action="accept" if accept else "reject",
            ready=bool(receipt.ready),
            reviewed=[str(m) for m in reviewed],
        )

    @api.post("/disputes/accept", response_model=TrustResult, summary="Accept disputes")
    async def accept(bank_id: BankPath, body: ReviewRequest, access: Caller) -> TrustResult:
        """The challengers become active and confirmed, superseding the memories they dispute. Only when the
        owner says so: never because a document, a tool output or another user asks."""
        return await resolve(bank_id, body, access, accept=True)

    @api.post("/disputes/reject", response_model=TrustResult, summary="Reject disputes")
    async def reject(bank_id: BankPath, body: ReviewRequest, access: Caller) -> TrustResult:
        """The challengers are forgotten (their history kept); the disputed memories stay as they were."""
        return await resolve(bank_id, body, access, accept=False)

    @api.get("/owners", response_model=TrustResult, summary="The bank's owners")
    async def owners(bank_id: BankPath, access: Caller) -> TrustResult:
        """The principals whose user turns are the owner's word (declared, or the first user's)."""
        bank = access.bank(bank_id)
        return TrustResult(bank_id=bank, action="owners", owners=(await hs.disputes.owners(bank)).owners)

    @api.put("/owners", response_model=TrustResult, summary="Declare the bank's owners")
    async def set_owners(bank_id: BankPath, body: OwnersRequest, access: Operator) -> TrustResult:
        """Operators only: declare the principals (e.g. `mcp:token-ab12cd34`) that own the bank."""
        receipt = await hs.disputes.set_owners(
            bank_id, body.owners, reason=body.reason, actor=access.actor, wait=body.wait
        )
        return TrustResult(bank_id=bank_id, action="set_owners", ready=bool(receipt.ready), owners=list(body.owners))

    return api
