"""``decide(state, input, prepared) -> events``: every decision the bank actor takes, as a pure function.

Model work (extraction, embedding) happens before, in the actor, and arrives as ``Prepared``; the
events carry its output so replays never repeat it. Ids are derived from the input event id, so a
redelivered input yields the same ids (and the ``handled`` set drops it).
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import replace
from uuid import UUID

import numpy as np

from hindsight_es.events import (
    CorrectionRequested,
    DisputeResolutionRequested,
    ErasureRequested,
    Event,
    ExtractionFailed,
    ForgetRequested,
    JanitorTick,
    MemoryDisputed,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryRetained,
    MemorySuperseded,
    PromoteRequested,
    RecallServed,
    RecallsTallied,
    RejectRequested,
    ReleaseRequested,
    RestoreRequested,
    RetractionRequested,
    SessionEnded,
    SetOwnersRequested,
    TurnRecorded,
)
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.extraction import anchors
from hindsight_es.extraction.filler import is_filler
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import commands, corrections, disputes, episodes, guard, ids, judge, revisions, trust
from hindsight_es.memory.forgetting import Revived, decide_lifecycle
from hindsight_es.memory.guard import DEFAULT_POLICY, GuardPolicy
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import Prepared, caused, ignored
from hindsight_es.memory.state import BankState, text_key
from hindsight_es.types import Trust


def decide(
    state: BankState,
    event: Event,
    prepared: Prepared | None = None,
    policy: GuardPolicy = DEFAULT_POLICY,
    *,
    revived: Revived | None = None,
) -> list[Event]:
    """``revived``: the retained events of archived memories the input may bring back (``forgetting.revivals``).
    Episodes follow their turn's typed memories (``episodes``): the events that retire or restore them come last."""
    if event.event_id in state.handled:
        return []
    decided = _decide(state, event, prepared, policy, revived)
    if decided:
        return decided + episodes.follow(state, event, decided)
    return [ignored(event, reason)] if (reason := _why_nothing(state, event)) else []


# The commands recorded when they change nothing (``CommandIgnored``), with why. Turns decide nothing only when
# they are filler, whatever the state; the lifecycle's ticks and recall tallies come often and are decided
# on the state as it is whenever they come.
_NOTHING_TO_DO = {
    "ForgetRequested": ("nothing to forget", "no memory it selects that is not forgotten already"),
    "RestoreRequested": ("nothing to restore", "the memories it names are active, or archived with no retained event"),
    "ReleaseRequested": ("nothing to release", "no memory it names is quarantined"),
    "RejectRequested": ("nothing to reject", "no memory it names is quarantined"),
    "CorrectionRequested": ("nothing to correct", "the memory it names is not active"),
    "PromoteRequested": ("nothing to promote", "the memories it names are long-term already"),
    "DisputeResolutionRequested": (
        "nothing resolved",
        "no open dispute it names, or not asked by an owner of the bank",
    ),
}

# The statuses a command would leave a memory in: one found so is "already" so (``memory … is already forgotten``).
_DONE = {"ForgetRequested": ("forgotten", "retracted"), "RestoreRequested": ("active",)}


def _why_nothing(state: BankState, event: Event) -> str | None:
    """Why a command changed nothing: what the bank holds of the memories it names, each by its status
    (``memory … is forgotten``, ``… is unknown``), else the general reason. None: not a command recorded so."""
    if (what := _NOTHING_TO_DO.get(event.type)) is None:
        return None
    lead, general = what
    named = getattr(event, "memory_ids", None) or ((event.memory_id,) if hasattr(event, "memory_id") else ())
    if not named or event.type == "DisputeResolutionRequested":  # its reason may be who asked, not the statuses
        return f"{lead}: {general}"
    by_status: dict[str, list[str]] = {}
    for memory_id in named:
        info = state.memories.get(memory_id)
        status: str = "unknown to the bank" if info is None else info.status
        if info is not None and info.status in _DONE.get(event.type, ()):  # the words of the HTTP API's 409
            status = f"already {status}" if event.type == "ForgetRequested" else f"{status} already"
        elif info is not None and event.type == "PromoteRequested":  # promoted or not: its scope says
            status = f"{status}, scope {info.scope}"
        by_status.setdefault(status, []).append(str(memory_id))
    known = [
        f"{'memory' if len(ids) == 1 else 'memories'} {', '.join(ids)} {'is' if len(ids) == 1 else 'are'} {status}"
        for status, ids in by_status.items()
    ]
    selects = any(getattr(event, f, None) is not None for f in ("session_id", "since", "until"))
    return f"{lead}: " + "; ".join(known + ([general] if selects else []))


def _decide(
    state: BankState, event: Event, prepared: Prepared | None, policy: GuardPolicy, revived: Revived | None
) -> list[Event]:
    match event:
        case TurnRecorded():
            return _decide_turn(state, trust.as_said(event), prepared, policy) if prepared else []
        case ForgetRequested():
            return commands.decide_forget(state, event)
        case CorrectionRequested():
            return corrections.decide_correction(state, event, prepared, policy) if prepared else []
        case RetractionRequested():
            return commands.decide_retraction(state, event)
        case RestoreRequested():
            return commands.decide_restore(state, event, revived or {})
        case JanitorTick() | SessionEnded() | RecallServed() | RecallsTallied() | PromoteRequested():
            return decide_lifecycle(state, event, revived or {})
        case ReleaseRequested():
            return commands.decide_release(state, event)
        case RejectRequested():
            return commands.decide_reject(state, event)
        case SetOwnersRequested():
            return [trust.owners_set(state, event)]
        case DisputeResolutionRequested():
            return disputes.resolve(state, event)
        case ErasureRequested():
            return commands.decide_erasure(state, event)
    return []


def undecidable(turn: TurnRecorded) -> bool:
    """A turn that decides nothing, whenever it is decided: filler, or erased (the log reads a placeholder in
    its place). Neither leaves a memory event, so an actor that meets it again (an import, a consumer group
    started over) decides it again, and must again find nothing in it."""
    return is_filler(turn.text) or is_erased_turn(turn.text, turn.metadata)


def _decide_turn(state: BankState, turn: TurnRecorded, prepared: Prepared, policy: GuardPolicy) -> list[Event]:
    """Per candidate, in order: quarantine (the guard), dispute (a less trusted source contradicting a more
    trusted memory), reinforce (a restatement), or retain and supersede. Whose word it is comes first (``trust``).
    A filler turn (a pleasantry or an acknowledgement) retains nothing, whatever an extractor proposed; nor does
    a turn whose content was erased: its text is the placeholder, nothing the user said (``undecidable``)."""
    if undecidable(turn):
        return []
    events: list[Event] = []
    prov = trust.provenance(turn, trust.owners(state, turn))
    level = trust.trust_of(turn, prov)
    prepared = resolved(state, turn, prepared, prov)
    candidates = trust.own_keys(prepared.candidates, prov, turn.actor)
    if prepared.failure is not None:
        events.append(
            ExtractionFailed(
                event_id=derive_id(turn.event_id, "extraction-failed"),
                **caused(turn),
                turn_id=turn.turn_id,
                extractor=prepared.failure[0],
                error=prepared.failure[1],
            )
        )
    verdict = guard.screen(
        state,
        turn.text,
        candidates,
        trust=level,
        source=turn.source,
        session_id=turn.session_id,
        policy=policy,
        speaker=prov,
    )
    verdict = judge.escalate(verdict, prepared.judged, prov)
    dispute = (
        None if verdict.quarantine else disputes.find(state, turn.text, prepared.candidates, prov, trust.RANK[prov])
    )
    dispute = dispute or (None if verdict.quarantine else judge.dispute(state, prepared.judged, prov))
    heads: ChainMap[str, UUID] = ChainMap({}, state.heads)  # candidates of one turn see each other
    challengers: list[UUID] = []
    for i, (cand, vector) in enumerate(zip(candidates, prepared.vectors, strict=True)):
        head = heads.get(cand.key) if cand.key else None
        if dispute is not None:  # the turn is one unit of provenance: all of it waits for the owner
            retained = _retained(turn, i, cand, vector, prepared, level, prov)
            challengers.append(retained.memory_id)
            events += [
                retained,
                MemoryDisputed(
                    event_id=derive_id(turn.event_id, f"disputed/{i}"),
                    **caused(turn),
                    memory_id=retained.memory_id,
                    disputes=dispute[0],
                    reason=f"dispute: source {turn.source} ({trust.LABELS[prov]}) {dispute[1]}",
                    open_disputes=disputes.open_disputes(state, dispute[0], challengers),
                ),
            ]
            continue
        if verdict.quarantine:
            retained = _retained(turn, i, cand, vector, prepared, level, prov)
            events += [
                retained,
                MemoryQuarantined(
                    event_id=derive_id(turn.event_id, f"quarantined/{i}"),
                    **caused(turn),
                    memory_id=retained.memory_id,
                    reason=verdict.reason,
                ),
            ]
            continue
        restated = _restated(state, events, head, cand)
        if restated is not None:
            if (reinforced := _reinforce(state, turn, i, restated, cand, level, prov)) is not None:
                events.append(reinforced)
            continue
        retained = _retained(turn, i, cand, vector, prepared, level, prov)
        if drawn := revisions.drawn_from(state, cand):  # a slip's correction restates the turn it corrects: both
            retained = retained.model_copy(update={"source_turn_ids": (*drawn, turn.turn_id)})  # in the order said
        events.append(retained)
        for j, (old, reason) in enumerate(_displaced(state, head, cand)):
            events.append(
                MemorySuperseded(
                    event_id=derive_id(turn.event_id, f"superseded/{i}" + (f"/{j}" if j else "")),
                    **caused(turn),
                    memory_id=old,
                    superseded_by=retained.memory_id,
                    valid_to=turn.occurred_at,
                    reason=reason,
                )
            )
        if cand.key:
            heads[cand.key] = retained.memory_id
    return events


def resolved(state: BankState, turn: TurnRecorded, prepared: Prepared, prov: str = "user") -> Prepared:
    """The rule extractor's candidates resolved against the owner's active memories (``extraction.anchors``):
    an update takes the key of what it replaces; a placeholder nothing anchors is dropped, with its vector. An
    owner's turn that moves a keyless memory to another time updates it (``revisions``)."""
    if not prepared.extractor.startswith("rules/"):
        return prepared
    anchored = _anchored(state, turn, prepared, prov)
    return revisions.revised(state, turn, anchored) if prov == "user" else anchored


def _anchored(state: BankState, turn: TurnRecorded, prepared: Prepared, prov: str) -> Prepared:
    episodes_only = all(c.kind == "episode" for c in prepared.candidates)
    if episodes_only and not anchors.may_retire(turn.text):
        return prepared  # the bank's held values are read only for a turn that may end one
    holders = [state.memories[i] for i in state.heads.values()] if prov == "user" else []
    held = [
        anchors.Held(m.memory_id, m.key, m.value, m.session_id)
        for m in sorted(holders, key=lambda m: m.valid_from)
        if m.key and m.value and m.provenance == "user"
    ]
    if episodes_only:
        return _retiring(prepared, held, turn)
    found = anchors.resolve(prepared.candidates, held, text=turn.text, session_id=turn.session_id, speaker=turn.speaker)
    kept = [i for i, c in enumerate(found) if c is not None]
    if len(kept) == len(found) and all(a is b for a, b in zip(found, prepared.candidates, strict=True)):
        return prepared
    return replace(prepared, candidates=[c for c in found if c is not None], vectors=prepared.vectors[kept])


def _retiring(prepared: Prepared, held: list[anchors.Held], turn: TurnRecorded) -> Prepared:
    """A turn that only ends what its owner held ("I don't want window seats anymore", "我已经戒咖啡了"): its
    episode supersedes the most recent such memory (``anchors.retired``), so what was given up is no longer
    recalled as current and its history shows the words that ended it. One per turn: a candidate updates one
    memory. A turn with typed candidates is resolved by ``anchors.resolve`` instead."""
    episode = next((i for i, c in enumerate(prepared.candidates) if c.judgement is None), None)
    if episode is None or not held or not (gone := anchors.retired(turn.text, held)):
        return prepared
    candidates = list(prepared.candidates)
    candidates[episode] = anchors.updating(candidates[episode], gone[0], f"says {gone[0].key} no longer holds")
    return replace(prepared, candidates=candidates)


def _retained(
    turn: TurnRecorded, i: int, cand: Candidate, vector: np.ndarray, prepared: Prepared, level: Trust, prov: str
) -> MemoryRetained:
    return MemoryRetained(
        event_id=derive_id(turn.event_id, f"retained/{i}"),
        **caused(turn),
        memory_id=ids.memory_id(turn.event_id, i),
        kind=cand.kind,
        text=cand.text,
        quote=cand.quote if cand.quote != cand.text else None,
        key=cand.key,
        value=cand.value,
        entities=cand.entities,
        importance=cand.importance,
        confidence=cand.confidence,
        session_id=turn.session_id,
        speaker=turn.speaker,
        context=prepared.context,
        source=turn.source,
        trust=level,
        provenance=prov,  # type: ignore[arg-type]  # one of trust.RANK's keys
        confirmed=prov == "user",
        scope=turn.scope,
        owner=turn.owner,
        source_turn_ids=(turn.turn_id,),
        valid_from=cand.valid_from or turn.occurred_at,
        valid_until=cand.valid_to,
        vector=vector,  # type: ignore[arg-type]  # VectorBytes' validator encodes the array
        embedder=prepared.embedder,
        extractor=prepared.extractor,
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


def _reinforce(
    state: BankState, turn: TurnRecorded, i: int, memory_id: UUID, cand: Candidate, trust: str, prov: str
) -> MemoryReinforced | None:
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
    how = (
        f"restates it, as {judged.model or 'the LLM'} judged: {judged.reason}"
        if judged and judged.relation == "restates"
        else "restated"
    )
    confirms = prov == "user" and not memory.confirmed  # the owner says what was only inferred or reported
    why = f"{how} (source {turn.source}, {trust})" + ("" if gain else "; evidence only, confidence unchanged")
    why += "; confirmed by the owner" if confirms else ""
    return MemoryReinforced(
        event_id=derive_id(turn.event_id, f"reinforced/{i}"),
        **caused(turn),
        memory_id=memory_id,
        evidence_turn_ids=(*memory.evidence, turn.turn_id),
        confidence=confidence,
        source=turn.source,
        reason=why,
        confirmed=confirms,
    )


def _displaced(state: BankState, head: UUID | None, cand: Candidate) -> list[tuple[UUID, str]]:
    """The active memories a new candidate supersedes: its key's holder, and the memory an LLM judged it to
    update or contradict."""
    out = [(head, "correction" if cand.is_correction else f"new value for {cand.key}")] if head is not None else []
    judged = cand.judgement
    if (
        judged is not None
        and judged.relation in ("updates", "contradicts")
        and judged.memory_id is not None
        and judged.memory_id != head
        and _active(state, judged.memory_id)
    ):
        out.append((judged.memory_id, f"{judged.relation} it, as {judged.model or 'the LLM'} judged: {judged.reason}"))
    return out


def _value_of(state: BankState, pending: list[Event], memory_id: UUID) -> str | None:
    for event in pending:
        if isinstance(event, MemoryRetained) and event.memory_id == memory_id:
            return event.value
    return state.memories[memory_id].value
