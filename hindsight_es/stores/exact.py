"""Exact vector search of a small filtered set, from vectors held in process.

LanceDB's exact (flat) search reads and decodes the vector of every row its filter selects, for every
query: about 12 µs a row at 896 dimensions (a bilingual bank's 2,500 other-script memories cost 35 ms of
CPU per search, measured), while the same cosines over vectors already in memory are one matrix product
(well under a millisecond). So the rows a filter selects are read once per version of the table and kept;
each search at that version ranks them in numpy.

A kept set is keyed by (table, filter), the table being one open table object (kept alive with the set,
so its identity is not reused; a table dropped and created again is another object), and stamped with the
table version it was read at or after: every write (append, update, delete, compaction) makes a new
version, so a search that finds the stamp equal to the version it just read uses rows that are exactly the
table's; any other version reads them again. Row ids are Lance addresses (``recall.rowcache``: a row id's
content never changes), as LanceDB's search returns.
Distances are LanceDB's cosine distance, 1 - cos, in float32; equal scores are ordered by row id.

A set kept at an older version is brought up to date rather than read again (``_refresh``): only the row
ids the filter selects now are read, the rows no longer among them are masked out, and the vectors of the
new ones are taken by id and kept as one more block. Under a steady stream each write makes a version, and
reading a 10k-row set again cost about 55 ms of CPU (its read 26, normalizing 29; 250 ms and more when the
36 MB it allocates had to be faulted in) where the row ids and a few new vectors cost about 5 ms (measured on
the 10k layout of ``bench recall``, every English memory of the bank for a Chinese question). A set that
gathered more than ``MAX_BLOCKS`` blocks, or whose masked rows are more than ``MAX_DEAD`` of it, or that would
take as many new rows as it keeps (a compaction moved them), is read again whole.

Bounded by ``MAX_VALUES`` floats in all (the least recently used sets go first); a filter selecting more
than ``MAX_ROWS`` rows, or narrowed by a time range (one per query), is searched by LanceDB as before, and
such a filter is remembered per version, so its rows are not read again for every query only to be refused.
Everything here runs on LanceDB's event loop (``Searches``), so the cache needs no lock; concurrent searches
that miss the same set wait for one read.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pyarrow as pa

from hindsight_es.stores.once import once
from hindsight_es.types import Vector

# Exact search is chosen for banks of up to 3,000 rows, tables without a vector index, and the other-script
# memories of a bilingual bank when probing IVF partitions would compare as many rows (``ivf_nprobes``): the
# 7,500 English memories of a 10k bank a quarter Chinese, for every Chinese question. Past this size LanceDB's
# flat search decodes every selected row for each query (16 ms of wall time for those 7,500).
MAX_ROWS = 16_000
MAX_VALUES = 16_000_000  # floats kept in all: 64 MB (about 18,000 rows of 896 dimensions)
REFUSED_KEPT = 1_024  # filters remembered as selecting more than MAX_ROWS (at one version each)
MAX_BLOCKS = 16  # blocks of a kept set (its first read, then one per refresh that found new rows)
MAX_DEAD = 0.25  # share of a kept set's rows masked out (deleted, moved, no longer selected)


@dataclass(frozen=True, slots=True)
class _Set:
    table: object  # the open table the rows were read from: alive as long as its key is
    version: int
    row_ids: np.ndarray  # int64, the rows of the blocks in order
    blocks: tuple[np.ndarray, ...]  # float32, one L2-normalized row per vector (a zero vector stays zero)
    alive: np.ndarray  # bool per row: still selected at ``version``

    @property
    def size(self) -> int:
        return sum(block.size for block in self.blocks)

    def nearest(self, vector: Vector, limit: int) -> list[tuple[int, float]]:
        query = _unit(vector)
        distances = np.concatenate([1.0 - block @ query for block in self.blocks]) if self.blocks else np.empty(0)
        live = np.flatnonzero(self.alive)
        return _top(self.row_ids[live], distances[live], limit)


_SETS: OrderedDict[tuple[int, str], _Set] = OrderedDict()
_READING: dict[Hashable, asyncio.Future[_Set | None]] = {}
_REFUSED: OrderedDict[tuple[int, str], tuple[object, int]] = OrderedDict()  # key -> (table, version): too many


async def nearest(
    table: object,
    where: str,
    version: int,
    read: Callable[[], Awaitable[pa.Table]],
    vector: Vector,
    limit: int,
    *,
    read_ids: Callable[[], Awaitable[np.ndarray]] | None = None,
    take: Callable[[np.ndarray], Awaitable[pa.Table]] | None = None,
) -> list[tuple[int, float]] | None:
    """``(row id, cosine distance)`` of the ``limit`` nearest rows of ``table`` that the SQL filter ``where``
    selects, at ``version``; ``read()`` reads their ``_rowid`` and ``vector`` columns (at least ``MAX_ROWS``
    + 1 of them if there are that many) when they are not kept. With ``read_ids()`` (the row ids it selects,
    as many) and ``take(row_ids)`` (those rows' ``_rowid`` and ``vector``), a set kept at another version is
    brought up to date (``_refresh``). None when there are more than ``MAX_ROWS`` (search them in LanceDB)."""
    key = (id(table), where)
    if (refused := _REFUSED.get(key)) is not None and refused[0] is table and refused[1] == version:
        return None
    kept = _SETS.get(key)
    if kept is None or kept.version != version or kept.table is not table:
        refresh = None
        if kept is not None and kept.table is table and read_ids is not None and take is not None:
            refresh = partial(_refresh, kept, version, read_ids, take)
        kept = await _load(table, key, version, read, refresh)
        if kept is None:
            return None
    _SETS.move_to_end(key)
    return kept.nearest(vector, limit)


def ranked(row_ids: np.ndarray, unit: np.ndarray, vector: Vector, limit: int) -> list[tuple[int, float]]:
    """``(row id, cosine distance)`` of the ``limit`` rows of ``unit`` (``unit_vectors``) nearest ``vector``,
    nearest first, equal distances by row id."""
    return _top(row_ids, 1.0 - unit @ _unit(vector), limit)


def _unit(vector: Vector) -> np.ndarray:
    query = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(query))
    return query / norm if norm > 0 else query


def _top(row_ids: np.ndarray, distances: np.ndarray, limit: int) -> list[tuple[int, float]]:
    """The ``limit`` smallest ``distances`` with their row ids, smallest first, equal ones by row id."""
    if not len(row_ids) or limit <= 0:
        return []
    take = min(limit, len(distances))
    best = np.argpartition(distances, take - 1)[:take] if take < len(distances) else np.arange(len(distances))
    order = best[np.lexsort((row_ids[best], distances[best]))]
    return [(int(row_ids[i]), float(distances[i])) for i in order]


def unit_vectors(rows: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The ``_rowid`` (int64) and L2-normalized ``vector`` (float32; a zero vector stays zero) of ``rows``."""
    row_ids = np.asarray(rows.column("_rowid").to_numpy(), dtype=np.int64)
    column = rows.column("vector").combine_chunks()
    dim = column.type.list_size
    vectors = column.flatten().to_numpy(zero_copy_only=False).astype(np.float32).reshape(len(column), dim)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return row_ids, np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


async def _load(
    table: object,
    key: tuple[int, str],
    version: int,
    read: Callable[[], Awaitable[pa.Table]],
    refresh: Callable[[], Awaitable[_Set | None]] | None = None,
) -> _Set | None:
    """The set at ``version``: brought up to date by ``refresh()`` (``_refresh``) when there is one and it can
    be, else read whole by ``read()``; None (and remembered as refused) past ``MAX_ROWS``."""

    async def produce() -> _Set | None:
        kept = await refresh() if refresh is not None else _AGAIN
        if kept is _AGAIN:
            rows = await read()
            kept = _from_table(table, version, rows) if rows.num_rows <= MAX_ROWS else None
        if kept is not None:
            _SETS[key] = kept
            _SETS.move_to_end(key)
            _trim()
        else:
            _REFUSED[key] = (table, version)  # the table kept alive with it, so its id is not reused
            _REFUSED.move_to_end(key)
            while len(_REFUSED) > REFUSED_KEPT:
                _REFUSED.popitem(last=False)
        return kept

    return await once(_READING, (*key, version), produce)


_AGAIN = _Set(None, -1, np.empty(0, np.int64), (), np.empty(0, bool))  # a refresh that must read the set whole


async def _refresh(
    older: _Set,
    version: int,
    read_ids: Callable[[], Awaitable[np.ndarray]],
    take: Callable[[np.ndarray], Awaitable[pa.Table]],
) -> _Set | None:
    """``older`` at ``version``: the rows its filter no longer selects masked out, the new ones taken by row
    id as one more block. A row id is an address whose content never changes and is never reused, so the
    rows kept that are still selected are exactly right. ``_AGAIN`` when reading the set whole is cheaper or
    the table changed under the take; None past ``MAX_ROWS``."""
    ids = await read_ids()
    if len(ids) > MAX_ROWS:
        return None
    alive = older.alive & np.isin(older.row_ids, ids)
    new = ids[~np.isin(ids, older.row_ids[alive])]
    dead = len(alive) - int(alive.sum())
    if len(new) >= len(ids) // 2 + 1 or len(older.blocks) >= MAX_BLOCKS or dead > MAX_DEAD * (len(alive) + len(new)):
        return _AGAIN
    if not len(new):
        return _Set(older.table, version, older.row_ids, older.blocks, alive)
    rows = await take(new)
    if rows.num_rows != len(new):  # a row deleted between the two reads: the set anew
        return _AGAIN
    row_ids, unit = unit_vectors(rows)
    return _Set(
        older.table,
        version,
        np.concatenate([older.row_ids, row_ids]),
        (*older.blocks, unit),
        np.concatenate([alive, np.ones(len(row_ids), bool)]),
    )


def _from_table(table: object, version: int, rows: pa.Table) -> _Set:
    row_ids, unit = unit_vectors(rows)
    return _Set(table, version, row_ids, (unit,), np.ones(len(row_ids), bool))


def _trim() -> None:
    total = sum(s.size for s in _SETS.values())
    while total > MAX_VALUES and len(_SETS) > 1:
        _, dropped = _SETS.popitem(last=False)
        total -= dropped.size
