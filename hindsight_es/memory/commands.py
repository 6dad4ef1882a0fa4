"""Decisions on commands: forget, retract (and plan a retraction), restore, release, reject, erase.

Pure functions of the bank state and the command, like ``decide`` (which dispatches to them); event
ids derive from the command's id, so a redelivered command decides the same.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterable
from uuid import UUID

from hindsight_es.events import (
    ContentErased,
    ErasureRequested,
    Event,
    ForgetRequested,
    MemoryForgotten,
    MemoryReleased,
    MemorySuperseded,
    RejectRequested,
    ReleaseRequested,
    RestoreRequested,
    RetractionRequested,
    SourceRetracted,
)
from hindsight_es.memory import episodes
from hindsight_es.memory.forgetting import Revived, in_forget_range, restored
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import caused, ignored
from hindsight_es.memory.state import BankState, MemoryInfo, where


def decide_forget(state: BankState, command: ForgetRequested) -> list[Event]:
    targets = set(command.memory_ids)
    targets |= {m.memory_id for m in state.memories.values() if in_forget_range(m, command)}
    return [
        MemoryForgotten(
            event_id=derive_id(command.event_id, f"forgotten/{memory_id}"),
            bank_id=command.bank_id,
            occurred_at=command.occurred_at,
            causation_id=command.event_id,
            actor=command.actor,
            memory_id=memory_id,
            reason=command.reason,
        )
        for memory_id in sorted(targets, key=str)
        if memory_id in state.memories and state.memories[memory_id].status not in ("forgotten", "retracted")
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


def decide_retraction(state: BankState, command: RetractionRequested) -> list[Event]:
    retracted, restored = plan_retraction(state, command)
    turn_ids = sorted({t for m in retracted for t in m.source_turn_ids})
    return [
        SourceRetracted(
            event_id=derive_id(command.event_id, "retracted"),
            bank_id=command.bank_id,
            occurred_at=command.occurred_at,
            causation_id=command.event_id,
            actor=command.actor,
            turn_ids=tuple(turn_ids),
            retracted_memory_ids=tuple(m.memory_id for m in retracted),
            restored_memory_ids=tuple(m.memory_id for m in restored),
            reason=command.reason,
        )
    ]


def decide_restore(state: BankState, command: RestoreRequested, revived: Revived) -> list[Event]:
    """Each named memory comes back, superseding the active holder of its key; restoring several of
    one key in order (a rollback undone) rebuilds their chain, the last one active."""
    events: list[Event] = []
    heads: ChainMap[str, UUID] = ChainMap({}, state.heads)  # restores of one command see each other
    for memory_id in _unique(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status == "active" or memory.erased:  # an erased one has nothing to bring back
            continue
        back = restored(command, memory, revived, command.reason)
        if back is None:
            continue  # archived, and its retained event was not fetched: nothing to rebuild it from
        events.append(back)
        if (later := _replaced_by(state, memory)) is not None:
            # Forgotten, archived or retracted after a later value replaced it, and that value stands: it comes
            # back as it stood, superseded by it, not over it (restoring a superseded memory itself still
            # undoes the correction: that is asking for it over the later value).
            events.append(
                _superseded(command, memory_id, later, "restored as it stood: replaced before", restoring=memory_id)
            )
            continue
        head = heads.get(memory.key) if memory.key else None
        if head is not None and head != memory_id:
            events.append(_superseded(command, head, memory_id, "restored", restoring=memory_id))
        if memory.key:
            heads[memory.key] = memory_id
    return events


def _replaced_by(state: BankState, memory: MemoryInfo) -> UUID | None:
    """The active memory that superseded ``memory`` before it left use another way (forgotten, archived,
    retracted); None when it was not replaced, or what replaced it no longer stands."""
    later = state.memories.get(memory.superseded_by) if memory.superseded_by is not None else None
    if memory.status == "superseded" or later is None or later.status != "active":
        return None
    return later.memory_id


def _superseded(
    command: RestoreRequested, memory_id: UUID, by: UUID, reason: str, *, restoring: UUID
) -> MemorySuperseded:
    """``memory_id`` superseded by ``by`` as the restore of ``restoring`` decides it (its id derives from that)."""
    return MemorySuperseded(
        event_id=derive_id(command.event_id, f"superseded/{restoring}"),
        **caused(command),
        memory_id=memory_id,
        superseded_by=by,
        valid_to=command.occurred_at,
        reason=reason,
    )


def decide_release(state: BankState, command: ReleaseRequested) -> list[Event]:
    """Quarantined memories become active, as if accepted now: each supersedes the active holder of its key."""
    events: list[Event] = []
    heads: ChainMap[str, UUID] = ChainMap({}, state.heads)
    for memory_id in _unique(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status != "quarantined":
            continue
        events.append(
            MemoryReleased(
                event_id=derive_id(command.event_id, f"released/{memory_id}"),
                **caused(command),
                memory_id=memory_id,
                reason=command.reason,
            )
        )
        head = heads.get(memory.key) if memory.key else None
        if head is not None and head != memory_id:
            events.append(
                MemorySuperseded(
                    event_id=derive_id(command.event_id, f"superseded/{memory_id}"),
                    **caused(command),
                    memory_id=head,
                    superseded_by=memory_id,
                    valid_to=command.occurred_at,
                    reason="released from quarantine",
                )
            )
        if memory.key:
            heads[memory.key] = memory_id
    return events


def decide_reject(state: BankState, command: RejectRequested) -> list[Event]:
    """Quarantined memories are forgotten for good (reason "rejected"); their history keeps them."""
    return [
        MemoryForgotten(
            event_id=derive_id(command.event_id, f"rejected/{memory_id}"),
            **caused(command),
            memory_id=memory_id,
            reason="rejected" + (f": {command.reason}" if command.reason else ""),
        )
        for memory_id in _unique(command.memory_ids)
        if memory_id in state.memories and state.memories[memory_id].status == "quarantined"
    ]


ERASED_BEFORE = "nothing left to erase: erased before "  # the reason a repeated erase is ignored with


def decide_erasure(state: BankState, command: ErasureRequested) -> list[Event]:
    """The memories of the erased session, turn or memory (their keys, and those the state links to it)."""
    units = set(command.units)
    turns = {u.removeprefix("turn:") for u in units if u.startswith("turn:")} | (
        {command.turn_id} if command.turn_id else set()
    )
    # The memories the command may name, found by session, turn and id (not by reading the bank's every
    # memory: a whole bank's erasures decided one after another), then checked as named
    candidates: dict[UUID, None] = {}
    if command.session_id is not None:
        candidates.update((m.memory_id, None) for m in where(state, "session_id", command.session_id))
    if command.memory_id is None:
        for turn_id in sorted(turns):
            candidates.update((m.memory_id, None) for m in where(state, "source_turn", turn_id))
    for unit in units:
        if unit.startswith("memory:") and (memory_id := _uuid(unit.removeprefix("memory:"))) is not None:
            candidates[memory_id] = None
    if command.memory_id is not None:
        candidates[command.memory_id] = None
    named = [
        m
        for i in candidates
        if (m := state.memories.get(i)) is not None
        and (
            f"memory:{m.memory_id}" in units
            or m.memory_id == command.memory_id
            or (command.session_id is not None and m.session_id == command.session_id)
            or (command.memory_id is None and turns.intersection(m.source_turn_ids))
        )
    ]
    # A memory erased before keeps that erasure's placeholder (who, when, why): a repeated erase neither
    # rewrites it nor, when it finds nothing else (no live key, no other memory), records a second one.
    ids = [m.memory_id for m in named if not m.erased]
    if not ids and not units and (named or not turns):  # erased before, or a session the bank never held
        reason = (
            f"{ERASED_BEFORE}{named[0].text}"
            if named
            else "nothing to erase: the bank holds no memory, turn or key of it"
        )
        return [ignored(command, reason)]
    erased = ContentErased(
        event_id=derive_id(command.event_id, "erased"),
        **caused(command),
        memory_ids=tuple(ids),
        turn_ids=tuple(sorted(turns)),
        session_id=command.session_id,
        erased_by=command.actor,
        reason=command.reason,
    )
    return [erased, *_displaced_back(state, command, [m for m in named if not m.erased])]


def _displaced_back(state: BankState, command: ErasureRequested, erased: list[MemoryInfo]) -> list[Event]:
    """What the erased memories had displaced comes back, as a rollback brings it back: for each active one,
    the first surviving memory down its supersession chain, if superseded (decided on the chain's ids, which
    stay in clear: an erased memory's key may already read as the placeholder). A restore names
    ids only (the memory is hot: its row and its own key hold its words), so no erased byte is in it; its
    turn's episode follows it (``episodes.follow``)."""
    gone = {m.memory_id for m in erased}
    back: dict[UUID, MemoryInfo] = {}
    for memory in erased:
        if memory.status == "active":  # only a displaced head gives its place back (its key may read erased)
            previous = _first_survivor(state, memory.supersedes, gone)
            if previous is not None and previous.status == "superseded":
                back[previous.memory_id] = previous
    why = "what had displaced it was erased"
    events = [
        restored(command, m, {}, why) for m in sorted(back.values(), key=lambda m: (m.valid_from, str(m.memory_id)))
    ]
    return [e for e in events if e is not None]  # a cold one has no hot row to come back to: it stays archived


def _unique(ids: Iterable[UUID]) -> list[UUID]:
    return list(dict.fromkeys(ids))


def _uuid(text: str) -> UUID | None:
    try:
        return UUID(text)
    except ValueError:
        return None
