"""Decisions of the forgetting lifecycle: janitor ticks, session ends, served recalls, promotions. Pure.

The bank actor calls these from ``decide``; time is always the input's ``occurred_at`` and the
retention policy travels in the tick, so deciding the same inputs again gives the same events.
An archived memory lives only in the cold archive, so bringing one back needs the event that
retained it (``revived``, fetched by the actor beforehand): the ``MemoryRestored`` carries it, and
the vectors projection rebuilds the hot row from the event alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from uuid import UUID

from hindsight_es.events import (
    Event,
    ForgetRequested,
    JanitorTick,
    MemoriesRecalled,
    MemoryArchived,
    MemoryPromoted,
    MemoryRestored,
    MemoryRetained,
    PromoteRequested,
    RecallsCounted,
    RecallServed,
    RecallsTallied,
    RecallUse,
    RestoreRequested,
    SessionEnded,
)
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.retention import plan_archive
from hindsight_es.memory.state import BankState, MemoryInfo

Revived = Mapping[UUID, MemoryRetained]
_GONE = ("forgotten", "retracted")


def decide_lifecycle(state: BankState, event: Event, revived: Revived) -> list[Event]:
    match event:
        case JanitorTick():
            return _tick(state, event)
        case SessionEnded():
            return _session_ended(state, event)
        case RecallServed():
            return _recall_served(state, event, revived)
        case RecallsTallied():
            return _recalls_tallied(state, event, revived)
        case PromoteRequested():
            return _promote(state, event, revived)
    return []


def revivals(state: BankState, event: Event) -> list[UUID]:
    """Cold memories an input may bring back: the actor fetches the events that retained them
    just before deciding that input (so against the state that decision sees)."""
    match event:
        case RestoreRequested() | PromoteRequested():
            named = event.memory_ids
        case RecallServed() | RecallsTallied():
            named = event.restore_ids
        case _:
            return []
    return [m for m in dict.fromkeys(named) if (memory := state.memories.get(m)) is not None and memory.cold]


def restored(cause: Event, memory: MemoryInfo, revived: Revived, reason: str) -> MemoryRestored | None:
    """The event that brings ``memory`` back, carrying its retained event if it is cold (None when
    that event was not fetched: the memory cannot be rebuilt from nothing)."""
    payload = revived.get(memory.memory_id) if memory.cold else None
    if memory.cold and payload is None:
        return None
    return MemoryRestored(
        event_id=derive_id(cause.event_id, f"restored/{memory.memory_id}"),
        bank_id=cause.bank_id,
        occurred_at=cause.occurred_at,
        causation_id=cause.event_id,
        actor=cause.actor,
        memory_id=memory.memory_id,
        reason=reason,
        revived=payload,
        supersedes=memory.supersedes if payload is not None else None,
    )


def archived(cause: Event, memory: MemoryInfo, reason: str, score: float | None = None) -> MemoryArchived:
    return MemoryArchived(
        event_id=derive_id(cause.event_id, f"archived/{memory.memory_id}"),
        bank_id=cause.bank_id,
        occurred_at=cause.occurred_at,
        causation_id=cause.event_id,
        actor=cause.actor,
        memory_id=memory.memory_id,
        reason=reason,
        retention=None if score is None else round(score, 6),
    )


def in_forget_range(memory: MemoryInfo, command: ForgetRequested) -> bool:
    """Whether a forget by session and/or time range (valid_from in [since, until)) covers a memory."""
    return (
        (command.session_id is not None or command.since is not None or command.until is not None)
        and (command.session_id is None or memory.session_id == command.session_id)
        and (command.since is None or memory.valid_from >= command.since)
        and (command.until is None or memory.valid_from < command.until)
    )


def _tick(state: BankState, tick: JanitorTick) -> list[Event]:
    return [archived(tick, a.memory, a.reason, a.retention) for a in plan_archive(state, tick.occurred_at, tick.policy)]


def _session_ended(state: BankState, command: SessionEnded) -> list[Event]:
    reason = f"session {command.session_id} ended" + (f": {command.reason}" if command.reason else "")
    ending = [m for m in state.active() if m.scope == "session" and m.session_id == command.session_id]
    return [archived(command, m, reason) for m in sorted(ending, key=lambda m: (m.valid_from, str(m.memory_id)))]


def _recall_served(state: BankState, served: RecallServed, revived: Revived) -> list[Event]:
    """Count the recall on every memory it served; bring back the archived ones it served, unless
    their key has a newer active holder (a recall never displaces what the user said since)."""
    known = tuple(
        m for m in dict.fromkeys(served.memory_ids) if m in state.memories and state.memories[m].status not in _GONE
    )
    events: list[Event] = []
    if known:
        events.append(
            MemoriesRecalled(
                event_id=derive_id(served.event_id, "recalled"),
                bank_id=served.bank_id,
                occurred_at=served.occurred_at,
                causation_id=served.event_id,
                actor=served.actor,
                memory_ids=known,
            )
        )
    return events + _restores(state, served, revived, f"recalled ({served.via})")


def _recalls_tallied(state: BankState, tally: RecallsTallied, revived: Revived) -> list[Event]:
    """A tally counts like its ``count`` recalls of each memory, the last at ``last_at``: the same
    recall counts and last-use times as a ``RecallServed`` per recall would give."""
    uses: dict[UUID, RecallUse] = {}
    for use in tally.uses:
        memory = state.memories.get(use.memory_id)
        if memory is None or memory.status in _GONE:
            continue
        if (seen := uses.get(use.memory_id)) is not None:  # a hand-written tally may name one twice
            count, last = seen.count + use.count, max(seen.last_at, use.last_at)
            use = RecallUse(memory_id=use.memory_id, count=count, last_at=last)
        uses[use.memory_id] = use
    events: list[Event] = []
    if uses:
        events.append(
            RecallsCounted(
                event_id=derive_id(tally.event_id, "counted"),
                bank_id=tally.bank_id,
                occurred_at=tally.occurred_at,
                causation_id=tally.event_id,
                actor=tally.actor,
                uses=tuple(uses.values()),
            )
        )
    return events + _restores(state, tally, revived, "recalled")


def _restores(state: BankState, served: RecallServed | RecallsTallied, revived: Revived, reason: str) -> list[Event]:
    """Bring back the archived memories a recall served, unless their key has a newer active holder."""
    events: list[Event] = []
    for memory_id in dict.fromkeys(served.restore_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status != "archived" or (memory.key and memory.key in state.heads):
            continue
        if (event := restored(served, memory, revived, reason)) is not None:
            events.append(event)
    return events


def _promote(state: BankState, command: PromoteRequested, revived: Revived) -> list[Event]:
    """Widen the scope of active or archived memories; an archived one comes back first."""
    events: list[Event] = []
    for memory_id in dict.fromkeys(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status not in ("active", "archived"):
            continue
        if memory.status == "archived":
            back = restored(command, memory, revived, command.reason or "promoted")
            if back is None:
                continue
            events.append(back)
        if memory.scope != command.scope:
            events.append(
                MemoryPromoted(
                    event_id=derive_id(command.event_id, f"promoted/{memory_id}"),
                    bank_id=command.bank_id,
                    occurred_at=command.occurred_at,
                    causation_id=command.event_id,
                    actor=command.actor,
                    memory_id=memory_id,
                    scope=command.scope,
                    reason=command.reason,
                )
            )
    return events
