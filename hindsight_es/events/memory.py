"""Memory events: what the bank actor decided, on ``hindsight.memories`` (the actor is their only writer)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from uuid import UUID

import numpy as np
from pydantic import AwareDatetime, Field

from hindsight_es.events import vectors
from hindsight_es.events.base import Event, VectorBytes
from hindsight_es.events.inputs import RecallUse
from hindsight_es.types import AgentId, MemoryKind, Provenance, Scope, SessionId, Source, Trust, TurnId

# ---------------------------------------------------------------- memory events (bank actor only)


class MemoryRetained(Event):
    """Version 2 adds ``provenance`` and ``confirmed``; a version 1 record has neither (its provenance is
    its source's, ``trust.provenance_of``). Version 3 stores ``vector`` packed (``vectors.pack``, int8 with
    a scale) instead of float32: the upcaster (``upcasters``) packs the vectors of versions 1 and 2."""

    type: Literal["MemoryRetained"] = "MemoryRetained"
    schema_version: int = 3
    memory_id: UUID
    kind: MemoryKind
    text: str
    key: str | None = None
    value: str | None = None
    entities: tuple[str, ...] = ()
    importance: float = Field(default=0.5, ge=0, le=1)
    confidence: float = Field(default=0.7, ge=0, le=1)
    scope: Scope = "global"
    owner: AgentId | None = None  # the agent it is private to; None: shared with every reader of the bank
    session_id: SessionId | None = None
    speaker: str | None = None
    context: str | None = None  # the turn this one answers (same session), indexed with it
    source: Source = "user"
    trust: Trust = "trusted"
    source_turn_ids: tuple[TurnId, ...] = ()
    valid_from: AwareDatetime
    vector: VectorBytes = Field(
        description="base64 of a float32 little-endian scale and one int8 code per dimension (x = scale * code)"
        " since schema version 3; float32 little-endian before"
    )
    embedder: str
    extractor: str
    valid_until: AwareDatetime | None = None  # when the statement stops holding, where the speaker said so
    # Whose word it is (None on version 1 records: the source's) and whether a trusted principal (the
    # bank's owner) confirmed it; the owner's own statements are confirmed by definition.
    provenance: Provenance | None = None
    confirmed: bool = False
    quote: str | None = None  # the words of its turn a typed memory's statement was drawn from; None: the text

    def embedding(self) -> np.ndarray:
        """The vector as float32 (decoded from its packed bytes)."""
        return vectors.unpack(self.vector)


class MemoryReinforced(Event):
    """A candidate restated an active memory: more evidence (and, from trusted sources, confidence), no copy."""

    type: Literal["MemoryReinforced"] = "MemoryReinforced"
    memory_id: UUID
    evidence_turn_ids: tuple[TurnId, ...] = ()  # the turns that restated it, this one last
    confidence: float = Field(ge=0, le=1)
    source: Source = "user"
    reason: str = ""
    confirmed: bool = False  # the bank's owner restated it: an unverified memory becomes confirmed


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
    """A memory becomes active again (after forget, archive, supersession or retraction). Version 2: its
    ``revived`` is a version 3 ``MemoryRetained`` (the upcaster upcasts a version 1 record's)."""

    type: Literal["MemoryRestored"] = "MemoryRestored"
    schema_version: int = 2
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


class MemoryDisputed(Event):
    """A less trusted source contradicted a more trusted memory: both are kept, the trusted one stays active
    and on top; this one (``memory_id``) waits, disputed, for the owner to accept or reject it."""

    type: Literal["MemoryDisputed"] = "MemoryDisputed"
    memory_id: UUID
    disputes: UUID  # the more trusted memory it contradicts
    reason: str = ""
    open_disputes: tuple[UUID, ...] = ()  # every open dispute of ``disputes`` after this one, this one last


class DisputeResolved(Event):
    """The owner (or an operator) resolved a dispute: accepted, the challenger becomes active and confirmed
    (a ``MemorySuperseded`` of the disputed memory follows); rejected, it is forgotten."""

    type: Literal["DisputeResolved"] = "DisputeResolved"
    memory_id: UUID
    disputes: UUID
    outcome: Literal["accepted", "rejected"]
    reason: str = ""
    open_disputes: tuple[UUID, ...] = ()  # the disputes of ``disputes`` still open after this one
    # Set for an episode that said nothing but what its turn's typed memories say: resolved with the one named
    # (rejected with the first of them to be rejected, accepted once all of them are active).
    along_with: UUID | None = None


class BankOwnersSet(Event):
    """Who owns the bank: principals (an event's ``actor``, e.g. ``mcp:token-ab12cd34``) whose user turns
    are the owner's word. ``implicit``: no owner was declared, and the first principal to write a user
    turn became the owner."""

    type: Literal["BankOwnersSet"] = "BankOwnersSet"
    owners: tuple[str, ...]
    previous: tuple[str, ...] = ()
    implicit: bool = False
    reason: str = ""


class SourceRetracted(Event):
    type: Literal["SourceRetracted"] = "SourceRetracted"
    turn_ids: tuple[TurnId, ...]
    retracted_memory_ids: tuple[UUID, ...]
    restored_memory_ids: tuple[UUID, ...]
    reason: str = ""


class CommandIgnored(Event):
    """A command the bank actor decided that changed nothing: every memory it names is unknown to the bank or
    already as the command would leave it ("forget" of a forgotten memory, "restore" of an active one).

    Recorded so that the command is handled like any other: a redelivery after later decisions (a crash
    between append and commit re-delivers the whole batch) stays a no-op instead of acting on the later
    state (a no-op restore, then a forget, redelivered, had restored the forgotten memory), and a client
    waiting for the command's outcome sees at once that nothing changed, and why. Projections ignore it."""

    type: Literal["CommandIgnored"] = "CommandIgnored"
    command: str  # the command's type
    reason: str


class ExtractionFailed(Event):
    type: Literal["ExtractionFailed"] = "ExtractionFailed"
    turn_id: TurnId
    extractor: str
    error: str


class MemoriesRecalled(Event):
    """The bank actor's record of a served recall: each memory's recall count and last recall time."""

    type: Literal["MemoriesRecalled"] = "MemoriesRecalled"
    memory_ids: tuple[UUID, ...]


class RecallsCounted(Event):
    """The bank actor's record of a ``RecallsTallied``: each memory's recalls over the interval and the
    last of them, for the memories the bank still holds (``count`` recalls, like as many ``MemoriesRecalled``)."""

    type: Literal["RecallsCounted"] = "RecallsCounted"
    uses: tuple[RecallUse, ...]


def erased_text(by: str | None, at: str | None, reason: str = "") -> str:
    """What erased content reads as, in the log and everywhere derived from it."""
    if by is None:
        return "[erased]"
    return f"[erased by {by} at {at}: {reason}]" if reason else f"[erased by {by} at {at}]"


def is_erased_text(text: str) -> bool:
    """Whether ``text`` reads as ``erased_text`` writes it (a memory's text after its ``ContentErased``)."""
    return text == "[erased]" or (text.startswith("[erased by ") and text.endswith("]"))


def is_erased_turn(text: str, metadata: Mapping[str, object]) -> bool:
    """A turn whose content was erased (its placeholder and the metadata ``log.sealed`` gives it)."""
    by, at = metadata.get("erased_by"), metadata.get("erased_at")
    if not isinstance(by, str) or not isinstance(at, str):
        return False
    reason = metadata.get("erased_reason")
    return text == erased_text(by, at, reason if isinstance(reason, str) else "")


class ContentErased(Event):
    """The content of these memories and turns is gone (their keys destroyed): they leave every store and
    read as an erased placeholder in the log. What stays: that they were erased, by whom, when, why."""

    type: Literal["ContentErased"] = "ContentErased"
    memory_ids: tuple[UUID, ...] = ()
    turn_ids: tuple[TurnId, ...] = ()
    session_id: SessionId | None = None
    erased_by: str = ""
    reason: str = ""


class MemoryPromoted(Event):
    type: Literal["MemoryPromoted"] = "MemoryPromoted"
    memory_id: UUID
    scope: Scope
    reason: str = ""
