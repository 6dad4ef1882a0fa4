"""Typed read results: recall hits, memory rows and turns of working memory."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class RecallHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    text: str
    score: float
    source_turn_ids: list[str]
    session_id: str | None
    speaker: str | None
    key: str | None
    valid_from: datetime
    valid_to: datetime | None = None
    status: str = "active"
    owner: str | None = None  # the agent it is private to; None: shared
    scope: str = "global"
    bank_id: str | None = None  # set on hits merged from several banks (shared banks, the archive)


class MemoryView(BaseModel):
    """One row of the hot ``memories`` table, whatever its status."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    text: str
    status: str
    key: str | None = None
    session_id: str | None = None
    speaker: str | None = None
    source: str | None = None
    source_turn_ids: list[str] = []
    valid_from: datetime
    valid_to: datetime | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    scope: str = "global"
    owner: str | None = None


class TurnView(BaseModel):
    """One turn of a session, as working memory holds it."""

    model_config = ConfigDict(frozen=True)

    turn_id: str
    session_id: str
    role: str
    speaker: str | None = None
    source: str | None = None
    text: str
    occurred_at: datetime


MEMORY_COLUMNS = tuple(MemoryView.model_fields)
TURN_COLUMNS = tuple(TurnView.model_fields)
