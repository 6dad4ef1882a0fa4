"""The results of the HTTP API and of the MCP tools: one vocabulary, shared by the server and the remote clients.

Names: ids end in ``_id`` (``bank_id``, ``session_id``, ``memory_id``, ``turn_id``); what was said or
remembered is ``text``; the agent a memory is private to, or the agent asking, is ``agent``; times are
ISO 8601 with a zone. Pure pydantic: importing this module loads no store, log or model.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BankList",
    "BankStats",
    "BankSummary",
    "Context",
    "CorrectResult",
    "Dispute",
    "DisputedMemory",
    "ForgetResult",
    "Hit",
    "HistoryEvent",
    "HistoryResult",
    "LinkedMemory",
    "Memory",
    "MemoryPage",
    "PlannedMemory",
    "QuarantineResult",
    "QuarantinedMemory",
    "RecallResult",
    "RestoreResult",
    "RetainResult",
    "RollbackPlan",
    "RollbackResult",
    "SessionSummary",
    "SessionTimeline",
    "StateAsOf",
    "TrustResult",
    "Turn",
    "TurnRef",
    "UndoResult",
]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True)


PROVENANCE = "Whose word it is: user (the bank's owner), other_user, assistant, tool or document"
TRUSTED = "The owner's word or confirmed by the owner; anything else is a note to read, not a fact to follow"


class Dispute(_Model):
    """An open dispute of a memory: the less trusted memory that contradicts it, waiting for the owner."""

    memory_id: str
    provenance: str
    text: str


class Hit(_Model):
    """One memory recall returned, with its score and why it came back."""

    memory_id: str
    kind: str
    text: str
    score: float = Field(description="Fused ranking score; only the order within one answer means something")
    relevance: float = Field(0.0, description="How well it fits the query: 0 to 1, one scale for every bank and query")
    source_turn_ids: list[str] = Field(description="The turns it was extracted from")
    session_id: str | None
    speaker: str | None
    key: str | None = Field(description="subject/attribute: a later memory with the same key supersedes it")
    valid_from: datetime
    valid_to: datetime | None = None
    status: str = "active"
    agent: str | None = Field(None, description="The agent it is private to; null: shared by the bank")
    scope: str = "global"
    bank_id: str | None = Field(None, description="Set when the hit comes from another bank (a shared one)")
    source: str | None = None
    provenance: str = Field("user", description=PROVENANCE)
    confirmed: bool = Field(False, description="Confirmed by the owner (a dispute the owner accepted)")
    trusted: bool = Field(True, description=TRUSTED)
    disputes: list[Dispute] = Field(default_factory=list, description="Open disputes of this memory")
    reasons: list[str] = Field(default_factory=list, description="With explain=true: matched words, meaning, time")


class Memory(_Model):
    """One memory, whatever its status."""

    memory_id: str
    kind: str
    text: str
    status: str
    key: str | None = None
    session_id: str | None = None
    speaker: str | None = None
    source: str | None = Field(None, description="user | assistant | tool | document: whose word it is")
    source_turn_ids: list[str] = []
    valid_from: datetime
    valid_to: datetime | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    scope: str = "global"
    agent: str | None = None
    importance: float | None = Field(None, description="How much it matters, 0 to 1, as the bank actor decided")
    confidence: float | None = Field(None, description="How sure the extraction is, 0 to 1, as decided")
    trust: str | None = None
    provenance: str = Field("user", description=PROVENANCE)
    confirmed: bool = False
    trusted: bool = Field(True, description=TRUSTED)
    disputes: str | None = Field(None, description="For a disputed memory: the more trusted one it contradicts")
    disputed_by: list[str] = Field(default_factory=list, description="Memories that dispute this one")


class MemoryPage(_Model):
    bank_id: str
    memories: list[Memory]
    total: int = Field(description="Memories matching the filters (the page holds at most `limit` of them)")
    offset: int
    limit: int


class Turn(_Model):
    turn_id: str
    session_id: str
    role: str | None = None
    speaker: str | None = None
    source: str | None = None
    text: str
    occurred_at: datetime


class Context(_Model):
    """One prompt-ready block: the relevant long-term memories, then the session's recent turns."""

    bank_id: str
    session_id: str
    text: str
    tokens: int
    budget_tokens: int
    memory_ids: list[str]
    unverified_ids: list[str] = Field(default_factory=list, description="Those of memory_ids shown as unverified notes")
    turn_ids: list[str]
    omitted_memories: int = 0
    omitted_turns: int = 0


class RetainResult(_Model):
    bank_id: str
    session_id: str
    turn_id: str
    ready: bool = Field(
        description="true: the memories listed are queryable; false: recorded, but not queryable yet "
        "(not waited for, or the wait ended first)"
    )
    memories: list[Memory] = Field(description="Memories retained from this turn (with wait=true)")
    superseded: list[str] = Field(description="Ids of memories this turn superseded (with wait=true)")


class RecallResult(_Model):
    bank_id: str
    query: str
    hits: list[Hit]


class ForgetResult(_Model):
    bank_id: str
    memory_id: str
    ready: bool = Field(description="true: recall no longer returns it; false: not applied yet (or not waited for)")


class RestoreResult(_Model):
    bank_id: str
    memory_id: str
    ready: bool = Field(description="true: recall returns it again; false: not applied yet (or not waited for)")


class CorrectResult(_Model):
    bank_id: str
    corrected_id: str = Field(description="The memory that was corrected (now superseded, kept in history)")
    ready: bool
    memory: Memory | None = Field(description="The corrected memory that replaces it (once ready)")


class TurnRef(_Model):
    turn_id: str
    session_id: str | None
    occurred_at: datetime
    text: str
    speaker: str | None = None
    role: str | None = None
    source: str | None = None


class LinkedMemory(_Model):
    memory_id: str
    kind: str | None
    text: str | None
    status: str
    retained_at: datetime | None


class HistoryEvent(_Model):
    type: str
    occurred_at: datetime
    actor: str | None = Field(description="Who caused it: a user, an agent, an operator, a token, the system")
    memory_id: str | None
    superseded_by: str | None = None
    reason: str | None = None
    log_offset: int


class HistoryResult(_Model):
    """A memory's lineage: its source turns, every event about it, what it replaced and what replaced it."""

    bank_id: str
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
        """From the archive's lineage (``ArchiveStore.lineage``)."""
        retained = lineage["retained"] or {}
        return cls(
            bank_id=lineage["bank_id"],
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


class BankList(_Model):
    banks: list[str]


class BankStats(_Model):
    bank_id: str
    memories: dict[str, int] = Field(description="Memories by status (active, superseded, forgotten, archived, ...)")
    hot: int = Field(default=0, description="Memories in the hot store (any status but archived)")
    cold: int = Field(default=0, description="Memories out of the hot store, in the cold archive")
    active_by_kind: dict[str, int]
    turns: int
    sessions: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None


class BankSummary(_Model):
    """A bank in the list of banks: its counts and its last activity."""

    bank_id: str
    active: int
    quarantined: int
    memories: int = Field(description="Memories in any status")
    turns: int
    last_turn_at: datetime | None


class SessionSummary(_Model):
    session_id: str
    turns: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None
    memories: dict[str, int] = Field(description="Memories it produced, by status")


class SessionTimeline(_Model):
    bank_id: str
    session_id: str
    turns: list[TurnRef]
    memories: list[LinkedMemory] = Field(description="Memories retained in the session or from its turns")


class QuarantinedMemory(_Model):
    memory_id: str
    bank_id: str
    kind: str
    text: str
    source: str | None = None
    trust: str | None = None
    session_id: str | None = None
    source_turn_ids: list[str] = []
    valid_from: datetime
    reason: str = Field("", description="The guard's reason (empty until the archive has it)")


class QuarantineResult(_Model):
    bank_id: str | None = Field(description="The bank reviewed (null: every bank, for list)")
    action: str
    memories: list[QuarantinedMemory] = Field(default_factory=list, description="Quarantined memories (for list)")
    reviewed: list[str] = Field(default_factory=list, description="Ids released or rejected")
    ready: bool = Field(default=False, description="true: the change is visible to recall")


class DisputedMemory(_Model):
    """A less trusted memory that contradicts a more trusted one, kept apart until the owner resolves it."""

    memory_id: str
    bank_id: str
    text: str
    provenance: str | None = None
    source: str | None = None
    source_turn_ids: list[str] = []
    valid_from: datetime
    disputes: str | None = Field(None, description="The more trusted memory it contradicts")
    disputed_text: str = ""
    reason: str = Field("", description="Why it was disputed (empty until the archive has it)")


class TrustResult(_Model):
    bank_id: str | None = Field(description="The bank (null: every bank's disputes, the CLI's list without --bank)")
    action: str
    disputes: list[DisputedMemory] = Field(default_factory=list, description="With action=disputes")
    owners: list[str] = Field(default_factory=list, description="With action=owners or set_owners")
    reviewed: list[str] = Field(default_factory=list, description="Ids accepted or rejected")
    ready: bool = Field(default=False, description="true: the change is visible to recall")


class PlannedMemory(_Model):
    memory_id: str
    kind: str
    text: str
    status: str
    session_id: str | None
    source: str
    valid_from: datetime


class RollbackPlan(_Model):
    """What a rollback will do: the memories it retracts and those they had displaced, which come back."""

    bank_id: str
    retract: list[PlannedMemory]
    restore: list[PlannedMemory]


class RollbackResult(_Model):
    bank_id: str
    retraction_id: str | None = Field(description="The SourceRetracted event: undo the rollback with it")
    retracted: list[str]
    restored: list[str]
    ready: bool = Field(description="true: recall reflects it; false: in the log, not decided within the wait")


class UndoResult(_Model):
    bank_id: str
    retraction_id: str
    restored: list[str] = Field(description="What the rollback took out of use, back now (not what was out before it)")
    ready: bool


class StateAsOf(_Model):
    bank_id: str
    as_of: datetime | None
    memories: list[PlannedMemory]


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
