"""Waiting for the outcome of an input: the bank actor's memory events for it, then the projections.

The actor appends every memory event caused by one input (``causation_id`` = the input's event id)
in one append to the bank's partition of ``hindsight.memories``. So a writer notes that partition's
end offset before publishing, reads forward from it until it sees the events its input caused, and
then waits until each projection's position has passed the last of them: from then on every read
(recall, context, history) sees them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from uuid import UUID

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.errors import StoreError
from hindsight_es.events import Event, MemoryRetained, MemorySuperseded, decoded
from hindsight_es.log import EventLog, partition_for
from hindsight_es.waiting import AWAITED

POLL_S = 0.03
logger = logging.getLogger(__name__)

# (partition, offset) -> whether every projection holds the memory events up to that offset.
Projected = Callable[[int, int], Awaitable[bool]]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the actor decided on one input, and whether the read side held it before the deadline."""

    cause_id: UUID
    ready: bool
    events: tuple[Event, ...] = field(default=())

    @property
    def retained_ids(self) -> list[str]:
        return [str(e.memory_id) for e in self.events if isinstance(e, MemoryRetained)]

    @property
    def superseded_ids(self) -> list[str]:
        return [str(e.memory_id) for e in self.events if isinstance(e, MemorySuperseded)]


async def _held(projected: Projected, partition: int, last: int) -> bool:
    """Whether the projections hold ``last``; a store read that fails is "not yet". The input is recorded
    by now (an erase has destroyed its keys), so failing the call would make a client send it again and
    the second one would find nothing left to do; a projection rewriting its table (an erase drops the
    table's old versions) can fail a concurrent read once. A store that stays down runs into the
    deadline: ``ready=False``."""
    try:
        return await projected(partition, last)
    except StoreError as exc:
        logger.info("projection position unreadable, retrying: %s", exc)
        return False


async def memory_partition_end(log: EventLog, bank_id: str) -> tuple[int, int]:
    """(partition of the bank on ``hindsight.memories``, its end offset now)."""
    partition = partition_for(bank_id, await log.partitions(TOPIC_MEMORIES))
    return partition, (await log.end_offsets(TOPIC_MEMORIES)).get(partition, 0)


async def await_outcome(
    log: EventLog, cause_id: UUID, partition: int, start: int, deadline: float, projected: Projected
) -> Outcome:
    """Read the bank's memory partition from ``start`` until ``cause_id``'s events are in and projected.

    Returns ``ready=False`` (with whatever was seen) at ``deadline`` (``time.monotonic()`` seconds).
    """
    with AWAITED.waiting():  # no projection of this process lingers on the way (``waiting.Awaited``)
        return await _outcome(log, cause_id, partition, start, deadline, projected)


async def _outcome(
    log: EventLog, cause_id: UUID, partition: int, start: int, deadline: float, projected: Projected
) -> Outcome:
    found: list[Event] = []
    last = -1
    position = start
    while True:
        end = (await log.end_offsets(TOPIC_MEMORIES)).get(partition, 0)
        while position < end:
            records = await log.read(TOPIC_MEMORIES, partition, position, end, 1000)
            if not records:
                break
            for record, event in decoded(records):
                if event.causation_id == cause_id:
                    found.append(event)
                    last = record.offset
            position = records[-1].offset + 1
        if found and await _held(projected, partition, last):
            return Outcome(cause_id, True, tuple(found))
        if time.monotonic() >= deadline:
            return Outcome(cause_id, False, tuple(found))
        await asyncio.sleep(POLL_S)
