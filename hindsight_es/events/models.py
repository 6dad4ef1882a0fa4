"""The event catalogue: frozen, past-tense facts with a ``type`` discriminator.

Three streams: clients publish ``TurnRecorded`` to ``hindsight.turns``; requests go to
``hindsight.commands``; only the bank actor writes the memory events to ``hindsight.memories``.
Evolve a schema by bumping ``schema_version`` and adding an upcaster in ``codec.py``.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, Union
from uuid import UUID, uuid4

import numpy as np
from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, field_validator

from hindsight_es.types import BankId, MemoryKind, Role, Scope, SessionId, Source, Trust, TurnId


def _decode_vector(value: Any) -> bytes:
    if isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if isinstance(value, (list, tuple)):
        return np.asarray(value, dtype="<f4").tobytes()
    if isinstance(value, np.ndarray):
        return value.astype("<f4").tobytes()
    return value


# A float32 little-endian vector; base64 in JSON so a rebuild decodes it without float parsing.
VectorBytes = Annotated[
    bytes,
    BeforeValidator(_decode_vector),
    PlainSerializer(lambda b: base64.b64encode(b).decode("ascii"), return_type=str, when_used="json"),
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """Envelope shared by every event."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: UUID = Field(default_factory=uuid4)
    type: str
    schema_version: int = 1
    bank_id: BankId
    occurred_at: AwareDatetime = Field(default_factory=utcnow)
    causation_id: UUID | None = None
    actor: str = Field("user", min_length=1, max_length=256)

    @field_validator("occurred_at")
    @classmethod
    def _to_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)


# ---------------------------------------------------------------- turns


class TurnRecorded(Event):
    type: Literal["TurnRecorded"] = "TurnRecorded"
    session_id: SessionId
    turn_id: TurnId
    role: Role = "user"
    speaker: str | None = Field(None, max_length=256)
    text: str
    source: Source = "user"
    trust: Trust | None = None
    metadata: dict[str, str | int | float | bool | None] = Field(default_factory=dict)


# ---------------------------------------------------------------- commands


class ForgetRequested(Event):
    type: Literal["ForgetRequested"] = "ForgetRequested"
    memory_ids: tuple[UUID, ...] = ()
    session_id: SessionId | None = None
    reason: str = Field("", max_length=2000)


class CorrectionRequested(Event):
    type: Literal["CorrectionRequested"] = "CorrectionRequested"
    memory_id: UUID
    text: str = Field(min_length=1)
    reason: str = Field("", max_length=2000)


class RetractionRequested(Event):
    """Retract everything derived from matching turns; criteria are ANDed, at least one is set."""

    type: Literal["RetractionRequested"] = "RetractionRequested"
    session_id: SessionId | None = None
    turn_ids: tuple[TurnId, ...] = ()
    source: Source | None = None
    turn_actor: str | None = None
    since: AwareDatetime | None = None
    until: AwareDatetime | None = None
    reason: str = Field("", max_length=2000)


class RestoreRequested(Event):
    type: Literal["RestoreRequested"] = "RestoreRequested"
    memory_ids: tuple[UUID, ...] = ()
    reason: str = Field("", max_length=2000)


# ---------------------------------------------------------------- memory events (bank actor only)


class MemoryRetained(Event):
    type: Literal["MemoryRetained"] = "MemoryRetained"
    memory_id: UUID
    kind: MemoryKind
    text: str
    key: str | None = None
    value: str | None = None
    entities: tuple[str, ...] = ()
    importance: float = Field(0.5, ge=0, le=1)
    confidence: float = Field(0.7, ge=0, le=1)
    scope: Scope = "global"
    session_id: SessionId | None = None
    speaker: str | None = None
    context: str | None = None  # the turn this one answers (same session), indexed with it
    source: Source = "user"
    trust: Trust = "trusted"
    source_turn_ids: tuple[TurnId, ...] = ()
    valid_from: AwareDatetime
    vector: VectorBytes
    embedder: str
    extractor: str

    def embedding(self) -> np.ndarray:
        return np.frombuffer(self.vector, dtype="<f4")


class MemorySuperseded(Event):
    type: Literal["MemorySuperseded"] = "MemorySuperseded"
    memory_id: UUID
    superseded_by: UUID
    reason: str = ""
    valid_to: AwareDatetime


class MemoryForgotten(Event):
    type: Literal["MemoryForgotten"] = "MemoryForgotten"
    memory_id: UUID
    reason: str = ""


class MemoryArchived(Event):
    type: Literal["MemoryArchived"] = "MemoryArchived"
    memory_id: UUID
    reason: str = ""


class MemoryRestored(Event):
    """A memory becomes active again (after forget, archive, supersession or retraction)."""

    type: Literal["MemoryRestored"] = "MemoryRestored"
    memory_id: UUID
    reason: str = ""


class MemoryQuarantined(Event):
    type: Literal["MemoryQuarantined"] = "MemoryQuarantined"
    memory_id: UUID
    reason: str = ""


class MemoryReleased(Event):
    type: Literal["MemoryReleased"] = "MemoryReleased"
    memory_id: UUID
    reason: str = ""


class SourceRetracted(Event):
    type: Literal["SourceRetracted"] = "SourceRetracted"
    turn_ids: tuple[TurnId, ...]
    retracted_memory_ids: tuple[UUID, ...]
    restored_memory_ids: tuple[UUID, ...]
    reason: str = ""


class ExtractionFailed(Event):
    type: Literal["ExtractionFailed"] = "ExtractionFailed"
    turn_id: TurnId
    extractor: str
    error: str


CommandEvent = Union[ForgetRequested, CorrectionRequested, RetractionRequested, RestoreRequested]
MemoryEvent = Union[
    MemoryRetained,
    MemorySuperseded,
    MemoryForgotten,
    MemoryArchived,
    MemoryRestored,
    MemoryQuarantined,
    MemoryReleased,
    SourceRetracted,
    ExtractionFailed,
]
AnyEvent = Annotated[Union[TurnRecorded, CommandEvent, MemoryEvent], Field(discriminator="type")]

EVENT_TYPES: dict[str, type[Event]] = {
    cls.model_fields["type"].default: cls
    for cls in (TurnRecorded, ForgetRequested, CorrectionRequested, RetractionRequested, RestoreRequested,
                MemoryRetained, MemorySuperseded, MemoryForgotten, MemoryArchived, MemoryRestored,
                MemoryQuarantined, MemoryReleased, SourceRetracted, ExtractionFailed)
}
