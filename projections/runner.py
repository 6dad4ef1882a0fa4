"""Drives a projection over the log: read from its stored positions, decode, apply, repeat.

Projections keep their own positions (in the same write as their rows), so the runner needs no
consumer group: a rebuild is this loop over an empty store, live tailing is the same loop forever.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Protocol

from hindsight_es.errors import DecodeError
from hindsight_es.events import Event, decode
from hindsight_es.log import EventLog, Record, TopicPartition

log_ = logging.getLogger("hindsight.projections")

Batch = list[tuple[Record, Event | None]]


class Projection(Protocol):
    name: str
    topics: tuple[str, ...]

    async def positions(self) -> dict[TopicPartition, int]: ...

    async def apply(self, batch: Batch) -> None: ...

    async def maintain(self) -> None:
        """Housekeeping when idle (index refresh); must not change what queries return."""


def decode_batch(records: list[Record]) -> Batch:
    out: Batch = []
    for record in records:
        try:
            out.append((record, decode(record.value)))
        except DecodeError:
            out.append((record, None))
    return out


async def step(log: EventLog, projection: Projection, positions: dict[TopicPartition, int],
               batch_size: int = 2000, until: dict[TopicPartition, int] | None = None) -> int:
    """Apply at most one batch per topic-partition that is behind; returns records applied."""
    applied = 0
    for topic in projection.topics:
        ends = until if until is not None else {(topic, p): e for p, e in (await log.end_offsets(topic)).items()}
        for (t, partition), end in sorted(ends.items()):
            if t != topic:
                continue
            start = positions.get((topic, partition), 0)
            if start >= end:
                continue
            records = await log.read(topic, partition, start, end, batch_size)
            if not records:
                continue
            await projection.apply(decode_batch(records))
            positions[(topic, partition)] = records[-1].offset + 1
            applied += len(records)
    return applied


async def catch_up(log: EventLog, projection: Projection, *, batch_size: int = 5000,
                   progress: Callable[[int], None] | None = None) -> int:
    """Apply everything written before the call; returns how many records were applied."""
    until: dict[TopicPartition, int] = {}
    for topic in projection.topics:
        until.update({(topic, p): e for p, e in (await log.end_offsets(topic)).items()})
    positions = await projection.positions()
    total = 0
    while n := await step(log, projection, positions, batch_size, until):
        total += n
        if progress:
            progress(n)
    return total


async def run(log: EventLog, projection: Projection, stop: asyncio.Event, *, idle_s: float = 0.02,
              maintain_every_s: float = 5.0) -> None:
    """Tail the log until ``stop`` is set."""
    positions = await projection.positions()
    dirty, last_maintain = False, time.monotonic()
    while not stop.is_set():
        try:
            n = await step(log, projection, positions)
        except Exception:
            log_.exception("projection %s failed; retrying from its stored position", projection.name)
            await asyncio.sleep(1.0)
            positions = await projection.positions()
            continue
        dirty |= n > 0
        if n == 0:
            if dirty and time.monotonic() - last_maintain >= maintain_every_s:
                try:
                    await projection.maintain()
                    dirty = False
                except Exception:  # housekeeping only: queries stay correct, try again on a later idle pass
                    log_.exception("projection %s: maintenance failed; will retry", projection.name)
                last_maintain = time.monotonic()
            try:
                await asyncio.wait_for(stop.wait(), idle_s)
            except TimeoutError:
                pass
