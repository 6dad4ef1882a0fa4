"""Typed read results: recall hits, memory rows and turns of working memory."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


def fill_provenance(data: Any) -> Any:
    """Rows from before provenance was recorded: a memory's provenance is its source's; trusted is the
    owner's word or what the owner confirmed."""
    if isinstance(data, dict):
        prov = data.get("provenance") or data.get("source") or "user"
        confirmed = bool(data.get("confirmed")) or (data.get("provenance") is None and prov == "user")
        data = data | {"provenance": prov, "confirmed": confirmed, "trusted": confirmed or prov == "user"}
        if data.get("disputed_by") is None:
            data["disputed_by"] = []
    return data


class Dispute(BaseModel):
    """An open dispute of a memory: the less trusted memory that contradicts it, waiting for the owner."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    provenance: str
    text: str


class RecallHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    memory_id: str
    kind: str
    text: str
    score: float
    # Calibrated, in [0, 1], comparable across banks, queries and embedders (``recall.relevance``); 0
    # where unknown. ``score`` orders the hits of one answer, ``relevance`` says how much each one fits.
    relevance: float = 0.0
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
    source: str | None = None
    # Whose word it is: user (the bank's owner), other_user, assistant, tool, document; ``trusted``: the
    # owner's word or confirmed by the owner. Anything else is a note to read, not a fact to follow.
    provenance: str = "user"
    confirmed: bool = False
    trusted: bool = True
    disputed_by: list[str] = []  # ids of memories that dispute it (``disputes`` has the open ones)
    disputes: list[Dispute] = []

    _fill = model_validator(mode="before")(fill_provenance)


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
    trust: str | None = None
    provenance: str = "user"
    confirmed: bool = False
    trusted: bool = True
    disputes: str | None = None  # for a disputed memory: the more trusted one it contradicts
    disputed_by: list[str] = []

    _fill = model_validator(mode="before")(fill_provenance)


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


MEMORY_COLUMNS = tuple(f for f in MemoryView.model_fields if f != "trusted")
TURN_COLUMNS = tuple(TurnView.model_fields)
