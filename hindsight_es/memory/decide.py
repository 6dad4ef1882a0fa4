"""``decide(state, input, prepared) -> events``: every decision the bank actor takes, as a pure function.

Model work (extraction, embedding) happens before, in the actor, and arrives as ``Prepared``; the
events carry its output so replays never repeat it. Ids are derived from the input event id, so a
redelivered input yields the same ids (and the ``handled`` set drops it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from uuid import NAMESPACE_URL, UUID, uuid5

import numpy as np

from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ForgetRequested,
    MemoryForgotten,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    RestoreRequested,
    RetractionRequested,
    SourceRetracted,
    TurnRecorded,
)
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory.state import BankState, MemoryInfo
from hindsight_es.types import DEFAULT_TRUST

_NAMESPACE = uuid5(NAMESPACE_URL, "https://hindsight.local/ids")


def derive_id(cause: UUID, suffix: str) -> UUID:
    return uuid5(_NAMESPACE, f"{cause}/{suffix}")


@dataclass(frozen=True, slots=True)
class Prepared:
    """Model output for one input: candidates (turns) and one vector per text to retain."""

    candidates: Sequence[Candidate]
    vectors: np.ndarray
    embedder: str
    extractor: str
    context: str | None = None  # the previous turn of the session, "speaker: text"


def decide(state: BankState, event: Event, prepared: Prepared | None = None) -> list[Event]:
    if event.event_id in state.handled:
        return []
    match event:
        case TurnRecorded():
            return _decide_turn(state, event, prepared) if prepared else []
        case ForgetRequested():
            return _decide_forget(state, event)
        case CorrectionRequested():
            return _decide_correction(state, event, prepared) if prepared else []
        case RetractionRequested():
            return _decide_retraction(state, event)
        case RestoreRequested():
            return _decide_restore(state, event)
    return []


def _decide_turn(state: BankState, turn: TurnRecorded, prepared: Prepared) -> list[Event]:
    trust = turn.trust or DEFAULT_TRUST[turn.source]
    heads = dict(state.heads)  # candidates of one turn see each other
    events: list[Event] = []
    for i, (cand, vector) in enumerate(zip(prepared.candidates, prepared.vectors, strict=True)):
        head = heads.get(cand.key) if cand.key else None
        if head is not None and not cand.is_correction and _value_of(state, events, head) == cand.value:
            continue  # restates the active memory: nothing new to hold
        memory_id = derive_id(turn.event_id, f"memory/{i}")
        events.append(MemoryRetained(
            event_id=derive_id(turn.event_id, f"retained/{i}"), bank_id=turn.bank_id,
            occurred_at=turn.occurred_at, causation_id=turn.event_id, actor=turn.actor,
            memory_id=memory_id, kind=cand.kind, text=cand.text, key=cand.key, value=cand.value,
            entities=cand.entities, importance=cand.importance, confidence=cand.confidence,
            session_id=turn.session_id, speaker=turn.speaker, context=prepared.context, source=turn.source, trust=trust,
            source_turn_ids=(turn.turn_id,), valid_from=turn.occurred_at, vector=vector,
            embedder=prepared.embedder, extractor=prepared.extractor,
        ))
        if head is not None:
            events.append(MemorySuperseded(
                event_id=derive_id(turn.event_id, f"superseded/{i}"), bank_id=turn.bank_id,
                occurred_at=turn.occurred_at, causation_id=turn.event_id, actor=turn.actor,
                memory_id=head, superseded_by=memory_id, valid_to=turn.occurred_at,
                reason="correction" if cand.is_correction else f"new value for {cand.key}",
            ))
        if cand.key:
            heads[cand.key] = memory_id
    return events


def _value_of(state: BankState, pending: list[Event], memory_id: UUID) -> str | None:
    for event in pending:
        if isinstance(event, MemoryRetained) and event.memory_id == memory_id:
            return event.value
    return state.memories[memory_id].value


def _decide_forget(state: BankState, command: ForgetRequested) -> list[Event]:
    targets = set(command.memory_ids)
    if command.session_id is not None:
        targets |= {m.memory_id for m in state.memories.values() if m.session_id == command.session_id}
    return [
        MemoryForgotten(
            event_id=derive_id(command.event_id, f"forgotten/{memory_id}"), bank_id=command.bank_id,
            occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
            memory_id=memory_id, reason=command.reason,
        )
        for memory_id in sorted(targets, key=str)
        if memory_id in state.memories and state.memories[memory_id].status not in ("forgotten", "retracted")
    ]


def _decide_correction(state: BankState, command: CorrectionRequested, prepared: Prepared) -> list[Event]:
    old = state.memories.get(command.memory_id)
    if old is None or old.status in ("forgotten", "retracted"):
        return []
    new_id = derive_id(command.event_id, "memory/0")
    return [
        MemoryRetained(
            event_id=derive_id(command.event_id, "retained/0"), bank_id=command.bank_id,
            occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
            memory_id=new_id, kind="correction" if old.kind == "episode" else old.kind, text=command.text,
            key=old.key or f"memory/{old.memory_id}", value=old.value if old.key is None else None,
            entities=old.entities, importance=max(old.importance, 0.6), confidence=0.95,
            session_id=old.session_id, source="user", trust="trusted", source_turn_ids=old.source_turn_ids,
            valid_from=command.occurred_at, vector=prepared.vectors[0],
            embedder=prepared.embedder, extractor="correction",
        ),
        MemorySuperseded(
            event_id=derive_id(command.event_id, "superseded/0"), bank_id=command.bank_id,
            occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
            memory_id=old.memory_id, superseded_by=new_id, valid_to=command.occurred_at,
            reason=command.reason or "corrected",
        ),
    ]


def matches(memory: MemoryInfo, command: RetractionRequested) -> bool:
    """Whether a memory derives from the turns a retraction names (criteria are ANDed)."""
    return (
        (command.session_id is None or memory.session_id == command.session_id)
        and (not command.turn_ids or bool(set(command.turn_ids) & set(memory.source_turn_ids)))
        and (command.source is None or memory.source == command.source)
        and (command.turn_actor is None or memory.actor == command.turn_actor)
        and (command.since is None or memory.valid_from >= command.since)
        and (command.until is None or memory.valid_from < command.until)
    )


def plan_retraction(state: BankState, command: RetractionRequested) -> tuple[list[MemoryInfo], list[MemoryInfo]]:
    """The memories a retraction removes and the ones it brings back (what they had displaced)."""
    retracted = [m for m in state.memories.values() if m.status != "retracted" and matches(m, command)]
    gone = {m.memory_id for m in retracted}
    restored: dict[UUID, MemoryInfo] = {}
    for memory in retracted:
        if memory.status != "active":
            continue  # only a displaced key head gives its place back
        previous = _first_survivor(state, memory.supersedes, gone)
        if previous is not None and previous.status == "superseded":
            restored[previous.memory_id] = previous
    order = lambda m: (m.valid_from, str(m.memory_id))  # noqa: E731
    return sorted(retracted, key=order), sorted(restored.values(), key=order)


def _first_survivor(state: BankState, memory_id: UUID | None, gone: set[UUID]) -> MemoryInfo | None:
    while memory_id is not None:
        memory = state.memories.get(memory_id)
        if memory is None:
            return None
        if memory_id not in gone and memory.status != "forgotten":
            return memory
        memory_id = memory.supersedes
    return None


def _decide_retraction(state: BankState, command: RetractionRequested) -> list[Event]:
    retracted, restored = plan_retraction(state, command)
    turn_ids = sorted({t for m in retracted for t in m.source_turn_ids})
    return [SourceRetracted(
        event_id=derive_id(command.event_id, "retracted"), bank_id=command.bank_id,
        occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
        turn_ids=tuple(turn_ids), retracted_memory_ids=tuple(m.memory_id for m in retracted),
        restored_memory_ids=tuple(m.memory_id for m in restored), reason=command.reason,
    )]


def _decide_restore(state: BankState, command: RestoreRequested) -> list[Event]:
    events: list[Event] = []
    for memory_id in _unique(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status == "active":
            continue
        events.append(MemoryRestored(
            event_id=derive_id(command.event_id, f"restored/{memory_id}"), bank_id=command.bank_id,
            occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
            memory_id=memory_id, reason=command.reason,
        ))
        head = state.heads.get(memory.key) if memory.key else None
        if head is not None and head != memory_id:
            events.append(MemorySuperseded(
                event_id=derive_id(command.event_id, f"superseded/{memory_id}"), bank_id=command.bank_id,
                occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
                memory_id=head, superseded_by=memory_id, valid_to=command.occurred_at, reason="restored",
            ))
    return events


def _unique(ids: Iterable[UUID]) -> list[UUID]:
    return list(dict.fromkeys(ids))
