"""Drives projections over the log: read from their stored positions, decode, apply, repeat.

Projections keep their own positions (in the same write as their rows), so the runner needs no
consumer group. ``advance`` is the one loop: a rebuild runs it once to the log end over an empty
store (``replay_into``), live tailing (``run``) runs it again and again, a batch per partition at a time.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Protocol

from hindsight_es import observe
from hindsight_es.errors import DecodeError
from hindsight_es.events import Event, decode
from hindsight_es.health import HEALTH, progressed
from hindsight_es.log import EventLog, Record, TopicPartition
from hindsight_es.waiting import AWAITED, until_done_or_stopped

log_ = logging.getLogger("hindsight.projections")

Batch = list[tuple[Record, Event | None]]


class Projection(Protocol):
    """A read model built from some topics. ``linger_s``: how long, under a steady stream, the live
    runner lets small batches grow before reading again (0: apply every batch at once).
    ``partitions``: the partitions it projects (None: all), so a worker projects only those it owns."""

    name: str
    topics: tuple[str, ...]
    linger_s: float
    partitions: frozenset[int] | None

    async def positions(self) -> dict[TopicPartition, int]: ...

    async def apply(self, batch: Batch) -> None: ...

    async def maintain(self) -> None:
        """Housekeeping (compaction, index refresh); must not change what queries return."""


def decode_batch(records: list[Record]) -> Batch:
    out: Batch = []
    for record in records:
        try:
            out.append((record, decode(record.value)))
        except DecodeError:
            out.append((record, None))
    return out


async def catch_up(
    log: EventLog, projection: Projection, *, batch_size: int = 5000, progress: Callable[[int], None] | None = None
) -> int:
    """Apply everything written before the call; returns how many records were applied."""
    return await replay_into(log, [projection], batch_size=batch_size, progress=progress)


Select = Callable[[Record], bool]


async def log_ends(log: EventLog, projections: Sequence[Projection]) -> dict[TopicPartition, int]:
    """The next offset of every partition of the topics the projections consume."""
    ends: dict[TopicPartition, int] = {}
    for topic in dict.fromkeys(t for p in projections for t in p.topics):
        ends.update({(topic, p): e for p, e in (await log.end_offsets(topic)).items()})
    return ends


async def replay_into(
    log: EventLog,
    projections: Sequence[Projection],
    *,
    until: dict[TopicPartition, int] | None = None,
    select: Select | None = None,
    batch_size: int = 5000,
    progress: Callable[[int], None] | None = None,
    lag: bool = True,
    last: str | None = None,
) -> int:
    """Catch several projections up to ``until`` (default: the log end now), reading and decoding each
    record once for all of them; returns records read. ``lag``: observe each record's lag since its
    append (``observe.projected``); a rebuild into new stores does not (a lag of days says nothing, and it
    cost a rebuild about a twentieth of its time). ``last``: a topic read after the others (a rebuild's
    archive child relays it, and starts later).

    Records ``select`` rejects are passed as undecodable (``(record, None)``): they advance positions and
    project to nothing (the archive keeps them as raw rows). The cyclic collector is paused meanwhile.
    """
    until = until if until is not None else await log_ends(log, projections)
    positions = {id(p): await p.positions() for p in projections}
    with collector_paused():
        n = await advance(
            log,
            projections,
            until,
            positions,
            select=select,
            batch_size=batch_size,
            progress=progress,
            lag=lag,
            last=last,
        )
    for projection in projections:  # a caught-up store states where it stands
        if (write := held_positions(projection)) is not None:
            await write()
    return n


async def advance(
    log: EventLog,
    projections: Sequence[Projection],
    until: dict[TopicPartition, int],
    positions: dict[int, dict[TopicPartition, int]],
    *,
    select: Select | None = None,
    batch_size: int = 5000,
    batches: int | None = None,
    progress: Callable[[int], None] | None = None,
    lag: bool = True,
    last: str | None = None,
) -> int:
    """Apply every record below ``until`` past each projection's position (``positions``: by ``id`` of the
    projection, updated as batches are applied), at most ``batches`` batches per partition; returns
    records read. Each projection gets only the records past its own position, through its own ``apply``;
    the next batch is read and decoded while the current one is applied. Topic-partitions go in order,
    the topic ``last`` after the others."""
    total = 0
    for (topic, partition), end in sorted(until.items(), key=lambda item: (item[0][0] == last, item[0])):
        readers = [p for p in projections if topic in p.topics and covers(p, partition)]
        if not readers:
            continue
        start = min(positions[id(p)].get((topic, partition), 0) for p in readers)
        pending = asyncio.create_task(_read(log, topic, partition, start, end, batch_size, select))
        done = 0
        while (batch := await pending) is not None:
            done += 1
            next_start = batch[-1][0].offset + 1
            more = batches is None or done < batches
            pending = asyncio.create_task(
                _read(log, topic, partition, next_start if more else end, end, batch_size, select)
            )
            try:
                await asyncio.gather(*(_apply_past(p, positions[id(p)], batch, lag) for p in readers))
            except BaseException:
                pending.cancel()
                raise
            total += len(batch)
            if progress:
                progress(len(batch))
    return total


def covers(projection: Projection, partition: int) -> bool:
    only = getattr(projection, "partitions", None)  # a projection that does not say projects every partition
    return only is None or partition in only


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (it is left as it was found).

    A replay allocates millions of acyclic objects (decoded events, rows, Arrow cells), freed by
    reference counting as each batch is done; the cyclic collector would only traverse the live batches
    again and again, holding the GIL the projections' threads share. Overlapping replays: the first to
    finish turns it back on, which only costs the other some collections.

    What the block left allocated (rows a projection still holds, the last batches) is moved to the oldest
    generation before the collector is turned back on: otherwise the first collection after it, one of
    the youngest generation, traverses all of it at once (785k objects, 0.59 s at the end of a 300k-event
    rebuild). In the oldest generation it is traversed, and any cycle in it freed, by the next full
    collection, which comes only after many more allocations; most of it is freed by reference counting
    before then.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:  # never thaw what someone else froze
                gc.freeze()  # every tracked object to the permanent generation, then all of it to the oldest
                gc.unfreeze()
            gc.enable()


async def _read(
    log: EventLog, topic: str, partition: int, start: int, end: int, batch_size: int, select: Select | None
) -> Batch | None:
    if start >= end or not (records := await log.read(topic, partition, start, end, batch_size)):
        return None
    if select is None:
        return await asyncio.to_thread(decode_batch, records)
    chosen = await asyncio.to_thread(decode_batch, [r for r in records if select(r)])
    decoded = {record.offset: event for record, event in chosen}
    return [(record, decoded.get(record.offset)) for record in records]


async def _apply_past(projection: Projection, positions: dict[TopicPartition, int], batch: Batch, lag: bool) -> None:
    record = batch[0][0]
    tp = (record.topic, record.partition)
    done = positions.get(tp, 0)
    mine = batch if record.offset >= done else [item for item in batch if item[0].offset >= done]
    if mine:
        started = observe.now_ns()
        await projection.apply(mine)
        positions[tp] = mine[-1][0].offset + 1
        observe.spans_for(f"projection.{projection.name}", [event for _, event in mine], started)
        if lag:
            observe.projected(projection.name, [record for record, _ in mine])
        else:  # one topic-partition, in offset order: its last record is how far it has read
            observe.consumed(projection.name, [mine[-1][0]])


LINGER_BELOW = 500  # a step that applied fewer records than this waits the projection's linger_s, if any


def steady(linger_s: float, n: int, since_last_s: float) -> bool:
    """Whether a projection with ``linger_s`` lets ``n`` records gather before its next write: records came
    again within twice its linger of the last ones, and not a backlog (the embedded runner and the Kafka
    wiring share this rule)."""
    return bool(linger_s) and n < LINGER_BELOW and since_last_s < 2 * linger_s


def held_positions(projection: Projection | None) -> Callable[[], Awaitable[None]] | None:
    """How to store the positions ``projection`` holds back (batches that changed no row: ``working_memory``),
    if it holds any: before a caught-up store is reported, and before a consumer group commits past them."""
    return getattr(projection, "write_positions", None)


MAINTAIN_EVERY_S = 5.0  # a projection with new rows is maintained at most this often
MAINTAIN_SHARE = 10  # maintenance waits at least this many times its regular duration before it runs again
# A pass's regular duration is the shortest of the last MAINTAIN_RECENT: an occasional long pass (a vector
# index retrain, one pass in ``MAX_VECTOR_DELTAS + 1``, seconds at 20k rows) must not postpone the next
# compaction by ten times its length, since every commit in between pays for the fragments left waiting
# (a ``merge_insert`` of 4 rows: 11 ms of CPU on a compacted table, 42 ms with 90 fragments).
MAINTAIN_RECENT = 3
# On a log that signals this process's appends (the embedded one: ``EmbeddedLog.appended``), an idle
# projection waits for the next append instead of reading the log every ``idle_s``, and looks again at
# least this often for other processes' appends (a CLI's, a reader's): an idle `up` polled the log about
# 150 times a second and kept a tenth of a core busy doing it.
IDLE_MAX_S = 0.25


async def run(
    log: EventLog,
    projection: Projection,
    stop: asyncio.Event,
    *,
    idle_s: float = 0.02,
    maintain_every_s: float = MAINTAIN_EVERY_S,
    batch_size: int = 2000,
) -> None:
    """Tail the log until ``stop`` is set: ``advance`` by a batch per partition, then housekeeping."""
    positions = {id(projection): await projection.positions()}
    dirty, last_maintain = False, time.monotonic()
    took: collections.deque[float] = collections.deque(maxlen=MAINTAIN_RECENT)  # recent passes' durations
    last_found = -math.inf  # when a read last found records
    idle = idle_s  # the next idle wait: doubled up to IDLE_MAX_S while nothing comes, reset when records do
    while not stop.is_set():
        seen = getattr(log, "appends", None)  # before the read: an append during it ends the wait at once
        try:
            n = await advance(
                log, [projection], await log_ends(log, [projection]), positions, batch_size=batch_size, batches=1
            )
        except Exception as exc:
            log_.exception("projection %s failed; retrying from its stored position", projection.name)
            HEALTH.degrade(f"projection {projection.name}", f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(1.0)
            positions = {id(projection): await projection.positions()}
            continue
        HEALTH.recover(f"projection {projection.name}")
        progressed()  # applied, or caught up: the task running the projections works again if it was retried
        dirty |= n > 0
        # Maintenance (compaction, index refresh) runs on schedule, busy or idle: every write adds a
        # fragment, and each one costs every later search and merge, so a steady stream that never
        # pauses must still be compacted. Its regular passes are spaced to take at most 1/MAINTAIN_SHARE
        # of the time, as their cost grows with the table (LanceDB's full-text index update grows with its rows).
        regular = min(took, default=0.0)
        if dirty and time.monotonic() - last_maintain >= max(maintain_every_s, MAINTAIN_SHARE * regular):
            started = time.monotonic()
            try:
                await projection.maintain()
                dirty = False
            except Exception:  # housekeeping only: queries stay correct, try again on a later pass
                log_.exception("projection %s: maintenance failed; will retry", projection.name)
            last_maintain = time.monotonic()
            took.append(last_maintain - started)
            observe.PROJECTION_MAINTENANCE.labels(projection=projection.name).observe(took[-1])
        # Under a steady stream (records again within 2 x ``linger_s`` of the last), a projection lets
        # small batches grow for ``linger_s`` before its next read: each write has a fixed cost (a
        # commit, a file, an fsync) that would otherwise be paid many times a second on the cores the
        # path to recallable and recall need. A lone event is still applied at once.
        pause = idle_s if n == 0 else 0.0
        if n and (linger := projection.linger_s):
            now = time.monotonic()
            if steady(linger, n, now - last_found):
                pause = linger
            last_found = now
        if n == 0 and seen is not None:
            await _until_appended(log, stop, seen, idle)
            idle = min(idle * 2, IDLE_MAX_S)
            continue
        idle = idle_s
        if pause:
            await AWAITED.linger(pause, stop)  # a caller waiting for what it wrote cuts it short


async def _until_appended(log: EventLog, stop: asyncio.Event, seen: int, timeout: float) -> None:
    """Until this process appends past ``seen`` (``EmbeddedLog.appended``), ``stop`` is set, or ``timeout``."""
    await until_done_or_stopped(log.appended(seen, timeout), stop)  # type: ignore[attr-defined]
