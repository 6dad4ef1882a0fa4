"""The erase request and its result, on the HTTP API, the MCP tool and the CLI's ``--json`` (one vocabulary).

An erase is crypto-shredding: the data keys of a session, a turn (and the memories from it) or a memory
are destroyed, so the content reads as a placeholder everywhere, for good (``docs/operations.md``).
"""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hindsight_es.remote.requests import NOT_BLANK, SessionId, TurnId

__all__ = ["ERASE_SCOPES", "EraseReason", "EraseRequest", "EraseResult"]

ERASE_SCOPES = ("session_id", "turn_id", "memory_id")
EraseReason = Annotated[
    str,
    Field(
        min_length=1,
        max_length=2000,
        pattern=NOT_BLANK,
        description="Why (kept with the erasure, e.g. the user's request under GDPR art. 17; never the content)",
    ),
]


def _one_of(name: str) -> dict[str, Any]:  # JSON Schema: this scope is given and not null
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


class EraseRequest(BaseModel):
    """Exactly one of ``session_id``, ``turn_id``, ``memory_id``, and why."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"oneOf": [_one_of(s) for s in ERASE_SCOPES]})

    session_id: SessionId | None = Field(None, description="Erase a whole session (conversation)")
    turn_id: TurnId | None = Field(None, description="Erase one turn and the memories drawn from it")
    memory_id: UUID | None = Field(None, description="Erase one memory")
    reason: EraseReason
    timeout_s: float = Field(
        30.0, gt=0, le=120, description="Seconds to wait for a running service's bank actor to answer"
    )

    @model_validator(mode="after")
    def _exactly_one(self) -> EraseRequest:
        if sum(getattr(self, s) is not None for s in ERASE_SCOPES) != 1:
            raise ValueError("give exactly one of session_id, turn_id, memory_id")
        return self


class EraseResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    bank_id: str
    units: list[str] = Field(description="The data keys destroyed (turn:<id>, memory:<id>)")
    memory_ids: list[str] = Field(description="Memories whose content is erased")
    turn_ids: list[str] = Field(description="Turns whose content is erased")
    recorded: bool = Field(description="true: the bank actor recorded ContentErased and the stores were purged")
    hot_rows: int = 0
    turn_rows: int = 0
    archive_files: int = Field(0, description="Archive files rewritten with the placeholder")
    snapshots: int = Field(0, description="Partition snapshots dropped (they held the content)")
    generations: int = Field(0, description="Unused store generations removed")
    note: str | None = Field(None, description="What is left to do, if anything (e.g. run the erase again)")
