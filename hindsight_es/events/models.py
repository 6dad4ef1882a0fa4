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

from hindsight_es.events.candidates import Candidate
from hindsight_es.types import AgentId, BankId, MemoryKind, Role, Scope, SessionId, Source, Trust, TurnId


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
    # Who the memories from this turn belong to: an agent id makes them private to that agent (None:
    # shared by everyone who reads the bank); ``scope`` "session" makes them expire with the session.
    owner: AgentId | None = None
    scope: Scope = "global"


# ---------------------------------------------------------------- commands


class ForgetRequested(Event):
    type: Literal["ForgetRequested"] = "ForgetRequested"
    memory_ids: tuple[UUID, ...] = ()
    session_id: SessionId | None = None
    reason: str = Field("", max_length=2000)
    since: AwareDatetime | None = None  # with ``until``: memories valid from [since, until); ANDed with session
    until: AwareDatetime | None = None


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


class ReleaseRequested(Event):
    """An operator releases quarantined memories: they become active (recallable)."""

    type: Literal["ReleaseRequested"] = "ReleaseRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    reason: str = Field("", max_length=2000)


class RejectRequested(Event):
    """An operator rejects quarantined memories: they are forgotten with reason "rejected"."""

    type: Literal["RejectRequested"] = "RejectRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    reason: str = Field("", max_length=2000)


class TokenUsage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(0, ge=0)
    completion_tokens: int = Field(0, ge=0)
    calls: int = Field(0, ge=0)  # HTTP requests made, retries included


class TurnExtraction(BaseModel):
    """One turn, copied whole, and the candidates extracted from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: TurnRecorded
    candidates: tuple[Candidate, ...] = ()


class ExtractionCompleted(Event):
    """The extraction actor's output for a batch of a bank's turns (on ``hindsight.commands``).

    The bank actor decides each turn from it, so replays never call the extractor again. ``error``
    set: the LLM failed and the candidates are the rule extractor's (the actor records ExtractionFailed).
    """

    type: Literal["ExtractionCompleted"] = "ExtractionCompleted"
    extractions: tuple[TurnExtraction, ...] = Field(min_length=1)
    extractor: str  # the id recorded on the memories, e.g. "llm:qwen2.5-7b-instruct/extract-v1" or "rules/1"
    model: str | None = None
    prompt_version: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    error: str | None = Field(None, max_length=2000)
    latency_ms: int = Field(0, ge=0)


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
    owner: AgentId | None = None  # the agent it is private to; None: shared with every reader of the bank
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
    valid_until: AwareDatetime | None = None  # when the statement stops holding, where the speaker said so

    def embedding(self) -> np.ndarray:
        return np.frombuffer(self.vector, dtype="<f4")


class MemoryReinforced(Event):
    """A candidate restated an active memory: more evidence (and, from trusted sources, confidence), no copy."""

    type: Literal["MemoryReinforced"] = "MemoryReinforced"
    memory_id: UUID
    evidence_turn_ids: tuple[TurnId, ...] = ()  # the turns that restated it, this one last
    confidence: float = Field(ge=0, le=1)
    source: Source = "user"
    reason: str = ""


class MemorySuperseded(Event):
    type: Literal["MemorySuperseded"] = "MemorySuperseded"
    memory_id: UUID
    superseded_by: UUID
    reason: str = ""
    valid_to: AwareDatetime
    # Set for an episode that said nothing but what its turn's typed memories say: the one whose
    # supersession took it along (``superseded_by`` replaced that memory, not the episode).
    along_with: UUID | None = None


class MemoryForgotten(Event):
    type: Literal["MemoryForgotten"] = "MemoryForgotten"
    memory_id: UUID
    reason: str = ""
    along_with: UUID | None = None  # an episode forgotten with its turn's typed memory (as for MemorySuperseded)


class MemoryArchived(Event):
    """A memory leaves the hot store for the cold archive (decay, capacity, session expiry)."""

    type: Literal["MemoryArchived"] = "MemoryArchived"
    memory_id: UUID
    reason: str = ""
    retention: float | None = None  # its retention score when the janitor's tick archived it


class MemoryRestored(Event):
    """A memory becomes active again (after forget, archive, supersession or retraction)."""

    type: Literal["MemoryRestored"] = "MemoryRestored"
    memory_id: UUID
    reason: str = ""
    # For an archived memory (not in the hot store): the event that retained it, so the projection can
    # bring its row back without another source, and the memory it had superseded.
    revived: MemoryRetained | None = None
    supersedes: UUID | None = None


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


# ---------------------------------------------------------------- lifecycle: decay, archive, scopes


class RetentionPolicy(BaseModel):
    """How the janitor's tick scores and archives memories (see ``memory/retention.py``); carried in
    the tick, so re-deciding it gives the same result whatever the settings are by then."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float = Field(0.1, ge=0, le=1)  # archive an active memory whose retention falls below
    half_life_days: dict[str, float | None] = Field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    recall_saturation: int = Field(8, ge=1)  # recalls that earn the whole recall weight
    grace_days: float = Field(1.0, ge=0)  # younger memories are never archived for decay
    capacity: int | None = Field(None, ge=0)  # most active memories the bank keeps (lowest retention goes)
    session_idle_hours: float | None = Field(24.0, gt=0)  # session-scoped memories expire after this idle time


# Days after which a memory's freshness halves (None: never fades); kinds not listed use "default".
DEFAULT_HALF_LIVES: dict[str, float | None] = {
    "episode": 14.0, "plan": 30.0, "summary": 90.0, "fact": 180.0, "decision": 180.0,
    "preference": 365.0, "correction": 365.0, "constraint": 730.0, "default": 90.0,
}
DEFAULT_WEIGHTS: dict[str, float] = {"importance": 0.6, "confidence": 0.2, "recalls": 0.2}


class JanitorTick(Event):
    """The janitor's scheduled (or over-capacity) request to archive what has faded; its
    ``occurred_at`` is the "now" of every decision it causes."""

    type: Literal["JanitorTick"] = "JanitorTick"
    policy: RetentionPolicy = Field(default_factory=RetentionPolicy)
    reason: str = Field("schedule", max_length=200)


class SessionEnded(Event):
    """A session is over: its session-scoped memories expire (are archived) unless promoted."""

    type: Literal["SessionEnded"] = "SessionEnded"
    session_id: SessionId
    reason: str = Field("", max_length=2000)


class PromoteRequested(Event):
    """Keep memories beyond their session: give them a wider scope (an expired one is restored too)."""

    type: Literal["PromoteRequested"] = "PromoteRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    scope: Scope = "global"
    reason: str = Field("", max_length=2000)


class RecallServed(Event):
    """What a recall (or a context block) handed to a caller, published by the read path after the
    fact, fire-and-forget; ``restore_ids`` are archived memories it served that should come back."""

    type: Literal["RecallServed"] = "RecallServed"
    memory_ids: tuple[UUID, ...] = Field(min_length=1, max_length=500)
    restore_ids: tuple[UUID, ...] = ()
    via: Literal["recall", "context"] = "recall"
    agent: AgentId | None = None


class MemoriesRecalled(Event):
    """The bank actor's record of a served recall: each memory's recall count and last recall time."""

    type: Literal["MemoriesRecalled"] = "MemoriesRecalled"
    memory_ids: tuple[UUID, ...]


class MemoryPromoted(Event):
    type: Literal["MemoryPromoted"] = "MemoryPromoted"
    memory_id: UUID
    scope: Scope
    reason: str = ""


CommandEvent = Union[ForgetRequested, CorrectionRequested, RetractionRequested, RestoreRequested,
                     JanitorTick, SessionEnded, PromoteRequested, RecallServed,
                     ReleaseRequested, RejectRequested, ExtractionCompleted]
MemoryEvent = Union[
    MemoryRetained,
    MemoriesRecalled,
    MemoryPromoted,
    MemoryReinforced,
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
                JanitorTick, SessionEnded, PromoteRequested, RecallServed, MemoriesRecalled, MemoryPromoted,
                MemoryRetained, MemorySuperseded, MemoryForgotten, MemoryArchived, MemoryRestored,
                MemoryQuarantined, MemoryReleased, SourceRetracted, ExtractionFailed,
                ReleaseRequested, RejectRequested, ExtractionCompleted, MemoryReinforced)
}
