"""What an extractor proposes for one turn: typed memory candidates, carried in events.

They are part of the event vocabulary (``ExtractionCompleted`` records them, so replays never call an
extractor again); ``hindsight_es.extraction`` produces them.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from hindsight_es.types import MemoryKind

__all__ = ["Candidate", "GuardJudgement", "Judgement", "Relation"]

# How a candidate relates to an active memory, as an LLM judged it.
Relation = Literal["new", "restates", "updates", "contradicts"]


class Judgement(BaseModel):
    """An LLM's judgement between a candidate and one of its nearest active memories."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relation: Relation
    memory_id: UUID | None = None  # the active memory it restates, updates or contradicts
    reason: str = Field(default="", max_length=500)
    model: str = ""  # who judged (the LLM's model id)


class GuardJudgement(BaseModel):
    """The optional LLM guard judge's verdict on a turn that is not the owner's, given its provenance and
    the bank's nearest trusted memories (``memory.judge``). Recorded in ``ExtractionCompleted``, so a replay
    decides from it and never asks again. It can only hold a turn back, never let one through."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: Literal["admit", "dispute", "quarantine"]
    memory_id: UUID | None = None  # the trusted memory a "dispute" is about
    reason: str = Field(default="", max_length=500)
    model: str = ""


class Candidate(BaseModel):
    """One memory the extractor proposes; the bank actor decides whether to retain it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: MemoryKind
    # A self-contained statement: a short conclusion for typed kinds, the whole turn for episodes.
    text: str
    # The words of the turn a typed candidate was drawn from (its sentence); None: the text itself.
    quote: str | None = None
    # "subject/attribute", e.g. "user/location"; equal keys with different values supersede. None for episodes.
    key: str | None = None
    # The attribute's normalized (lowercase) value, e.g. "postgresql", "顺丰", "not:coffee".
    value: str | None = None
    entities: tuple[str, ...] = ()
    importance: float = Field(default=0.5, ge=0, le=1)
    confidence: float = Field(default=0.7, ge=0, le=1)
    # The speaker explicitly corrected an earlier statement ("不对，…", "actually, …", "no, it's …").
    is_correction: bool = False
    # When the statement holds, where the speaker said so ("next week", "until May"); None: from the turn on.
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    judgement: Judgement | None = None

    @property
    def said(self) -> str:
        """The words of the turn it stands for: its quote, or its text when it is the turn's own."""
        return self.quote or self.text
