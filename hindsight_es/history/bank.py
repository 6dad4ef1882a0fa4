"""One bank's records and memory events, read from its partition of a topic, and its state as of a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import Event, decoded
from hindsight_es.log import EventLog, Record, partition_for
from hindsight_es.memory import BankState, fold


async def bank_records(
    log: EventLog, topic: str, bank_id: str, *, start: int = 0, batch: int = 5000
) -> AsyncIterator[list[Record]]:
    """The bank's records of ``topic`` written before the call, in log order, batch by batch (a bank
    lives on one partition, so only that one is read)."""
    partition = partition_for(bank_id, await log.partitions(topic))
    end = (await log.end_offsets(topic)).get(partition, 0)
    position = start
    while position < end:
        records = await log.read(topic, partition, position, end, batch)
        if not records:
            break
        yield [r for r in records if r.key == bank_id]
        position = records[-1].offset + 1


async def memory_events(log: EventLog, bank_id: str) -> list[Event]:
    """The bank's memory events in log order (records that do not decode are left out)."""
    out: list[Event] = []
    async for records in bank_records(log, TOPIC_MEMORIES, bank_id):
        for _, event in decoded(records):
            if event.bank_id == bank_id:
                out.append(event)
    return out


async def state_as_of(log: EventLog, bank_id: str, as_of: datetime | None = None) -> BankState:
    """The bank's decision state folded from the log; with ``as_of``, as it stood then (event time)."""
    return fold(bank_id, await memory_events(log, bank_id), as_of=as_of)
