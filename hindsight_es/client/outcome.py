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
    return await Outcomes(log, partition, start, projected).of(cause_id, deadline)


class Outcomes:
    """The outcomes of inputs recorded together (a whole bank's erasures), read in one pass over the bank's
    memory partition from ``start``: each awaited in turn (``of``), the records read for one kept for the
    next, so n inputs cost one read of the partition, not n (a read from ``start`` each)."""

    def __init__(self, log: EventLog, partition: int, start: int, projected: Projected) -> None:
        self.log, self.partition, self.projected = log, partition, projected
        self._position = start  # the next offset to read
        self._held = start - 1  # every projection holds the events up to here
        self._found: dict[UUID, list[tuple[int, Event]]] = {}

    async def of(self, cause_id: UUID, deadline: float) -> Outcome:
        """``cause_id``'s events once read and projected; ``ready=False`` with what was seen at ``deadline``."""
        with AWAITED.waiting():  # no projection of this process lingers on the way (``waiting.Awaited``)
            while True:
                await self._read()
                found = self._found.get(cause_id, [])
                events = tuple(event for _, event in found)
                if found and await self._projected(found[-1][0]):
                    return Outcome(cause_id, True, events)
                if time.monotonic() >= deadline:
                    return Outcome(cause_id, False, events)
                await asyncio.sleep(POLL_S)

    async def _read(self) -> None:
        end = (await self.log.end_offsets(TOPIC_MEMORIES)).get(self.partition, 0)
        while self._position < end:
            records = await self.log.read(TOPIC_MEMORIES, self.partition, self._position, end, 1000)
            if not records:
                break
            for record, event in decoded(records):
                if event.causation_id is not None:
                    self._found.setdefault(event.causation_id, []).append((record.offset, event))
            self._position = records[-1].offset + 1

    async def _projected(self, last: int) -> bool:
        """Whether the projections hold ``last``: asked for everything read so far first, so the outcomes
        awaited after this one find theirs held without asking again."""
        if last <= self._held:
            return True
        for upto in dict.fromkeys((self._position - 1, last)):
            if await _held(self.projected, self.partition, upto):
                self._held = max(self._held, upto)
                return True
        return False
