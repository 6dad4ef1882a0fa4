"""A bank's decision state and ``evolve(state, event)``: the fold of its memory events.

The state holds only what decisions need (keys, statuses, lineage), never vectors, so a bank
actor can rebuild it from ``hindsight.memories`` on start-up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from uuid import UUID

from hindsight_es.events import Event, MemoryRetained
from hindsight_es.memory.lifecycle import changes
from hindsight_es.recall.indexing import index_text

Status = Literal["active", "superseded", "forgotten", "archived", "quarantined", "retracted"]


@dataclass(slots=True)
class MemoryInfo:
    memory_id: UUID
    kind: str
    text: str
    key: str | None
    value: str | None
    session_id: str | None
    source: str
    trust: str
    actor: str
    source_turn_ids: tuple[str, ...]
    valid_from: datetime
    importance: float = 0.5
    confidence: float = 0.7
    entities: tuple[str, ...] = ()
    status: Status = "active"
    valid_to: datetime | None = None
    supersedes: UUID | None = None
    superseded_by: UUID | None = None


@dataclass(slots=True)
class BankState:
    bank_id: str
    memories: dict[UUID, MemoryInfo] = field(default_factory=dict)
    heads: dict[str, UUID] = field(default_factory=dict)  # key -> the active memory holding it
    handled: set[UUID] = field(default_factory=set)  # input event ids already decided (redelivery guard)
    last_turn: dict[str, str] = field(default_factory=dict)  # session -> its latest turn, "speaker: text"

    def active(self) -> list[MemoryInfo]:
        return [m for m in self.memories.values() if m.status == "active"]


def evolve(state: BankState, event: Event) -> BankState:
    """Apply one memory event to the state (mutates and returns it)."""
    if event.causation_id is not None:
        state.handled.add(event.causation_id)
    if isinstance(event, MemoryRetained):
        state.memories[event.memory_id] = MemoryInfo(
            memory_id=event.memory_id, kind=event.kind, text=event.text, key=event.key, value=event.value,
            session_id=event.session_id, source=event.source, trust=event.trust, actor=event.actor,
            source_turn_ids=event.source_turn_ids, valid_from=event.valid_from,
            importance=event.importance, confidence=event.confidence, entities=event.entities,
        )
        _reindex(state, state.memories[event.memory_id])
        if event.kind == "episode" and event.session_id is not None:
            state.last_turn[event.session_id] = index_text(event.text, event.speaker)
    for memory_id, fields in changes(event):
        memory = state.memories.get(memory_id)
        if memory is not None:
            for name, value in fields.items():
                setattr(memory, name, value)
            _reindex(state, memory)
    return state


def _reindex(state: BankState, memory: MemoryInfo) -> None:
    """Keep ``heads`` pointing at the active memory of each key."""
    if memory.key is None:
        return
    if memory.status == "active":
        state.heads[memory.key] = memory.memory_id
    elif state.heads.get(memory.key) == memory.memory_id:
        del state.heads[memory.key]
