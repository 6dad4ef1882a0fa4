"""What an extractor returns: typed memory candidates for one turn, and the ``Extractor`` protocol."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from hindsight_es.events.candidates import Candidate, Judgement, Relation
from hindsight_es.types import MemoryKind

__all__ = ["Candidate", "Extractor", "Judgement", "LLMExtraction", "LLMMemory", "MemoryKind", "Relation"]


class Extractor(Protocol):
    """Turns one turn's text into candidates; must be deterministic for replay to be exact."""

    id: str  # versioned, e.g. "rules/1"; recorded with the memories it produced

    def extract(self, text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]: ...


# ---- the LLM extractor's answer (validated before anything is kept) ----------------------------

LLMKind = Literal["fact", "preference", "plan", "decision", "correction", "constraint", "summary"]


def _when(value: object) -> datetime | None:
    """An ISO date or datetime (a date means midnight UTC); anything else is "not stated"."""
    if value is None or isinstance(value, datetime):
        return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)
    try:
        parsed = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


class LLMMemory(BaseModel):
    """One memory as the LLM proposes it (``prompts.SYSTEM`` documents the fields)."""

    model_config = ConfigDict(extra="ignore")

    turn: int = Field(ge=1)
    kind: LLMKind
    text: str = Field(min_length=1, max_length=2000)
    subject: str | None = Field(default=None, max_length=100)
    attribute: str | None = Field(default=None, max_length=100)
    value: str | None = Field(default=None, max_length=500)
    entities: list[str] = Field(default_factory=list, max_length=32)
    importance: float = Field(default=0.5, ge=0, le=1)
    confidence: float = Field(default=0.7, ge=0, le=1)
    valid_from: Annotated[datetime | None, BeforeValidator(_when)] = None
    valid_to: Annotated[datetime | None, BeforeValidator(_when)] = None
    is_correction: bool = False
    relation: Relation = "new"
    target: str | None = Field(default=None, max_length=20)
    reason: str = Field(default="", max_length=500)

    @field_validator("value", "subject", "attribute", "target", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value


class LLMExtraction(BaseModel):
    """The whole answer: ``{"memories": [...]}``; an empty list means nothing worth remembering."""

    model_config = ConfigDict(extra="ignore")

    memories: list[LLMMemory] = Field(max_length=100)
