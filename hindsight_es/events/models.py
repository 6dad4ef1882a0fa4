"""The event catalogue: frozen, past-tense facts with a ``type`` discriminator.

Three streams: clients publish ``TurnRecorded`` to ``hindsight.turns``; requests go to
``hindsight.commands`` (``events.inputs``); only the bank actor writes the memory events to
``hindsight.memories`` (``events.memory``). ``AnyEvent`` decodes any of them.
"""

from __future__ import annotations

from typing import Annotated, Union, get_args

from pydantic import Field

from hindsight_es.events.base import Event, VectorBytes, utcnow
from hindsight_es.events.inputs import (
    DEFAULT_HALF_LIVES,
    DEFAULT_WEIGHTS,
    CorrectionRequested,
    DisputeResolutionRequested,
    ErasureRequested,
    ExtractionCompleted,
    ForgetRequested,
    JanitorTick,
    PromoteRequested,
    RecallServed,
    RecallsTallied,
    RecallUse,
    RejectRequested,
    ReleaseRequested,
    RestoreRequested,
    RetentionPolicy,
    RetractionRequested,
    SessionEnded,
    SetOwnersRequested,
    TokenUsage,
    TurnExtraction,
    TurnRecorded,
)
from hindsight_es.events.memory import (
    BankOwnersSet,
    CommandIgnored,
    ContentErased,
    DisputeResolved,
    ExtractionFailed,
    MemoriesRecalled,
    MemoryArchived,
    MemoryDisputed,
    MemoryForgotten,
    MemoryPromoted,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryReleased,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    RecallsCounted,
    SourceRetracted,
)

CommandEvent = Union[
    ForgetRequested,
    CorrectionRequested,
    RetractionRequested,
    RestoreRequested,
    JanitorTick,
    SessionEnded,
    PromoteRequested,
    RecallServed,
    RecallsTallied,
    ReleaseRequested,
    RejectRequested,
    ExtractionCompleted,
    SetOwnersRequested,
    DisputeResolutionRequested,
    ErasureRequested,
]
MemoryEvent = Union[
    MemoryRetained,
    MemoriesRecalled,
    RecallsCounted,
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
    CommandIgnored,
    MemoryDisputed,
    DisputeResolved,
    BankOwnersSet,
    ContentErased,
]
AnyEvent = Annotated[Union[TurnRecorded, CommandEvent, MemoryEvent], Field(discriminator="type")]

EVENT_TYPES: dict[str, type[Event]] = {
    cls.model_fields["type"].default: cls for cls in (TurnRecorded, *get_args(CommandEvent), *get_args(MemoryEvent))
}

__all__ = [
    "DEFAULT_HALF_LIVES",
    "DEFAULT_WEIGHTS",
    "EVENT_TYPES",
    "AnyEvent",
    "CommandEvent",
    "Event",
    "MemoryEvent",
    "RetentionPolicy",
    "TokenUsage",
    "TurnExtraction",
    "VectorBytes",
    "utcnow",
    "TurnRecorded",
    "ForgetRequested",
    "CorrectionRequested",
    "RetractionRequested",
    "RestoreRequested",
    "JanitorTick",
    "SessionEnded",
    "PromoteRequested",
    "RecallServed",
    "RecallsTallied",
    "RecallUse",
    "ReleaseRequested",
    "RejectRequested",
    "ExtractionCompleted",
    "SetOwnersRequested",
    "DisputeResolutionRequested",
    "MemoryRetained",
    "MemoriesRecalled",
    "RecallsCounted",
    "MemoryPromoted",
    "MemoryReinforced",
    "MemorySuperseded",
    "MemoryForgotten",
    "MemoryArchived",
    "MemoryRestored",
    "MemoryQuarantined",
    "MemoryReleased",
    "SourceRetracted",
    "ExtractionFailed",
    "CommandIgnored",
    "MemoryDisputed",
    "DisputeResolved",
    "BankOwnersSet",
    "ErasureRequested",
    "ContentErased",
]
