"""What clients and the read path publish: ``TurnRecorded`` on ``hindsight.turns``, and the requests
(commands) on ``hindsight.commands`` that the bank actor decides, lifecycle ticks included."""

from __future__ import annotations

from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat

from hindsight_es.events.base import Event
from hindsight_es.events.candidates import Candidate, GuardJudgement
from hindsight_es.types import AgentId, Role, Scope, SessionId, Source, Time, Trust, TurnId

# ---------------------------------------------------------------- turns


class TurnRecorded(Event):
    type: Literal["TurnRecorded"] = "TurnRecorded"
    session_id: SessionId
    turn_id: TurnId
    role: Role = "user"
    speaker: str | None = Field(default=None, max_length=256)
    text: str
    source: Source = "user"
    trust: Trust | None = None
    metadata: dict[str, str | int | FiniteFloat | bool | None] = Field(default_factory=dict)  # JSON has no NaN
    # Who the memories from this turn belong to: an agent id makes them private to that agent (None:
    # shared by everyone who reads the bank); ``scope`` "session" makes them expire with the session.
    owner: AgentId | None = None
    scope: Scope = "global"


# ---------------------------------------------------------------- commands


class ForgetRequested(Event):
    type: Literal["ForgetRequested"] = "ForgetRequested"
    memory_ids: tuple[UUID, ...] = ()
    session_id: SessionId | None = None
    reason: str = Field(default="", max_length=2000)
    since: Time | None = None  # with ``until``: memories valid from [since, until); ANDed with session
    until: Time | None = None


class CorrectionRequested(Event):
    type: Literal["CorrectionRequested"] = "CorrectionRequested"
    memory_id: UUID
    text: str = Field(min_length=1)
    reason: str = Field(default="", max_length=2000)


class RetractionRequested(Event):
    """Retract everything derived from matching turns; criteria are ANDed, at least one is set."""

    type: Literal["RetractionRequested"] = "RetractionRequested"
    session_id: SessionId | None = None
    turn_ids: tuple[TurnId, ...] = ()
    source: Source | None = None
    turn_actor: str | None = None
    since: Time | None = None
    until: Time | None = None
    reason: str = Field(default="", max_length=2000)


class ErasureRequested(Event):
    """An operator erases content for good (crypto-shredding): a session, a turn or a memory, one set.
    ``units`` are the data keys destroyed with it (``log.keys``); the bank actor answers ``ContentErased``."""

    type: Literal["ErasureRequested"] = "ErasureRequested"
    session_id: SessionId | None = None
    turn_id: TurnId | None = None
    memory_id: UUID | None = None
    units: tuple[str, ...] = ()
    reason: str = Field(default="", max_length=2000)


class RestoreRequested(Event):
    type: Literal["RestoreRequested"] = "RestoreRequested"
    memory_ids: tuple[UUID, ...] = ()
    reason: str = Field(default="", max_length=2000)


class ReleaseRequested(Event):
    """An operator releases quarantined memories: they become active (recallable)."""

    type: Literal["ReleaseRequested"] = "ReleaseRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    reason: str = Field(default="", max_length=2000)


class RejectRequested(Event):
    """An operator rejects quarantined memories: they are forgotten with reason "rejected"."""

    type: Literal["RejectRequested"] = "RejectRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    reason: str = Field(default="", max_length=2000)


class SetOwnersRequested(Event):
    """An operator declares the bank's owners (principals, as recorded in events' ``actor``)."""

    type: Literal["SetOwnersRequested"] = "SetOwnersRequested"
    owners: tuple[Annotated[str, Field(min_length=1, max_length=256)], ...] = Field(max_length=64)
    reason: str = Field(default="", max_length=2000)


class DisputeResolutionRequested(Event):
    """The bank's owner (``actor`` among its owners) or an operator accepts or rejects disputed memories."""

    type: Literal["DisputeResolutionRequested"] = "DisputeResolutionRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    outcome: Literal["accept", "reject"]
    reason: str = Field(default="", max_length=2000)
    operator: bool = False  # set by the CLI and by operator connections of the gateway


class TokenUsage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    calls: int = Field(default=0, ge=0)  # HTTP requests made, retries included


class TurnExtraction(BaseModel):
    """One turn, copied whole, and the candidates extracted from it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: TurnRecorded
    candidates: tuple[Candidate, ...] = ()
    guard: GuardJudgement | None = None  # the LLM guard judge's verdict, when it judged the turn


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
    error: str | None = Field(default=None, max_length=2000)
    latency_ms: int = Field(default=0, ge=0)


# ---------------------------------------------------------------- lifecycle: decay, archive, scopes


class RetentionPolicy(BaseModel):
    """How the janitor's tick scores and archives memories (see ``memory/retention.py``); carried in
    the tick, so re-deciding it gives the same result whatever the settings are by then."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float = Field(default=0.1, ge=0, le=1)  # archive an active memory whose retention falls below
    half_life_days: dict[str, float | None] = Field(default_factory=lambda: dict(DEFAULT_HALF_LIVES))
    weights: dict[str, float] = Field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    recall_saturation: int = Field(default=8, ge=1)  # recalls that earn the whole recall weight
    grace_days: float = Field(default=1.0, ge=0)  # younger memories are never archived for decay
    capacity: int | None = Field(default=None, ge=0)  # most active memories the bank keeps (lowest retention goes)
    session_idle_hours: float | None = Field(default=24.0, gt=0)  # session-scoped memories expire after this idle time


# Days after which a memory's freshness halves (None: never fades); kinds not listed use "default".
DEFAULT_HALF_LIVES: dict[str, float | None] = {
    "episode": 14.0,
    "plan": 30.0,
    "summary": 90.0,
    "fact": 180.0,
    "decision": 180.0,
    "preference": 365.0,
    "correction": 365.0,
    "constraint": 730.0,
    "default": 90.0,
}
DEFAULT_WEIGHTS: dict[str, float] = {"importance": 0.6, "confidence": 0.2, "recalls": 0.2}


class JanitorTick(Event):
    """The janitor's scheduled (or over-capacity) request to archive what has faded; its
    ``occurred_at`` is the "now" of every decision it causes."""

    type: Literal["JanitorTick"] = "JanitorTick"
    policy: RetentionPolicy = Field(default_factory=RetentionPolicy)
    reason: str = Field(default="schedule", max_length=200)


class SessionEnded(Event):
    """A session is over: its session-scoped memories expire (are archived) unless promoted."""

    type: Literal["SessionEnded"] = "SessionEnded"
    session_id: SessionId
    reason: str = Field(default="", max_length=2000)


class PromoteRequested(Event):
    """Keep memories beyond their session: give them a wider scope (an expired one is restored too)."""

    type: Literal["PromoteRequested"] = "PromoteRequested"
    memory_ids: tuple[UUID, ...] = Field(min_length=1)
    scope: Scope = "global"
    reason: str = Field(default="", max_length=2000)


class RecallServed(Event):
    """What a recall (or a context block) handed to a caller, published by the read path after the
    fact, fire-and-forget; ``restore_ids`` are archived memories it served that should come back."""

    type: Literal["RecallServed"] = "RecallServed"
    memory_ids: tuple[UUID, ...] = Field(min_length=1, max_length=500)
    restore_ids: tuple[UUID, ...] = ()
    via: Literal["recall", "context"] = "recall"
    agent: AgentId | None = None


MAX_TALLIED = 500  # memories one RecallsTallied counts: ~104 B of JSON each, with the restore ids <= ~75 KB


class RecallUse(BaseModel):
    """How often recall served one memory within a tally, and when last."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    memory_id: UUID
    count: int = Field(ge=1)
    last_at: Time


class RecallsTallied(Event):
    """What the recalls of one reading process served from one bank over an interval (``since`` to
    ``occurred_at``), summed per memory: one event per bank and interval whatever the recall rate, in
    place of a ``RecallServed`` per recall. ``uses`` keeps the ``MAX_TALLIED`` most used memories
    (``dropped`` counts the memories left out); ``restore_ids`` are archived memories it served that
    should come back (at most ``MAX_TALLIED``)."""

    type: Literal["RecallsTallied"] = "RecallsTallied"
    since: Time
    recalls: int = Field(ge=0)  # recalls and context blocks that served this bank in the interval
    uses: tuple[RecallUse, ...] = Field(min_length=1, max_length=MAX_TALLIED)
    restore_ids: tuple[UUID, ...] = Field(default=(), max_length=MAX_TALLIED)
    dropped: int = Field(default=0, ge=0)
