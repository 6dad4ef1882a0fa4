"""``decide(state, input, prepared) -> events``: every decision the bank actor takes, as a pure function.

Model work (extraction, embedding) happens before, in the actor, and arrives as ``Prepared``; the
events carry its output so replays never repeat it. Ids are derived from the input event id, so a
redelivered input yields the same ids (and the ``handled`` set drops it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from uuid import UUID

import numpy as np

from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ExtractionFailed,
    ForgetRequested,
    JanitorTick,
    MemoryForgotten,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryReleased,
    MemoryRetained,
    MemorySuperseded,
    PromoteRequested,
    RecallServed,
    RejectRequested,
    ReleaseRequested,
    RestoreRequested,
    RetractionRequested,
    SessionEnded,
    SourceRetracted,
    TurnRecorded,
)
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import episodes, guard
from hindsight_es.memory.guard import DEFAULT_POLICY, GuardPolicy
from hindsight_es.memory.forgetting import Revived, decide_lifecycle, in_forget_range, restored
from hindsight_es.memory import ids
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.state import BankState, MemoryInfo, text_key
from hindsight_es.types import DEFAULT_TRUST


@dataclass(frozen=True, slots=True)
class Prepared:
    """Model output for one input: candidates (turns) and one vector per text to retain."""

    candidates: Sequence[Candidate]
    vectors: np.ndarray
    embedder: str
    extractor: str
    context: str | None = None  # the previous turn of the session, "speaker: text"
    failure: tuple[str, str] | None = None  # (extractor that failed, why): the candidates are the fallback's


def decide(state: BankState, event: Event, prepared: Prepared | None = None,
           policy: GuardPolicy = DEFAULT_POLICY, *, revived: Revived | None = None) -> list[Event]:
    """``revived``: the retained events of archived memories the input may bring back (``forgetting.revivals``).
    Episodes follow their turn's typed memories (``episodes``): the events that retire or restore them come last."""
    if event.event_id in state.handled:
        return []
    decided = _decide(state, event, prepared, policy, revived)
    return decided + episodes.follow(state, event, decided) if decided else decided


def _decide(state: BankState, event: Event, prepared: Prepared | None, policy: GuardPolicy,
            revived: Revived | None) -> list[Event]:
    match event:
        case TurnRecorded():
            return _decide_turn(state, event, prepared, policy) if prepared else []
        case ForgetRequested():
            return _decide_forget(state, event)
        case CorrectionRequested():
            return _decide_correction(state, event, prepared, policy) if prepared else []
        case RetractionRequested():
            return _decide_retraction(state, event)
        case RestoreRequested():
            return _decide_restore(state, event, revived or {})
        case JanitorTick() | SessionEnded() | RecallServed() | PromoteRequested():
            return decide_lifecycle(state, event, revived or {})
        case ReleaseRequested():
            return _decide_release(state, event)
        case RejectRequested():
            return _decide_reject(state, event)
    return []


def _caused(event: Event) -> dict[str, object]:
    """The envelope of an event decided for ``event``."""
    return {"bank_id": event.bank_id, "occurred_at": event.occurred_at, "causation_id": event.event_id,
            "actor": event.actor}


def _decide_turn(state: BankState, turn: TurnRecorded, prepared: Prepared, policy: GuardPolicy) -> list[Event]:
    """Per candidate, in order: quarantine (the guard), reinforce (a restatement), or retain and supersede."""
    trust = turn.trust or DEFAULT_TRUST[turn.source]
    events: list[Event] = []
    if prepared.failure is not None:
        events.append(ExtractionFailed(event_id=derive_id(turn.event_id, "extraction-failed"), **_caused(turn),
                                       turn_id=turn.turn_id, extractor=prepared.failure[0], error=prepared.failure[1]))
    verdict = guard.screen(state, turn.text, prepared.candidates, trust=trust, source=turn.source,
                           session_id=turn.session_id, policy=policy)
    heads = dict(state.heads)  # candidates of one turn see each other
    for i, (cand, vector) in enumerate(zip(prepared.candidates, prepared.vectors, strict=True)):
        head = heads.get(cand.key) if cand.key else None
        if verdict.quarantine:
            retained = _retained(turn, i, cand, vector, prepared, trust)
            events += [retained, MemoryQuarantined(event_id=derive_id(turn.event_id, f"quarantined/{i}"), **_caused(turn),
                                                   memory_id=retained.memory_id, reason=verdict.reason)]
            continue
        restated = _restated(state, events, head, cand)
        if restated is not None:
            if (reinforced := _reinforce(state, turn, i, restated, cand, trust)) is not None:
                events.append(reinforced)
            continue
        retained = _retained(turn, i, cand, vector, prepared, trust)
        events.append(retained)
        for j, (old, reason) in enumerate(_displaced(state, head, cand)):
            events.append(MemorySuperseded(
                event_id=derive_id(turn.event_id, f"superseded/{i}" + (f"/{j}" if j else "")), **_caused(turn),
                memory_id=old, superseded_by=retained.memory_id, valid_to=turn.occurred_at, reason=reason,
            ))
        if cand.key:
            heads[cand.key] = retained.memory_id
    return events


def _retained(turn: TurnRecorded, i: int, cand: Candidate, vector: np.ndarray, prepared: Prepared,
              trust: str) -> MemoryRetained:
    return MemoryRetained(
        event_id=derive_id(turn.event_id, f"retained/{i}"), **_caused(turn),
        memory_id=ids.memory_id(turn.event_id, i), kind=cand.kind, text=cand.text, key=cand.key,
        value=cand.value, entities=cand.entities, importance=cand.importance, confidence=cand.confidence,
        session_id=turn.session_id, speaker=turn.speaker, context=prepared.context, source=turn.source, trust=trust,
        scope=turn.scope, owner=turn.owner,
        source_turn_ids=(turn.turn_id,), valid_from=cand.valid_from or turn.occurred_at, valid_until=cand.valid_to,
        vector=vector, embedder=prepared.embedder, extractor=prepared.extractor,
    )


def _restated(state: BankState, pending: list[Event], head: UUID | None, cand: Candidate) -> UUID | None:
    """The active memory this candidate says again (same key and value, same text, or as an LLM judged)."""
    if cand.is_correction:
        return None  # a correction is always a new memory: it wins over what was said before
    if head is not None:
        return head if _value_of(state, pending, head) == cand.value else None
    judged = cand.judgement
    if judged is not None and judged.relation == "restates" and _active(state, judged.memory_id):
        return judged.memory_id
    same = text_key(cand.kind, cand.text)
    found = state.texts.get(same) if len(same[1]) >= 2 else None
    if found is not None and _active(state, found) and state.memories[found].key == cand.key:
        return found
    return None


def _active(state: BankState, memory_id: UUID | None) -> bool:
    return memory_id is not None and memory_id in state.memories and state.memories[memory_id].status == "active"


_GAIN = {"trusted": 0.3, "normal": 0.15}  # share of the remaining doubt one restatement removes, by trust


def _reinforce(state: BankState, turn: TurnRecorded, i: int, memory_id: UUID, cand: Candidate,
               trust: str) -> MemoryReinforced | None:
    """More evidence for a memory; confidence grows only for trusted (and normal) sources, once per turn.

    Untrusted restatements are recorded as evidence but never raise confidence, so repeating a claim
    from documents or tools cannot make it win (corroboration attacks).
    """
    memory = state.memories.get(memory_id)
    if memory is None or turn.turn_id in memory.source_turn_ids or turn.turn_id in memory.evidence:
        return None  # retained by this same turn, or this turn already counted
    gain = _GAIN.get(trust, 0.0) * cand.confidence
    confidence = round(1 - (1 - memory.confidence) * (1 - gain), 4)
    judged = cand.judgement
    how = f"restates it, as {judged.model or 'the LLM'} judged: {judged.reason}" if judged and judged.relation == "restates" \
        else "restated"
    why = f"{how} (source {turn.source}, {trust})" + ("" if gain else "; evidence only, confidence unchanged")
    return MemoryReinforced(event_id=derive_id(turn.event_id, f"reinforced/{i}"), **_caused(turn), memory_id=memory_id,
                            evidence_turn_ids=(*memory.evidence, turn.turn_id), confidence=confidence,
                            source=turn.source, reason=why)


def _displaced(state: BankState, head: UUID | None, cand: Candidate) -> list[tuple[UUID, str]]:
    """The active memories a new candidate supersedes: its key's holder, and the memory an LLM judged it to
    update or contradict."""
    out = [(head, "correction" if cand.is_correction else f"new value for {cand.key}")] if head is not None else []
    judged = cand.judgement
    if (judged is not None and judged.relation in ("updates", "contradicts") and judged.memory_id != head
            and _active(state, judged.memory_id)):
        out.append((judged.memory_id, f"{judged.relation} it, as {judged.model or 'the LLM'} judged: {judged.reason}"))
    return out


def _value_of(state: BankState, pending: list[Event], memory_id: UUID) -> str | None:
    for event in pending:
        if isinstance(event, MemoryRetained) and event.memory_id == memory_id:
            return event.value
    return state.memories[memory_id].value


def _decide_forget(state: BankState, command: ForgetRequested) -> list[Event]:
    targets = set(command.memory_ids)
    targets |= {m.memory_id for m in state.memories.values() if in_forget_range(m, command)}
    return [
        MemoryForgotten(
            event_id=derive_id(command.event_id, f"forgotten/{memory_id}"), bank_id=command.bank_id,
            occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
            memory_id=memory_id, reason=command.reason,
        )
        for memory_id in sorted(targets, key=str)
        if memory_id in state.memories and state.memories[memory_id].status not in ("forgotten", "retracted")
    ]


def _decide_correction(state: BankState, command: CorrectionRequested, prepared: Prepared,
                       policy: GuardPolicy = DEFAULT_POLICY) -> list[Event]:
    old = state.memories.get(command.memory_id)
    if old is None or old.status in ("forgotten", "retracted"):
        return []
    new_id = ids.memory_id(command.event_id, 0)
    verdict = guard.assess(command.text, trust="trusted", source="user", policy=policy)
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
        MemoryQuarantined(event_id=derive_id(command.event_id, "quarantined/0"), **_caused(command), memory_id=new_id,
                          reason=verdict.reason)
        if verdict.quarantine else
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
    """The memories a retraction removes and the ones it brings back: what they had displaced, and the
    episodes retired along with those (``episodes``)."""
    retracted = [m for m in state.memories.values() if m.status != "retracted" and matches(m, command)]
    gone = {m.memory_id for m in retracted}
    restored: dict[UUID, MemoryInfo] = {}
    for memory in retracted:
        if memory.status != "active":
            continue  # only a displaced key head gives its place back
        previous = _first_survivor(state, memory.supersedes, gone)
        if previous is not None and previous.status == "superseded":
            restored[previous.memory_id] = previous
    for episode in episodes.revived_with(state, list(restored.values()), gone):
        restored.setdefault(episode.memory_id, episode)  # an episode comes back with its turn's memory
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


def _decide_restore(state: BankState, command: RestoreRequested, revived: Revived) -> list[Event]:
    """Each named memory comes back, superseding the active holder of its key; restoring several of
    one key in order (a rollback undone) rebuilds their chain, the last one active."""
    events: list[Event] = []
    heads = dict(state.heads)  # restores of one command see each other
    for memory_id in _unique(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status == "active":
            continue
        back = restored(command, memory, revived, command.reason)
        if back is None:
            continue  # archived, and its retained event was not fetched: nothing to rebuild it from
        events.append(back)
        head = heads.get(memory.key) if memory.key else None
        if head is not None and head != memory_id:
            events.append(MemorySuperseded(
                event_id=derive_id(command.event_id, f"superseded/{memory_id}"), bank_id=command.bank_id,
                occurred_at=command.occurred_at, causation_id=command.event_id, actor=command.actor,
                memory_id=head, superseded_by=memory_id, valid_to=command.occurred_at, reason="restored",
            ))
        if memory.key:
            heads[memory.key] = memory_id
    return events


def _decide_release(state: BankState, command: ReleaseRequested) -> list[Event]:
    """Quarantined memories become active, as if accepted now: each supersedes the active holder of its key."""
    events: list[Event] = []
    heads = dict(state.heads)
    for memory_id in _unique(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status != "quarantined":
            continue
        events.append(MemoryReleased(event_id=derive_id(command.event_id, f"released/{memory_id}"), **_caused(command),
                                     memory_id=memory_id, reason=command.reason))
        head = heads.get(memory.key) if memory.key else None
        if head is not None and head != memory_id:
            events.append(MemorySuperseded(
                event_id=derive_id(command.event_id, f"superseded/{memory_id}"), **_caused(command),
                memory_id=head, superseded_by=memory_id, valid_to=command.occurred_at, reason="released from quarantine",
            ))
        if memory.key:
            heads[memory.key] = memory_id
    return events


def _decide_reject(state: BankState, command: RejectRequested) -> list[Event]:
    """Quarantined memories are forgotten for good (reason "rejected"); their history keeps them."""
    return [
        MemoryForgotten(event_id=derive_id(command.event_id, f"rejected/{memory_id}"), **_caused(command),
                        memory_id=memory_id, reason="rejected" + (f": {command.reason}" if command.reason else ""))
        for memory_id in _unique(command.memory_ids)
        if memory_id in state.memories and state.memories[memory_id].status == "quarantined"
    ]


def _unique(ids: Iterable[UUID]) -> list[UUID]:
    return list(dict.fromkeys(ids))
