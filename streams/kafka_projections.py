"""The projections on Kafka: one FastStream subscriber per projection, in its own consumer group, each
member projecting only the partitions the group assigns it, into the shared stores.

Consumes ``hindsight.memories`` (vectors), ``hindsight.turns`` and, for ``ContentErased`` alone,
``hindsight.memories`` (working memory: a partition's positions on both topics are kept, as the
embedded runner keeps them) or every topic (the archive); produces the rows of the current generation's
stores, per partition (a sharded hot store has one LanceDB store per partition, the archive one set of
files per topic-partition), so each table and file has one writer. The stores keep their own
positions, as the embedded runner's do: records
below a partition's stored position are skipped, and a batch that starts past it (the group's
committed offset ahead of a store, e.g. after a switch to a rebuilt generation) rewinds the consumer to
the store's position. Committed group offsets follow the stores' positions (for lag monitoring only).
A store position past the log's end (the broker lost records: ``log.lost``) raises ``LogLostError``
when a partition is assigned, or when a batch starts below the stored position, before anything is
applied: new records at offsets the store already holds would otherwise be skipped as applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Iterable
from typing import Any

from faststream.kafka import KafkaRouter

from hindsight_es import observe
from hindsight_es.config import ALL_TOPICS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import AnyEvent, ContentErased, MemoryEvent, TurnRecorded
from hindsight_es.log import EventLog, Record, TopicPartition
from hindsight_es.log.lost import check as check_log
from hindsight_es.log.sealed import Sealer
from hindsight_es.stores import generations, location
from hindsight_es.waiting import AWAITED
from projections.replay import open_projections
from projections.runner import MAINTAIN_SHARE, Projection, decode_batch, held_positions, steady
from streams.kafka import HALTING, Halt, subscribe

log_ = logging.getLogger("hindsight.kafka.projections")
GROUPS = {
    "vectors": ("hindsight.projection.vectors", (TOPIC_MEMORIES,), list[MemoryEvent], 200),
    # its turns table drops the rows of erased turns: it reads the erasures on the memories topic too
    "working_memory": (
        "hindsight.projection.working-memory",
        (TOPIC_TURNS, TOPIC_MEMORIES),
        list[TurnRecorded | ContentErased],
        250,
    ),
    "archive": ("hindsight.projection.archive", ALL_TOPICS, list[AnyEvent], 1000),
}
# A projection with new rows is maintained MAINTAIN_EVERY_S after its last maintenance, and never for
# more than 1/MAINTAIN_SHARE of its time (each commit adds a fragment, and every later write reads every
# fragment's keys: on object storage a write took 0.08 s on a fresh table and 0.9 s after 60 commits;
# but a pass costs CPU the embedding models need, so passes are spaced in time, not by commits).
MAINTAIN_EVERY_S = 5.0
MAINTAIN_CHECK_S = 0.25  # how often the maintainer looks for a projection due
POINTER_CHECK_S = 1.0


class Follower:
    """The current generation's stores as a process's projections follow them: the pointer is read at most
    every ``POINTER_CHECK_S``, and a switch is logged once (at INFO, naming the generation left and the
    one joined), however many projections move."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stores = location.current(settings)
        self.owners: list[OwnedProjections] = []  # the projections following it (they add themselves)
        self._checked = time.monotonic()

    def current(self) -> dict[str, Any]:
        if time.monotonic() - self._checked >= POINTER_CHECK_S:
            self._checked = time.monotonic()
            now = location.current(self.settings)
            if now != self.stores:
                root = location.root(self.settings)
                log_.info(
                    "the stores were switched from %s to %s (%s): the projections of this process project there "
                    "now, from those stores' own positions",
                    generations.named(root, self.stores),
                    generations.named(root, now),
                    ", ".join(str(path) for path in now.values()),
                )
                self.stores = now
        return self.stores

    async def run(self, stop: asyncio.Event, halt: Halt | None = None) -> None:
        """Until ``stop``: move the owners to a switched generation within ``POINTER_CHECK_S``, batch or
        no batch (each under its lock, between batches). A store that fails is tried again at the next
        check (a projection left without its partitions loads them with its next batch); a ``HALTING``
        failure halts."""
        while not stop.is_set() and not (halt is not None and halt.halted):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), POINTER_CHECK_S)
            try:
                for owner in self.owners:
                    async with owner.lock:
                        await owner.follow_switch()
            except HALTING as exc:
                if halt is None:
                    raise
                halt(exc)
            except Exception as exc:
                log_.warning("following the switched stores failed (tried again in %gs): %s", POINTER_CHECK_S, exc)


class OwnedProjections:
    """One projection's instances for the partitions this member owns, with their stored positions.

    Partitions are applied concurrently (each shard is its own table, so its own writer; partitions
    that share one projection object, like the archive's, are applied one after the other), and
    maintenance runs beside the consumer, a partition at a time: a partition's apply and its
    maintenance exclude each other (its projection's lock), the other partitions' batches go on.
    Maintenance on object storage takes seconds; run inline, it held every partition for that long.
    """

    def __init__(
        self, settings: Settings, name: str, log: EventLog | None = None, follower: Follower | None = None
    ) -> None:
        self.settings, self.name, self.log = settings, name, log  # log: to check positions against its ends
        self.follower = follower or Follower(settings)  # shared by a process's projections: one line a switch
        self.follower.owners.append(self)
        self._next: dict[TopicPartition, int] = {}  # the offset after the last batch's, per partition
        self.lock = asyncio.Lock()  # the wiring's: a batch in hand, or a rebalance
        self.owned: dict[int, Projection] = {}
        self.positions: dict[int, dict[TopicPartition, int]] = {}
        self.stores = self.follower.stores
        self._locks: dict[int, asyncio.Lock] = {}  # partition -> its projection's, held to apply or maintain it
        self._dirty: set[int] = set()
        # projection object -> (when its maintenance last ended, how long it took)
        self._maintained: dict[int, tuple[float, float]] = {}
        self._maintainer: asyncio.Task[None] | None = None
        self._last_batch = -math.inf  # when the last batch was handled (the linger below)

    def _lock(self, partition: int) -> asyncio.Lock:
        return self._locks.setdefault(partition, asyncio.Lock())

    def _holder(self) -> str:
        """Who holds the positions, for ``LogLostError``: this projection and its store."""
        store = self.stores["archive" if self.name == "archive" else "lance"]
        return f"the {self.name.replace('_', ' ')} projection (in {store})"

    async def acquire(self, partitions: Iterable[int]) -> int:
        wanted = sorted(set(partitions) - set(self.owned))
        if not wanted:
            return 0
        found = open_projections(
            self.stores,
            self.settings.max_text_chars,
            options=location.s3_options(self.settings),
            partitions=wanted,
            shard=location.shard(self.settings),
        )
        for projection in found:
            if projection.name != self.name:
                continue
            covered = sorted(projection.partitions) if projection.partitions is not None else wanted
            positions = await projection.positions()  # of every partition it covers
            if self.log is not None:  # read after the positions: a position past the end is a lost log
                await check_log(self.log, positions, self._holder())
            lock = asyncio.Lock()  # one per projection object: the partitions it covers share it
            for p in covered:
                self.owned[p], self.positions[p], self._locks[p] = projection, positions, lock
        return len(wanted)

    async def release(self, partitions: Iterable[int]) -> None:
        for partition in partitions:
            async with self._lock(partition):  # a maintenance in flight finishes before another owner writes
                self.owned.pop(partition, None)
                self.positions.pop(partition, None)
                self._dirty.discard(partition)

    async def close(self) -> None:
        """Drop every partition and stop maintaining (the consumers have stopped): a maintenance in flight
        ends first (``release`` waits for it), so nothing of this owner writes beside its successor."""
        async with self.lock:
            await self.release(list(self.owned))
        if self._maintainer is not None:
            self._maintainer.cancel()
            await asyncio.gather(self._maintainer, return_exceptions=True)
            self._maintainer = None

    async def follow_switch(self) -> None:
        """A rebuild switched the stores: project into the new generation, from its own positions (the
        caller holds ``lock``: no batch in hand)."""
        now = self.follower.current()
        if now != self.stores:
            log_.debug("%s: projecting into %s now", self.name, now)
            partitions = list(self.owned)
            await self.release(partitions)
            self.stores = now
            await self.acquire(partitions)

    async def handle(self, records: list[Record]) -> dict[TopicPartition, int]:
        """Apply each owned partition's records past its stored position; returns the positions to
        commit (a partition whose batch starts past its position is rewound to it)."""
        if self._maintainer is None or self._maintainer.done():
            self._maintainer = asyncio.create_task(self._maintain_loop(), name=f"maintain-{self.name}")
        await self._linger(len(records))
        await self.follow_switch()
        await self.acquire({r.partition for r in records})
        by_tp: dict[TopicPartition, list[Record]] = {}
        for record in records:
            by_tp.setdefault((record.topic, record.partition), []).append(record)
        out: dict[TopicPartition, int] = {}
        chains: dict[int, list[tuple[TopicPartition, list[Record]]]] = {}  # one per projection object
        for tp, batch in sorted(by_tp.items()):
            chains.setdefault(id(self.owned[tp[1]]), []).append((tp, batch))

        async def chain(items: list[tuple[TopicPartition, list[Record]]]) -> None:
            for tp, batch in items:
                out[tp] = await self._apply(tp, batch)
            # Positions a projection held back (records that changed no row: ``projections.working_memory``)
            # are written before the group commits past them: a worker killed now restarts from the
            # group's offsets, and the store must stand there too. One commit for the partition's topics.
            partition = items[0][0][1]
            if (write := held_positions(self.owned.get(partition))) is not None:
                async with self._lock(partition):
                    await write()

        # every chain runs to its end before a failure is raised: a batch redelivered after a failure
        # must not meet a thread still writing the same table
        failed = [r for r in await asyncio.gather(*map(chain, chains.values()), return_exceptions=True) if r]
        if failed:
            raise failed[0]
        return out

    async def _linger(self, n: int) -> None:
        """Under a steady stream (a batch again within 2 x ``linger_s`` of the last), a projection lets
        the next records gather for ``linger_s`` before it applies these, as the embedded
        runner does: every apply pays a commit or a file per partition, and on a worker that owns every
        partition a trickle of turns otherwise paid them tens of times a second (the archive wrote 58 files
        a second at 50 turns/s) on the core the path to recallable needs. A lone batch is applied at once."""
        linger = next((p.linger_s for p in self.owned.values()), 0.0)
        now = time.monotonic()
        if steady(linger, n, now - self._last_batch):
            await AWAITED.linger(max(0.0, linger - (now - self._last_batch)))  # not while a caller here waits
        self._last_batch = time.monotonic()

    async def _apply(self, tp: TopicPartition, batch: list[Record]) -> int:
        """Apply one partition's records past its stored position; returns the position to commit."""
        async with self._lock(tp[1]):
            projection, stood = self.owned[tp[1]], self.positions[tp[1]]
            position = stood.get(tp, 0)
            if batch[0].offset > position:  # the group's offset is past the store: read from the store's
                return position
            if batch[0].offset < position and batch[0].offset != self._next.get(tp) and self.log is not None:
                # delivered again, or a log that lost records and is written anew from offset 0 (a run of
                # batches below the position is checked at its first batch)
                await check_log(self.log, {tp: position}, self._holder())
            self._next[tp] = batch[-1].offset + 1
            fresh = [r for r in batch if r.offset >= position]
            if fresh:
                started = observe.now_ns()
                decoded = await asyncio.to_thread(decode_batch, fresh)
                await projection.apply(decoded)
                stood[tp] = fresh[-1].offset + 1
                self._dirty.add(tp[1])
                # the same observation points as the embedded runner's: a turn's trace and the lag metric
                observe.spans_for(f"projection.{self.name}", [event for _, event in decoded], started)
                observe.projected(self.name, fresh)
            return stood.get(tp, position)

    async def _maintain_loop(self) -> None:
        while True:
            await asyncio.sleep(MAINTAIN_CHECK_S)
            await self.maintain()

    async def maintain(self) -> None:
        """Compaction and index refresh of each owned projection with new rows, each when it is due on
        its own (above), under its lock: while one partition is maintained, the others' batches go on."""
        seen: set[int] = set()  # projection objects looked at (one may cover several partitions)
        for partition in sorted(self._dirty):
            projection = self.owned.get(partition)
            if projection is None:
                self._dirty.discard(partition)
                continue
            if id(projection) in seen:
                continue
            seen.add(id(projection))
            last, took = self._maintained.get(id(projection), (0.0, 0.0))
            if time.monotonic() - last < max(MAINTAIN_EVERY_S, MAINTAIN_SHARE * took):
                continue
            async with self._lock(partition):
                if self.owned.get(partition) is not projection:  # released while waiting for the lock
                    continue
                covered = [p for p, owner in self.owned.items() if owner is projection]
                self._dirty.difference_update(covered)
                started = time.monotonic()
                try:
                    await projection.maintain()
                except Exception:  # housekeeping only: queries stay correct, try again later
                    log_.exception("%s: maintenance of partition %d failed; will retry", self.name, partition)
                    self._dirty.update(covered)
                self._maintained[id(projection)] = (time.monotonic(), time.monotonic() - started)


def projection_routers(
    settings: Settings,
    sealer: Sealer | None,
    halt: Halt | None = None,
    log: EventLog | None = None,
    follower: Follower | None = None,
) -> list[KafkaRouter]:
    """One router per projection (vectors, working memory, archive), each in its own consumer group;
    ``sealer`` and ``halt``: the process's (``streams.kafka.subscribe``); ``log``: whose ends the stores'
    positions are checked against; ``follower``: the generation they follow (run it to move them
    without waiting for a batch)."""
    routers = []
    follower = follower or Follower(settings)
    for name, (group, topics, payload, wait_ms) in GROUPS.items():
        owner: Any = OwnedProjections(settings, name, log, follower)
        router = KafkaRouter()
        subscribe(
            router,
            settings,
            owner,
            topics,
            group,
            owner.handle,
            description=f"The {name.replace('_', ' ')} projection of the partitions this worker owns.",
            payload=payload,
            sealer=sealer,
            batch_timeout_ms=wait_ms,
            halt=halt,
            reader=name,
        )
        routers.append(router)
    return routers
