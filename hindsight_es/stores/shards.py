"""The hot store of one generation: one LanceDB directory, or one per partition of the topics.

IO only. A bank lives on one partition (``log.partition_for``), so with one store per partition
(``p<N>/`` under the root, each with its ``memories`` and ``turns`` tables) a bank's recall reads one
smaller table, and each table has a single writer: the worker that owns the partition, which also
compacts and indexes it. Concurrent writers to one shared table were measured to starve its
compaction (every rewrite was pre-empted by a writer's commit; docs/scaling.md), so a store shared by
several workers is sharded. ``layout.json`` at the root records the layout when a sharded store is
created; without it the root is one store, as the embedded default has always written.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa

from hindsight_es.log import partition_for
from hindsight_es.stores.filters import MemoryFilter, TurnFilter
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.objects import S3Options, is_remote, join, objects
from hindsight_es.stores.tracking import Positions

LAYOUT = "layout.json"
Filter = MemoryFilter | TurnFilter
HotStore = Any  # LanceStore | ShardedLance: the read interface both give
# How often a table looks for a newer version before it is read or written. A reader: every time (what
# another process committed is read at once). A projection, its table's one writer: never, since every
# version is its own; on object storage that check is a request before every operation (writes of a few
# rows took 19 ms instead of 27, appends 10 instead of 23, on SeaweedFS). ``LanceStore.positions(newest=)``
# reads the newest version after a failed write.
READER: timedelta | None = timedelta(0)
WRITER: timedelta | None = None


def layout_of(root: Path | str, options: S3Options | None = None) -> int | None:
    """Partitions of a sharded store at ``root``; None for a single store (or none yet)."""
    data = objects(root, options).get(LAYOUT)
    if data is None:
        return None
    return int(json.loads(data)["partitions"])


def create_layout(root: Path | str, partitions: int, options: S3Options | None = None) -> int:
    """Make ``root`` a store sharded by partition, unless it holds one already; returns its partitions."""
    store = objects(root, options)
    if store.get(LAYOUT) is None and not _has_tables(root, options):
        store.put_new(LAYOUT, json.dumps({"shards": "partition", "partitions": partitions}).encode("utf-8"))
    found = layout_of(root, options)
    return found if found is not None else 0


def _has_tables(root: Path | str, options: S3Options | None) -> bool:
    if not is_remote(root) and not Path(root).is_dir():
        return False
    return any(key.split("/", 1)[0].endswith(".lance") for key, _ in objects(root, options).list(""))


def open_hot(root: Path | str, options: S3Options | None = None, *, writer: bool = False) -> HotStore:
    """The hot store at ``root`` as its layout says: a ``LanceStore`` or a ``ShardedLance``. A ``writer``'s
    tables never look for versions they did not write (``WRITER``)."""
    partitions = layout_of(root, options)
    consistency = WRITER if writer else READER
    if partitions is None:
        return LanceStore(root, options=options, read_consistency=consistency)
    return ShardedLance(root, partitions, options, read_consistency=consistency)


class ShardedLance:
    """One ``LanceStore`` per partition, read as one store (the reads of ``LanceStore`` that span banks
    visit every shard; those of one bank go to its shard)."""

    def __init__(
        self,
        root: Path | str,
        partitions: int,
        options: S3Options | None = None,
        *,
        read_consistency: timedelta | None = READER,
    ) -> None:
        self.path = root
        self.partitions = partitions
        self._options = options
        self._consistency = read_consistency
        self._shards: dict[int, LanceStore] = {}

    def for_partition(self, partition: int) -> LanceStore:
        if partition not in self._shards:
            path = join(self.path, f"p{partition}")
            self._shards[partition] = LanceStore(path, options=self._options, read_consistency=self._consistency)
        return self._shards[partition]

    def for_bank(self, bank_id: str) -> LanceStore:
        return self.for_partition(partition_for(bank_id, self.partitions))

    def shards(self) -> list[LanceStore]:
        return [self.for_partition(p) for p in range(self.partitions)]

    def _of(self, where: Filter | None) -> list[LanceStore]:
        return [self.for_bank(where.bank_id)] if where is not None and where.bank_id else self.shards()

    def table(self, name: str) -> Any | None:
        return next((t for s in self.shards() if (t := s.table(name)) is not None), None)

    def scan(
        self, name: str, where: Filter, columns: Sequence[str] | None = None, limit: int | None = None, **kw: Any
    ) -> pa.Table:
        found = [t for s in self._of(where) if (t := s.scan(name, where, columns, limit, **kw)).num_rows]
        if not found:
            return pa.table({})
        return pa.concat_tables(found, promote_options="default")

    def count(self, name: str, where: Filter | None = None) -> int:
        return sum(s.count(name, where) for s in self._of(where))

    def rows(self, name: str) -> int:
        return sum(s.rows(name) for s in self.shards())

    def positions(self, name: str) -> Positions:
        out: Positions = {}
        for shard in self.shards():
            out.update(shard.positions(name))
        return out

    def snapshot(self, name: str) -> tuple[pa.Table, Positions]:
        tables, positions = [], {}
        for shard in self.shards():
            rows, at = shard.snapshot(name)
            positions.update(at)
            if rows.num_rows:
                tables.append(rows)
        return (pa.concat_tables(tables, promote_options="default") if tables else pa.table({})), positions

    def rows_by_key(self, name: str, ids: Sequence[str]) -> pa.Table | None:
        found = [t for s in self.shards() if (t := s.rows_by_key(name, ids)) is not None and t.num_rows]
        return pa.concat_tables(found, promote_options="default") if found else None

    def banks(self) -> list[str]:
        return sorted({b for s in self.shards() for b in s.banks()})

    def has_bank(self, bank_id: str) -> bool:
        return self.for_bank(bank_id).has_bank(bank_id)

    def vector_dim(self, name: str = "memories") -> int | None:
        return next((d for s in self.shards() if (d := s.vector_dim(name)) is not None), None)

    def upgrade(self) -> None:
        for shard in self.shards():
            shard.upgrade()

    def ensure_indexes(self, tables: Sequence[str] = ("memories", "turns")) -> None:
        for shard in self.shards():
            shard.ensure_indexes(tables)

    def is_open(self, name: str) -> bool:
        return any(s.is_open(name) for s in self._shards.values())
