"""The projections on Kafka: one FastStream subscriber per projection, in its own consumer group, each
member projecting only the partitions the group assigns it, into the shared stores.

Consumes ``hindsight.memories`` (vectors), ``hindsight.turns`` (working memory) or every topic (the
archive); produces the rows of the current generation's stores, per partition (a sharded hot store
has one LanceDB store per partition, the archive one set of files per topic-partition), so each table
and file has one writer. The stores keep their own positions, as the embedded runner's do: records
below a partition's stored position are skipped, and a batch that starts past it (the group's
committed offset ahead of a store, e.g. after a switch to a rebuilt generation) rewinds the consumer to
the store's position. Committed group offsets follow the stores' positions (for lag monitoring only).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Any

from faststream.kafka import KafkaRouter

from hindsight_es.config import ALL_TOPICS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import AnyEvent, MemoryEvent, TurnRecorded
from hindsight_es.log import Record, TopicPartition
from hindsight_es.stores import location
from projections.replay import open_projections
from projections.runner import MAINTAIN_SHARE, Projection, decode_batch
from streams.kafka import subscribe

log_ = logging.getLogger("hindsight.kafka.projections")
GROUPS = {
    "vectors": ("hindsight.projection.vectors", (TOPIC_MEMORIES,), list[MemoryEvent], 200),
    "working_memory": ("hindsight.projection.working-memory", (TOPIC_TURNS,), list[TurnRecorded], 250),
    "archive": ("hindsight.projection.archive", ALL_TOPICS, list[AnyEvent], 1000),
}
MAINTAIN_EVERY_S = 5.0
POINTER_CHECK_S = 1.0


class OwnedProjections:
    """One projection's instances for the partitions this member owns, with their stored positions."""

    def __init__(self, settings: Settings, name: str) -> None:
        self.settings, self.name = settings, name
        self.lock = asyncio.Lock()
        self.owned: dict[int, Projection] = {}
        self.positions: dict[int, dict[TopicPartition, int]] = {}
        self.stores = location.current(settings)
        self._checked = time.monotonic()
        self._dirty: set[int] = set()
        self._maintained, self._maintain_took = time.monotonic(), 0.0

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
            for p in covered:
                self.owned[p], self.positions[p] = projection, positions
        return len(wanted)

    async def release(self, partitions: Iterable[int]) -> None:
        for partition in partitions:
            self.owned.pop(partition, None)
            self.positions.pop(partition, None)
            self._dirty.discard(partition)

    async def _follow_switch(self) -> None:
        """A rebuild switched the stores: project into the new generation, from its own positions."""
        if time.monotonic() - self._checked < POINTER_CHECK_S:
            return
        self._checked = time.monotonic()
        now = location.current(self.settings)
        if now != self.stores:
            log_.info("%s: the stores were switched to %s: projecting there now", self.name, now)
            partitions = list(self.owned)
            await self.release(partitions)
            self.stores = now
            await self.acquire(partitions)

    async def handle(self, records: list[Record]) -> dict[TopicPartition, int]:
        """Apply each owned partition's records past its stored position; returns the positions to
        commit (a partition whose batch starts past its position is rewound to it)."""
        await self._follow_switch()
        await self.acquire({r.partition for r in records})
        by_tp: dict[TopicPartition, list[Record]] = {}
        for record in records:
            by_tp.setdefault((record.topic, record.partition), []).append(record)
        out: dict[TopicPartition, int] = {}
        for (topic, partition), batch in sorted(by_tp.items()):
            projection, stood = self.owned[partition], self.positions[partition]
            position = stood.get((topic, partition), 0)
            if batch[0].offset > position:  # the group's offset is past the store: read from the store's
                out[(topic, partition)] = position
                continue
            fresh = [r for r in batch if r.offset >= position]
            if fresh:
                await projection.apply(await asyncio.to_thread(decode_batch, fresh))
                stood[(topic, partition)] = fresh[-1].offset + 1
                self._dirty.add(partition)
            out[(topic, partition)] = stood.get((topic, partition), position)
        return out

    async def maintain(self) -> None:
        """Compaction and index refresh of the owned partitions, spaced like the embedded runner's."""
        now = time.monotonic()
        if not self._dirty or now - self._maintained < max(MAINTAIN_EVERY_S, MAINTAIN_SHARE * self._maintain_took):
            return
        for partition in sorted(self._dirty):
            if (projection := self.owned.get(partition)) is not None:
                try:
                    await projection.maintain()
                except Exception:  # housekeeping only: queries stay correct, try again later
                    log_.exception("%s: maintenance of partition %d failed; will retry", self.name, partition)
        self._dirty.clear()
        self._maintained = time.monotonic()
        self._maintain_took = self._maintained - now


def projection_routers(settings: Settings) -> list[KafkaRouter]:
    """One router per projection (vectors, working memory, archive), each in its own consumer group."""
    routers = []
    for name, (group, topics, payload, wait_ms) in GROUPS.items():
        owner: Any = OwnedProjections(settings, name)
        router = KafkaRouter()
        subscribe(
            router,
            settings,
            owner,
            topics,
            group,
            owner.handle,
            after=owner.maintain,
            description=f"The {name.replace('_', ' ')} projection of the partitions this worker owns.",
            payload=payload,
            batch_timeout_ms=wait_ms,
        )
        routers.append(router)
    return routers
