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


@dataclass(frozen=True, slots=True)
class _Set:
    table: object  # the open table the rows were read from: alive as long as its key is
    version: int
    row_ids: np.ndarray  # int64
    unit: np.ndarray  # float32, one L2-normalized row per vector (a zero vector stays zero)


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
) -> list[tuple[int, float]] | None:
    """``(row id, cosine distance)`` of the ``limit`` nearest rows of ``table`` that the SQL filter ``where``
    selects, at ``version``; ``read()`` reads their ``_rowid`` and ``vector`` columns (at least ``MAX_ROWS``
    + 1 of them if there are that many) when they are not kept. None when there are more than ``MAX_ROWS``
    (search them in LanceDB)."""
    key = (id(table), where)
    if (refused := _REFUSED.get(key)) is not None and refused[0] is table and refused[1] == version:
        return None
    kept = _SETS.get(key)
    if kept is None or kept.version != version or kept.table is not table:
        kept = await _load(table, key, version, read)
        if kept is None:
            return None
    _SETS.move_to_end(key)
    return ranked(kept.row_ids, kept.unit, vector, limit)


def ranked(row_ids: np.ndarray, unit: np.ndarray, vector: Vector, limit: int) -> list[tuple[int, float]]:
    """``(row id, cosine distance)`` of the ``limit`` rows of ``unit`` (``unit_vectors``) nearest ``vector``,
    nearest first, equal distances by row id."""
    if not len(row_ids) or limit <= 0:
        return []
    query = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(query))
    distances = 1.0 - unit @ (query / norm if norm > 0 else query)
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
    table: object, key: tuple[int, str], version: int, read: Callable[[], Awaitable[pa.Table]]
) -> _Set | None:
    async def produce() -> _Set | None:
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


def _from_table(table: object, version: int, rows: pa.Table) -> _Set:
    return _Set(table, version, *unit_vectors(rows))


def _trim() -> None:
    total = sum(s.unit.size for s in _SETS.values())
    while total > MAX_VALUES and len(_SETS) > 1:
        _, dropped = _SETS.popitem(last=False)
        total -= dropped.unit.size
