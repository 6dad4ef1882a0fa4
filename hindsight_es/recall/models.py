"""Typed recall results."""

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
