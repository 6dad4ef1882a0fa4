"""What a decision is given besides the state and the input: the model work done before it (``Prepared``)
and the envelope of the events it causes (``caused``), and the answer to a command that changes nothing
(``ignored``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypedDict
from uuid import UUID

import numpy as np

from hindsight_es.events import CommandIgnored, Event
from hindsight_es.events.candidates import Candidate, GuardJudgement
from hindsight_es.memory.ids import derive_id


@dataclass(frozen=True, slots=True)
class Prepared:
    """Model output for one input: candidates and one vector per text it may retain. A turn's: one per candidate.
    A correction's: its words' typed candidates, one vector each, then one more, the words' own, last."""

    candidates: Sequence[Candidate]
    vectors: np.ndarray
    embedder: str
    extractor: str
    context: str | None = None  # the previous turn of the session, "speaker: text"
    failure: tuple[str, str] | None = None  # (extractor that failed, why): the candidates are the fallback's
    judged: GuardJudgement | None = None  # the LLM guard judge's verdict on the turn (``memory.judge``)


class Envelope(TypedDict):
    bank_id: str
    occurred_at: datetime
    causation_id: UUID
    actor: str


def caused(event: Event) -> Envelope:
    """The envelope of an event decided for ``event``."""
    return {
        "bank_id": event.bank_id,
        "occurred_at": event.occurred_at,
        "causation_id": event.event_id,
        "actor": event.actor,
    }


def ignored(command: Event, reason: str) -> CommandIgnored:
    """The bank actor's answer to ``command`` when it changes nothing, and why (``CommandIgnored``)."""
    return CommandIgnored(
        event_id=derive_id(command.event_id, "ignored"), **caused(command), command=command.type, reason=reason
    )
