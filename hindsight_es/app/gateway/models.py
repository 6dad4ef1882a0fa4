"""What the kernel returns, as the results the MCP tools and the HTTP API share (``hindsight_es.remote.models``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hindsight_es.client import QuarantinedMemory as KernelQuarantined
from hindsight_es.client import Receipt
from hindsight_es.client.disputes import DisputedMemory as KernelDisputed
from hindsight_es.memory import MemoryInfo
from hindsight_es.recall.context import ContextBlock
from hindsight_es.recall.models import MemoryView, RecallHit, fill_provenance
from hindsight_es.remote.models import (
    BankList,
    BankStats,
    BankSummary,
    Context,
    CorrectResult,
    DisputedMemory,
    ForgetResult,
    HistoryResult,
    Hit,
    LinkedMemory,
    Memory,
    PlannedMemory,
    QuarantinedMemory,
    QuarantineResult,
    RecallResult,
    RestoreResult,
    RetainResult,
    SessionSummary,
    TrustResult,
    TurnRef,
)

__all__ = [
    "BankList",
    "BankStats",
    "BankSummary",
    "Context",
    "CorrectResult",
    "ForgetResult",
    "HistoryResult",
    "QuarantineResult",
    "RecallResult",
    "RestoreResult",
    "RetainResult",
    "SessionSummary",
    "TrustResult",
    "context_of",
    "disputed_of",
    "hit_of",
    "linked_of",
    "memory_of",
    "planned_of",
    "quarantined_of",
    "retain_result",
    "turn_ref_of",
]


def memory_of(view: MemoryView | Mapping[str, Any]) -> Memory:
    # a row read from a store: provenance and trust filled as the kernel's views fill them
    fields = view.model_dump() if isinstance(view, MemoryView) else fill_provenance(dict(view))
    fields["agent"] = fields.pop("owner", None)
    return Memory(**{k: v for k, v in fields.items() if k in Memory.model_fields})


def hit_of(hit: RecallHit, reasons: Sequence[str] = ()) -> Hit:
    fields = hit.model_dump()
    fields["agent"] = fields.pop("owner", None)
    return Hit(**fields, reasons=list(reasons))


def retain_result(receipt: Receipt) -> RetainResult:
    turn: Any = receipt.event
    return RetainResult(
        bank_id=turn.bank_id,
        session_id=turn.session_id,
        turn_id=turn.turn_id,
        ready=bool(receipt.ready),
        memories=[memory_of(m) for m in receipt.retained],
        superseded=receipt.superseded,
    )


def context_of(bank_id: str, session_id: str, block: ContextBlock) -> Context:
    return Context(bank_id=bank_id, session_id=session_id, **block.model_dump())


def quarantined_of(memory: KernelQuarantined) -> QuarantinedMemory:
    return QuarantinedMemory(**memory.model_dump())


def planned_of(memory: MemoryInfo) -> PlannedMemory:
    return PlannedMemory(
        memory_id=str(memory.memory_id),
        kind=memory.kind,
        text=memory.text,
        status=memory.shown_status,
        session_id=memory.session_id,
        source=memory.source,
        valid_from=memory.valid_from,
    )


def linked_of(row: Mapping[str, Any]) -> LinkedMemory:
    return LinkedMemory(
        memory_id=row["memory_id"],
        kind=row.get("kind"),
        text=row.get("text"),
        status=row.get("status", "active"),
        retained_at=row.get("occurred_at"),
    )


def turn_ref_of(row: Mapping[str, Any]) -> TurnRef:
    return TurnRef.model_validate({k: row.get(k) for k in TurnRef.model_fields})


def disputed_of(memory: KernelDisputed) -> DisputedMemory:
    return DisputedMemory(**memory.model_dump())
