"""Typed results of the MCP tools (their output schemas); built from what the kernel returns."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from hindsight_es.client import Receipt
from hindsight_es.client.disputes import DisputedMemory
from hindsight_es.client.operator import QuarantinedMemory
from hindsight_es.recall.context import ContextBlock
from hindsight_es.recall.models import MemoryView, RecallHit

__all__ = [
    "BankList",
    "BankStats",
    "ContextBlock",
    "CorrectResult",
    "ForgetResult",
    "HistoryResult",
    "QuarantineResult",
    "RecallResult",
    "RestoreResult",
    "RetainResult",
    "TrustResult",
]


class RetainResult(BaseModel):
    bank: str
    session_id: str
    turn_id: str
    ready: bool | None = Field(
        description="true: the memories listed are queryable; false: recorded, but not "
        "yet queryable when the wait ended; null: not waited for"
    )
    memories: list[MemoryView] = Field(description="Memories retained from this turn (with wait=true)")
    superseded: list[str] = Field(description="Ids of memories this turn superseded")

    @classmethod
    def of(cls, receipt: Receipt) -> RetainResult:
        turn: Any = receipt.event
        return cls(
            bank=turn.bank_id,
            session_id=turn.session_id,
            turn_id=turn.turn_id,
            ready=receipt.ready,
            memories=receipt.retained,
            superseded=receipt.superseded,
        )


class RecallResult(BaseModel):
    bank: str
    query: str
    hits: list[RecallHit]


class ForgetResult(BaseModel):
    bank: str
    memory_id: str
    ready: bool | None = Field(
        description="true: recall no longer returns it; false: not applied yet when the wait "
        "ended; null: not waited for"
    )


class RestoreResult(BaseModel):
    bank: str
    memory_id: str
    ready: bool | None = Field(
        description="true: recall returns it again; false: not applied yet when the wait ended; null: not waited for"
    )


class CorrectResult(BaseModel):
    bank: str
    corrected_id: str = Field(description="The memory that was corrected (now superseded, kept in history)")
    ready: bool | None
    memory: MemoryView | None = Field(description="The corrected memory that replaces it (once ready)")


class TurnRef(BaseModel):
    turn_id: str
    session_id: str | None
    occurred_at: datetime
    text: str
    speaker: str | None = None
    role: str | None = None


class LinkedMemory(BaseModel):
    memory_id: str
    kind: str | None
    text: str | None
    status: str
    retained_at: datetime | None


class HistoryEvent(BaseModel):
    type: str
    occurred_at: datetime
    actor: str | None
    memory_id: str | None
    superseded_by: str | None = None
    reason: str | None = None
    log_offset: int


class HistoryResult(BaseModel):
    bank: str
    memory_id: str
    status: str | None
    kind: str | None
    text: str | None
    source_turns: list[TurnRef]
    events: list[HistoryEvent] = Field(description="Every memory event about it, in log order")
    supersedes: list[LinkedMemory] = Field(description="Memories it replaced")
    superseded_by: list[LinkedMemory] = Field(description="Memories that replaced it")

    @classmethod
    def of(cls, lineage: dict[str, Any]) -> HistoryResult:
        retained = lineage["retained"] or {}
        return cls(
            bank=lineage["bank_id"],
            memory_id=lineage["memory_id"],
            status=lineage["status"],
            kind=retained.get("kind"),
            text=retained.get("text"),
            source_turns=[TurnRef(**{k: t.get(k) for k in TurnRef.model_fields}) for t in lineage["source_turns"]],
            events=[
                HistoryEvent(
                    type=e["type"],
                    occurred_at=e["occurred_at"],
                    actor=e["actor"],
                    memory_id=e["memory_id"],
                    superseded_by=e["superseded_by"],
                    reason=_reason(e["payload"]),
                    log_offset=e["offset"],
                )
                for e in lineage["events"]
            ],
            supersedes=[_linked(m) for m in lineage["supersedes"]],
            superseded_by=[_linked(m) for m in lineage["superseded_by"]],
        )


class BankList(BaseModel):
    banks: list[str]


class BankStats(BaseModel):
    bank_id: str
    memories: dict[str, int] = Field(description="Memories by status (active, superseded, forgotten, archived, ...)")
    hot: int = Field(default=0, description="Memories in the hot store (any status but archived)")
    cold: int = Field(default=0, description="Memories out of the hot store, in the cold archive")
    active_by_kind: dict[str, int]
    turns: int
    sessions: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None


def _linked(row: dict[str, Any]) -> LinkedMemory:
    return LinkedMemory(
        memory_id=row["memory_id"],
        kind=row.get("kind"),
        text=row.get("text"),
        status=row.get("status", "active"),
        retained_at=row.get("occurred_at"),
    )


def _reason(payload: str | None) -> str | None:
    try:
        value = json.loads(payload or "{}").get("reason")
    except (json.JSONDecodeError, AttributeError):
        return None
    return value or None


class QuarantineResult(BaseModel):
    bank: str | None = Field(description="The bank reviewed (null: every bank, for list)")
    action: str
    memories: list[QuarantinedMemory] = Field(default_factory=list, description="Quarantined memories (for list)")
    reviewed: list[str] = Field(default_factory=list, description="Ids released or rejected")
    ready: bool | None = Field(
        default=None, description="true: the change is visible to recall; false: not yet applied when the wait ended"
    )


class TrustResult(BaseModel):
    bank: str
    action: str
    disputes: list[DisputedMemory] = Field(default_factory=list, description="With action=disputes")
    owners: list[str] = Field(default_factory=list, description="With action=owners or set_owners")
    reviewed: list[str] = Field(default_factory=list, description="Ids accepted or rejected")
    ready: bool | None = None
