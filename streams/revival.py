"""Where each memory's ``MemoryRetained`` sits in ``hindsight.memories``, so the bank actor can
bring an archived memory back: the hot store no longer holds it, and decisions carry the event
that retained it (``MemoryRestored.revived``), read back from the log by offset.

Kept by the actor (an offset per memory, no vectors), filled while it loads the log and after each
append; a bank lives on one partition of the topic, so the offset alone locates the record.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from uuid import UUID

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import Event, MemoryRetained, decoded
from hindsight_es.log import EventLog, partition_for
from hindsight_es.memory.forgetting import revivals
from hindsight_es.memory.state import BankState


class RetainedIndex:
    def __init__(self) -> None:
        self.offsets: dict[str, MutableMapping[UUID, int]] = {}

    def note(self, event: Event, offset: int) -> None:
        if isinstance(event, MemoryRetained):
            self.offsets.setdefault(event.bank_id, {})[event.memory_id] = offset

    def note_appended(self, events: Sequence[Event], offsets: Sequence[int]) -> None:
        for event, offset in zip(events, offsets, strict=False):
            self.note(event, offset)

    async def fetch(
        self, log: EventLog, state: BankState, event: Event, pending: Sequence[Event] = ()
    ) -> dict[UUID, MemoryRetained]:
        """The retained events of the cold memories ``event`` may bring back (from ``pending``, the
        events decided earlier in this batch and not appended yet, or from the log)."""
        wanted = revivals(state, event)
        if not wanted:
            return {}
        found = {e.memory_id: e for e in pending if isinstance(e, MemoryRetained) and e.memory_id in wanted}
        known = self.offsets.get(state.bank_id, {})
        missing = [m for m in wanted if m not in found and m in known]
        if missing:
            partition = partition_for(state.bank_id, await log.partitions(TOPIC_MEMORIES))
            for memory_id in missing:
                offset = known[memory_id]
                for _, retained in decoded(await log.read(TOPIC_MEMORIES, partition, offset, offset + 1, 1)):
                    if isinstance(retained, MemoryRetained) and retained.memory_id == memory_id:
                        found[memory_id] = retained
        return found
