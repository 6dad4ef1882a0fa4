"""Waiting for the outcome of an input: the bank actor's memory events for it, then the projections.

The actor appends every memory event caused by one input (``causation_id`` = the input's event id)
in one append to the bank's partition of ``hindsight.memories``. So a writer notes that partition's
end offset before publishing, reads forward from it until it sees the events its input caused, and
then waits until each projection's position has passed the last of them: from then on every read
(recall, context, history) sees them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from uuid import UUID

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import Event, MemoryRetained, MemorySuperseded, decoded
from hindsight_es.log import EventLog, partition_for

POLL_S = 0.03

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
        if found and await projected(partition, last):
            return Outcome(cause_id, True, tuple(found))
        if time.monotonic() >= deadline:
            return Outcome(cause_id, False, tuple(found))
        await asyncio.sleep(POLL_S)
