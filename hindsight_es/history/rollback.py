"""Rolling back what a session, some turns, a source, an actor or a time range put into a bank, and undoing it.

``plan`` is what the bank actor will decide (``plan_retraction`` on the state folded from the log),
so a dry run changes nothing. ``request`` publishes the command for the actor, the only writer of
memory events; ``outcome`` waits for the events it decided (for a retraction, one ``SourceRetracted``
naming every memory retracted and every memory restored). ``undo`` is the ``RestoreRequested`` that
brings back what a retraction took away, which in turn displaces what it had restored.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from pydantic import ValidationError

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES
from hindsight_es.errors import InvalidInputError, NotFoundError
from hindsight_es.events import Event, RestoreRequested, RetractionRequested, SourceRetracted, decoded, encode
from hindsight_es.history.bank import bank_records, state_as_of
from hindsight_es.log import EventLog, partition_for
from hindsight_es.memory import MemoryInfo, fold, plan_retraction
from hindsight_es.text import first_error


def retraction(
    bank_id: str,
    *,
    session_id: str | None = None,
    turn_ids: tuple[str, ...] = (),
    source: str | None = None,
    turn_actor: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    reason: str = "",
    actor: str = "operator",
) -> RetractionRequested:
    """A validated ``RetractionRequested``; criteria are ANDed and at least one is required."""
    if not (session_id or turn_ids or source or turn_actor or since or until):
        raise InvalidInputError("a rollback needs at least one criterion: session, turn, source, actor, since/until")
    if since is not None and until is not None and since >= until:
        raise InvalidInputError(f"since ({since.isoformat()}) must be before until ({until.isoformat()})")
    try:
        return RetractionRequested(
            bank_id=bank_id,
            session_id=session_id,
            turn_ids=turn_ids,
            source=source,  # type: ignore[arg-type]  # any str: the model validates it (InvalidInputError below)
            turn_actor=turn_actor,
            since=since,
            until=until,
            reason=reason,
            actor=actor,
        )
    except ValidationError as exc:
        raise InvalidInputError(first_error(exc)) from exc


@dataclass(frozen=True, slots=True)
class Plan:
    retract: list[MemoryInfo]  # memories derived from the matching turns, not retracted yet
    restore: list[MemoryInfo]  # memories they had displaced, which come back


async def plan(log: EventLog, command: RetractionRequested) -> Plan:
    """What the bank actor will decide; ``NotFoundError`` for a bank without any memory."""
    state = await state_as_of(log, command.bank_id)
    if not state.memories:
        raise NotFoundError(f"bank {command.bank_id!r} has no memories in the log")
    retract, restore = plan_retraction(state, command)
    return Plan(retract, restore)


async def request(log: EventLog, command: Event) -> int:
    """Publish a command to the bank actor; returns where the bank's memory partition ended just before,
    from where ``outcome`` looks for the events it causes."""
    partition = partition_for(command.bank_id, await log.partitions(TOPIC_MEMORIES))
    since = (await log.end_offsets(TOPIC_MEMORIES)).get(partition, 0)
    await log.append(TOPIC_COMMANDS, command.bank_id, [encode(command)])
    return since


async def outcome(
    log: EventLog, command: Event, *, since: int = 0, timeout_s: float = 30.0, poll_s: float = 0.1
) -> list[Event]:
    """The memory events the bank actor decided for ``command``, once they are in the log; [] if none
    appeared within ``timeout_s`` (no actor running, or a command that changes nothing)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found: list[Event] = []
        async for records in bank_records(log, TOPIC_MEMORIES, command.bank_id, start=since):
            for _, event in decoded(records):
                if event.causation_id == command.event_id:
                    found.append(event)
        if found or time.monotonic() >= deadline:
            return found
        await asyncio.sleep(poll_s)


def undo(
    retracted: SourceRetracted, events: Sequence[Event], *, reason: str = "", actor: str = "operator"
) -> RestoreRequested:
    """The restore that reverses a retraction (``events``: the bank's memory events, the retraction among
    them): what it took out of use comes back in its original order, each superseding the holder of its
    key, so the chains it cut are rebuilt (``undone``)."""
    return RestoreRequested(
        bank_id=retracted.bank_id,
        memory_ids=undone(retracted, events),
        actor=actor,
        reason=reason or f"undo retraction {retracted.event_id}",
    )


def undone(retracted: SourceRetracted, events: Sequence[Event]) -> tuple[UUID, ...]:
    """The memories an undo brings back: those the retraction found active, and those it found superseded
    on the way to one of them. A memory already forgotten, quarantined, disputed, archived or superseded by
    a memory the retraction left alone was out of use before it, and stays out: an undo must not bring back
    what the user forgot or the guard held, nor displace a later value of its key."""
    at = next(n for n, event in enumerate(events) if event.event_id == retracted.event_id)
    before = fold(retracted.bank_id, events[:at])
    ids = [m for m in retracted.retracted_memory_ids if m in before.memories]
    back = {m for m in ids if before.memories[m].status == "active"}
    while grown := {
        m for m in ids if m not in back and before.memories[m].status == "superseded"
        and before.memories[m].superseded_by in back
    }:  # fmt: skip
        back |= grown
    return tuple(m for m in ids if m in back)
