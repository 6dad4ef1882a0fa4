"""The hot-store projections of a rebuild: tables built from empty by their only writer.

A live projection merges every batch into its table (``LanceStore.commit``) and reads back the rows a
batch changes; both costs grow with the table, so a rebuild of a million memories spent most of its
time in merges. A table being rebuilt has no reader and one writer that has seen every row it holds,
so these projections append instead: rows are held in memory until ``WINDOW`` of them wait, then the
oldest are appended; a change to a row already appended is kept (a few fields) and applied at
``finish`` with one merge, which also deletes what left the table and writes the positions. The rows
they leave are the live projections' (``replay verify`` compares the two: the live stores are built by
the incremental path, its scratch copy by this one).

Used by ``projections.replay`` on a new generation and on ``verify``'s scratch directory only: the
positions are written at ``finish``, so a rebuild interrupted before it is started again from scratch
(the generation is removed).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.errors import StoreError
from hindsight_es.events.changes import changes
from hindsight_es.log import TopicPartition
from hindsight_es.stores.lance import ALL_ROWS, TURN_SCHEMA, LanceStore, erase_rows, memory_schema
from projections.runner import Batch, Projection
from projections.vectors import TABLE as MEMORIES
from projections.vectors import VectorsProjection, fold, leave_out_misfits, memory_table, stored_rows
from projections.working_memory import TABLE as TURNS
from projections.working_memory import WorkingMemoryProjection

WINDOW = 50_000  # memory rows held before the oldest half is appended (about 2-3 KB each in memory)
TAKE = 20_000  # rows read back per take at finish


class Pending:
    """``vectors.Rows`` for a table built from empty: rows held in memory (``held``, oldest first), the
    keys already appended (``stored``), and for those what ``finish`` applies: changed fields, whole new
    rows (revived after an archive, retained again), deletions (archived) and erasures."""

    def __init__(self) -> None:
        self.held: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.stored: set[str] = set()
        self.changed: dict[str, dict[str, Any]] = {}
        self.replaced: dict[str, dict[str, Any]] = {}
        self.gone: set[str] = set()
        self.erased: set[str] = set()

    def put(self, memory_id: str, row: dict[str, Any]) -> None:
        if memory_id in self.stored:
            self.replaced[memory_id] = row
            self.changed.pop(memory_id, None)
            self.gone.discard(memory_id)
        else:
            self.held[memory_id] = row

    def change(self, memory_id: str, fields: dict[str, Any]) -> None:
        if (row := self.held.get(memory_id)) is not None or (row := self.replaced.get(memory_id)) is not None:
            row.update(fields)
        elif memory_id in self.stored and memory_id not in self.gone and memory_id not in self.erased:
            self.changed.setdefault(memory_id, {}).update(fields)

    def drop(self, memory_id: str, *, erased: bool) -> None:
        self.held.pop(memory_id, None)
        self.replaced.pop(memory_id, None)
        self.changed.pop(memory_id, None)
        if memory_id in self.stored:
            (self.erased if erased else self.gone).add(memory_id)

    def oldest(self, keep: int) -> dict[str, dict[str, Any]]:
        """Take the held rows beyond the newest ``keep`` out of memory (they are to be appended)."""
        out: dict[str, dict[str, Any]] = {}
        while len(self.held) > keep:
            memory_id, row = self.held.popitem(last=False)
            out[memory_id] = row
        return out


class FreshVectors(VectorsProjection):
    """``VectorsProjection`` over a table that starts empty (see the module)."""

    def __init__(self, store: LanceStore, partitions: frozenset[int] | None = None, *, window: int = WINDOW) -> None:
        super().__init__(store, partitions)
        self.window = window
        self._pending = Pending()
        self._ends: dict[TopicPartition, int] = {}
        self._seen_dim: int | None = None  # of the first row held: a table is made even if none stays

    def _positions(self) -> dict[TopicPartition, int]:
        _require_empty(self.store, MEMORIES)
        return {}

    def _apply(self, batch: Batch) -> None:
        fold([(record, event, changes(event)) for record, event in batch if event is not None], self._pending)
        if self._seen_dim is None:
            self._seen_dim = self._dim(self._pending.held)
        self._ends.update({(record.topic, record.partition): record.offset + 1 for record, _ in batch})
        if len(self._pending.held) > self.window:
            self._append(self._pending.oldest(self.window // 2))

    def _append(self, rows: dict[str, dict[str, Any]]) -> None:
        if (dim := self._dim(rows)) is None:
            return
        leave_out_misfits(rows, dim)
        if rows:
            self.store.upsert(MEMORIES, memory_schema(dim), memory_table(list(rows.values()), dim), new=True)
            self._pending.stored.update(rows)

    async def finish(self) -> None:
        await asyncio.to_thread(self._finish)

    def _finish(self) -> None:
        """Append what is held, erase, then one commit: changed and replaced rows, deletions, positions."""
        pending = self._pending
        self._append(pending.oldest(0))
        late = dict(pending.replaced)
        for memory_id, row in _read(self.store, pending.changed.keys() - late.keys()).items():
            late[memory_id] = row | pending.changed[memory_id]
        if (dim := self._dim(late) or self._seen_dim) is None:
            return  # nothing ever retained: no table, as live
        leave_out_misfits(late, dim)
        if pending.erased:  # every older version gone before the positions pass the erasures (as live)
            erase_rows(self.store, MEMORIES, sorted(pending.erased))
        rows = memory_table(list(late.values()), dim)
        quiet = not late and not pending.gone
        self.store.commit(MEMORIES, memory_schema(dim), rows, self._ends, delete=sorted(pending.gone), new=quiet)
        self._pending = Pending()


class FreshTurns(WorkingMemoryProjection):
    """``WorkingMemoryProjection`` over a table that starts empty: a batch's new turns are appended, a turn
    recorded again (a redelivery, or its id reused) left as first written; the positions are written at
    ``finish``."""

    def __init__(self, store: LanceStore, max_text_chars: int, partitions: frozenset[int] | None = None) -> None:
        super().__init__(store, max_text_chars, partitions)
        self._stored: set[str] = set()
        self._ends: dict[TopicPartition, int] = {}

    async def positions(self) -> dict[TopicPartition, int]:
        await asyncio.to_thread(_require_empty, self.store, TURNS)
        return {}

    def _apply(self, batch: Batch) -> None:
        rows, ends, erased = self.rows_of(batch, {})
        self._ends.update(ends)
        if erased and (gone := self.erased_keys(erased, rows)):
            erase_rows(self.store, TURNS, gone)
            self._stored.difference_update(gone)
        new = [row for key, row in rows.items() if key not in self._stored]  # a key stored before keeps its row
        if new:
            self.store.upsert(TURNS, TURN_SCHEMA, pa.Table.from_pylist(new, schema=TURN_SCHEMA), new=True)
        self._stored.update(rows)

    async def finish(self) -> None:
        if self._ends:
            empty = TURN_SCHEMA.empty_table()
            await asyncio.to_thread(self.store.commit, TURNS, TURN_SCHEMA, empty, self._ends, new=True)


async def finish(projections: Iterable[Projection]) -> None:
    """Write what the fresh projections among ``projections`` still hold, and their positions."""
    for projection in projections:
        if isinstance(projection, (FreshVectors, FreshTurns)):
            await projection.finish()


def _require_empty(store: LanceStore, name: str) -> None:
    if store.table(name) is not None and store.rows(name):
        raise StoreError(f"a rebuild writes a new table, but {name} already holds rows")


def _read(store: LanceStore, ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The stored rows of these memory ids: one scan of the key column, then takes by row id (an
    ``IN`` filter of tens of thousands of ids would be parsed and scanned per chunk)."""
    wanted = pa.array(sorted(ids), pa.string())
    table = store.table(MEMORIES)
    if table is None or len(wanted) == 0:
        return {}
    keys = table.search().select(["memory_id"]).with_row_id(True).limit(ALL_ROWS).to_arrow()
    row_ids = keys.filter(pc.is_in(keys.column("memory_id"), value_set=wanted)).column("_rowid").to_pylist()
    out: dict[str, dict[str, Any]] = {}
    for at in range(0, len(row_ids), TAKE):
        out.update(stored_rows(table.take_row_ids(row_ids[at : at + TAKE]).to_arrow()))
    return out
