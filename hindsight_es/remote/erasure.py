"""The erase operation's request body and result on the HTTP API, the MCP tool and the remote clients
(``client.erasure`` does it). Pure pydantic, as ``models`` and ``requests``."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from pydantic import ConfigDict, Field, model_validator

from hindsight_es.remote.models import _Model
from hindsight_es.remote.requests import SessionId, TimeoutS, TurnId, Wait, _Body

__all__ = ["BankErasureResult", "EraseBankRequest", "EraseRequest", "ErasureResult"]

_SCOPES = ("session_id", "turn_id", "memory_id")


class EraseRequest(_Body):
    """Exactly one of ``session_id``, ``turn_id``, ``memory_id``: what to erase for good."""

    model_config = ConfigDict(
        extra="forbid",
        # exactly one given, and given as a value (null is "not given" here, as the server reads it)
        json_schema_extra={"oneOf": [{"required": [s], "properties": {s: {"type": "string"}}} for s in _SCOPES]},
    )

    session_id: SessionId | None = Field(None, description="Erase a whole session: its turns and their memories")
    turn_id: TurnId | None = Field(None, description="Erase one turn and the memories drawn from it")
    memory_id: UUID | None = Field(None, description="Erase one memory")
    reason: str = Field(
        min_length=1, max_length=2000, pattern=r"\S", description="Why (kept with the erasure; never the content)"
    )
    wait: Wait = True
    timeout_s: TimeoutS = None

    @model_validator(mode="after")
    def _one_scope(self) -> EraseRequest:
        if sum(getattr(self, s) is not None for s in _SCOPES) != 1:
            raise ValueError("give exactly one of session_id, turn_id, memory_id")
        return self

    def scope(self) -> dict[str, Any]:
        return {s: getattr(self, s) for s in _SCOPES}


class ErasureResult(_Model):
    bank_id: str
    request_id: str = Field(description="The ErasureRequested event")
    units: list[str] = Field(description="The data keys destroyed (turn:… and memory:… units)")
    memory_ids: list[str] = Field(description="The memories erased (from the bank actor's ContentErased)")
    turn_ids: list[str] = Field(description="The turns erased")
    erased_at: str | None = Field(
        description="When (ISO 8601); null until the bank actor has decided it (not waited for, not decided within "
        "the wait, or nothing erased)"
    )
    ready: bool = Field(description="true: every store has dropped it; false: keys destroyed, not applied yet")
    ignored: str | None = Field(
        None, description="Why nothing was erased, when it was erased before (who, when, why); null otherwise"
    )


class EraseBankRequest(_Body):
    """Erase everything the bank holds: each session that holds a live data key, one erasure each."""

    model_config = ConfigDict(extra="forbid")

    reason: str = Field(
        min_length=1, max_length=2000, pattern=r"\S", description="Why (kept with each erasure; never the content)"
    )
    wait: Wait = True
    timeout_s: TimeoutS = None  # for each erasure


class BankErasureResult(_Model):
    bank_id: str
    erasures: list[ErasureResult] = Field(
        description="One a session, in session order, then one a turn or memory keyed outside a session"
    )
