"""What an extractor returns: typed memory candidates for one turn, and the ``Extractor`` protocol."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from hindsight_es.types import MemoryKind

__all__ = ["Candidate", "Extractor", "MemoryKind"]


class Candidate(BaseModel):
    """One memory the extractor proposes; the bank actor decides whether to retain it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: MemoryKind
    # A self-contained statement: the speaker's sentence for typed kinds, the whole turn for episodes.
    text: str
    # "subject/attribute", e.g. "user/location"; equal keys with different values supersede. None for episodes.
    key: str | None = None
    # The attribute's normalized (lowercase) value, e.g. "postgresql", "顺丰", "not:coffee".
    value: str | None = None
    entities: tuple[str, ...] = ()
    importance: float = Field(0.5, ge=0, le=1)
    confidence: float = Field(0.7, ge=0, le=1)
    # The speaker explicitly corrected an earlier statement ("不对，…", "actually, …", "no, it's …").
    is_correction: bool = False


class Extractor(Protocol):
    """Turns one turn's text into candidates; must be deterministic for replay to be exact."""

    id: str  # versioned, e.g. "rules/1"; recorded with the memories it produced

    def extract(self, text: str, *, speaker: str | None = None, source: str = "user") -> list[Candidate]: ...
