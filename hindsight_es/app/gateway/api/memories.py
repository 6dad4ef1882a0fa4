"""``/v1/banks/{bank_id}/…``: retain, recall, context, browse, one memory, its history, forget, correct, restore.

Each route checks the caller's access to the bank, calls the ``Hindsight`` client and returns the
result models MCP returns too (``hindsight_es.remote.models``).
"""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Depends, Path, Query

from hindsight_es.app.gateway.api.access import Caller, Gate
from hindsight_es.app.gateway.api.problems import PROBLEMS, known_query
from hindsight_es.app.gateway.models import context_of, hit_of, memory_of, retain_result
from hindsight_es.client import Hindsight
from hindsight_es.client.browse import Browse
from hindsight_es.remote.models import (
    Context,
    CorrectResult,
    ForgetResult,
    HistoryResult,
    Memory,
    MemoryPage,
    RecallResult,
    RestoreResult,
    RetainResult,
)
from hindsight_es.remote.requests import (
    ID_PATTERN,
    PRINTABLE,
    ContextRequest,
    CorrectRequest,
    ForgetRequest,
    MemoryKind,
    RecallRequest,
    RestoreRequest,
    RetainRequest,
    Source,
    Status,
    Time,
)

BankPath = Annotated[str, Path(min_length=1, max_length=128, pattern=ID_PATTERN, description="Memory bank")]
MemoryPath = Annotated[UUID, Path(description="A memory id (a UUID, as recall returns it)")]


def router(hs: Hindsight, gate: Gate) -> APIRouter:
    api = APIRouter(
        prefix="/v1/banks/{bank_id}",
        tags=["memories"],
        responses=PROBLEMS,
        dependencies=[Depends(known_query)],
        route_class=gate.route(),
    )

    @api.post("/memories", response_model=RetainResult, status_code=201, summary="Retain a turn or a memory")
    async def retain(bank_id: BankPath, body: RetainRequest, access: Caller) -> RetainResult:
        """Record a conversation turn (or an explicit memory); with `wait`, return once its memories are
        queryable, listing them."""
        receipt = await hs.retain(
            access.bank(bank_id),
            body.text,
            session_id=body.session_id,
            turn_id=body.turn_id,
            role=body.role,
            source=body.source,
            speaker=body.speaker,
            occurred_at=body.occurred_at,
            metadata={"explicit": True} if body.explicit else {},
            owner=body.agent,
            scope=body.scope,
            actor=access.actor,
            wait=body.wait,
            timeout_s=body.timeout_s,
        )
        return retain_result(receipt)

    @api.post("/recall", response_model=RecallResult, summary="Recall memories for a query")
    async def recall(bank_id: BankPath, body: RecallRequest, access: Caller) -> RecallResult:
        """The active memories most relevant to a query, best first; `explain` says why each came back."""
        bank = access.bank(bank_id)
        hits = await hs.recall(
            bank,
            body.query,
            limit=body.limit,
            max_tokens=body.max_tokens,
            kinds=body.kinds,
            since=body.since,
            until=body.until,
            agent=body.agent,
            include_shared=body.include_shared,
            include_archived=body.include_archived,
            trusted_only=body.trusted_only,
            min_relevance=body.min_relevance,
        )
        reasons = await hs.browser.explain(bank, body.query, hits) if body.explain and hits else {}
        return RecallResult(
            bank_id=bank, query=body.query, hits=[hit_of(h, reasons.get(h.memory_id, ())) for h in hits]
        )

    @api.post("/context", response_model=Context, summary="A prompt-ready context block")
    async def context(bank_id: BankPath, body: ContextRequest, access: Caller) -> Context:
        """The session's recent turns and the memories relevant to the user's message, within a token budget."""
        bank = access.bank(bank_id)
        block = await hs.context(
            bank,
            body.session_id,
            body.text,
            budget_tokens=body.budget_tokens,
            agent=body.agent,
            include_shared=body.include_shared,
            trusted_only=body.trusted_only,
            min_relevance=body.min_relevance,
        )
        return context_of(bank, body.session_id, block)

    @api.get("/memories", response_model=MemoryPage, summary="Browse memories with filters")
    async def browse(
        bank_id: BankPath,
        access: Caller,
        kind: Annotated[list[MemoryKind] | None, Query(description="Only these kinds (repeatable)")] = None,
        status: Annotated[
            list[Status] | None,
            Query(description="Only these statuses (repeatable; default: all but archived)"),
        ] = None,
        source: Annotated[Source | None, Query(description="Only memories from this source")] = None,
        session_id: Annotated[str | None, Query(min_length=1, max_length=256, pattern=PRINTABLE)] = None,
        since: Annotated[Time | None, Query(description="valid_from at or after (ISO 8601, zone)")] = None,
        until: Annotated[Time | None, Query(description="valid_from before (ISO 8601, zone)")] = None,
        min_importance: Annotated[float | None, Query(ge=0, le=1)] = None,
        text: Annotated[str | None, Query(max_length=200, description="Text contains (case-insensitive)")] = None,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    ) -> MemoryPage:
        """A page of the bank's memories, newest first, with importance, trust and source."""
        bank = access.bank(bank_id)
        where = Browse(kind, status, source, session_id, since, until, min_importance, text)
        rows, total = await hs.browser.memories(bank, where, limit=limit, offset=offset)
        return MemoryPage(bank_id=bank, memories=[memory_of(r) for r in rows], total=total, offset=offset, limit=limit)

    @api.get("/memories/{memory_id}", response_model=Memory, summary="One memory")
    async def memory(bank_id: BankPath, memory_id: MemoryPath, access: Caller) -> Memory:
        return memory_of(await hs.memory(access.bank(bank_id), memory_id))

    @api.get("/memories/{memory_id}/history", response_model=HistoryResult, summary="A memory's lineage")
    async def history(bank_id: BankPath, memory_id: MemoryPath, access: Caller) -> HistoryResult:
        """Its source turns, every event about it (who and why), what it superseded and what superseded it."""
        return HistoryResult.of(await hs.history(access.bank(bank_id), memory_id))

    @api.post("/memories/{memory_id}/forget", response_model=ForgetResult, summary="Forget a memory")
    async def forget(
        bank_id: BankPath, memory_id: MemoryPath, access: Caller, body: ForgetRequest | None = None
    ) -> ForgetResult:
        """Hide a memory from recall (kept in its history); every field of the body is optional, so is the body."""
        body, bank = body or ForgetRequest(), access.bank(bank_id)
        receipt = await hs.forget(bank, memory_id, reason=body.reason, wait=body.wait, actor=access.actor)
        return ForgetResult(bank_id=bank, memory_id=str(memory_id), ready=bool(receipt.ready))

    @api.post("/memories/{memory_id}/correct", response_model=CorrectResult, summary="Correct a memory")
    async def correct(bank_id: BankPath, memory_id: MemoryPath, body: CorrectRequest, access: Caller) -> CorrectResult:
        """Supersede an active memory by a corrected text; the old one stays in its history."""
        bank = access.bank(bank_id)
        receipt = await hs.correct(bank, memory_id, body.text, reason=body.reason, wait=body.wait, actor=access.actor)
        return CorrectResult(
            bank_id=bank,
            corrected_id=str(memory_id),
            ready=bool(receipt.ready),
            memory=memory_of(receipt.retained[0]) if receipt.retained else None,
        )

    @api.post("/memories/{memory_id}/restore", response_model=RestoreResult, summary="Restore a memory")
    async def restore(
        bank_id: BankPath, memory_id: MemoryPath, access: Caller, body: RestoreRequest | None = None
    ) -> RestoreResult:
        """Bring back an archived, forgotten, superseded or retracted memory: it becomes active again (the body,
        all of whose fields are optional, may be left out)."""
        body, bank = body or RestoreRequest(), access.bank(bank_id)
        receipt = await hs.restore(bank, memory_id, reason=body.reason, wait=body.wait, actor=access.actor)
        return RestoreResult(bank_id=bank, memory_id=str(memory_id), ready=bool(receipt.ready))

    return api
