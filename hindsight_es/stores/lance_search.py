"""Searches of the ``memories`` table that read back nothing but row ids and scores.

Reading columns back costs LanceDB a take of each hit, as much as the search itself; recall gets the
rows from its row cache instead (``hindsight_es.recall.rowcache``). The searches are coroutines on
LanceDB's own event loop, over the async table behind the sync one (the same dataset, caches and read
consistency): LanceDB's sync query API makes several round trips to that loop and schema reads per
query, and ``start`` runs several searches at once without a Python thread for each.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any, TypeVar

import lancedb
import numpy as np
import pyarrow as pa
from lancedb.background_loop import LOOP
from lancedb.table import AsyncTable

from hindsight_es.errors import StoreError
from hindsight_es.stores import exact
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.tail import Tail, merged, tail
from hindsight_es.types import Vector

T = TypeVar("T")
log = logging.getLogger("hindsight.stores")
# LanceDB's IVF_SQ index with the cosine distance answers with the squared L2 distance of the normalized
# vectors, 2 (1 - cos), when it searches the index alone, and with 1 - cos when unindexed rows are searched
# beside it (it then re-reads the candidates' vectors): the same row's distance halved as soon as one row
# was committed after the last maintenance pass. Recall reads 1 - distance as a cosine (its relevance).
# ``tests/unit/test_tail.py`` checks the factor against the installed LanceDB.
INDEX_DISTANCE_SCALE = 2.0
OVERFLOW_DECAY = 0.9  # weight of the past in ``Searches._overflows``: about the last ten searches count


class Searches:
    """The row-id searches of one store's ``memories`` table."""

    def __init__(self, memories: Callable[[], Any | None], opened: Callable[[], bool]) -> None:
        self._table, self._opened = memories, opened  # the sync table (opened on call), and whether it is
        # By column, how often lately a full-text search matched more rows than it asked for, so that the
        # rows no index covers had to be searched by LanceDB after all (``text_search``): past one in two, the
        # search goes to LanceDB at once. Either way gives the same list; only the cost differs.
        self._overflows: dict[str, float] = {}

    def start(self, search: Coroutine[Any, Any, T]) -> Future[T]:
        """Run one of the search coroutines below on LanceDB's event loop; its result is the future's."""
        return asyncio.run_coroutine_threadsafe(search, LOOP.loop)

    def vector_search(
        self,
        vector: Vector,
        where: MemoryFilter,
        limit: int,
        *,
        nprobes: int | None = None,
        version: Future[int | None] | None = None,
    ) -> Coroutine[Any, Any, list[tuple[int, float]]]:
        """``(row id, cosine distance)`` of the nearest memories: with ``nprobes`` that many IVF partitions,
        else every matching row (exact; see ``ivf_nprobes``). A filter applies before the search. An exact
        search reads the table's version, or takes ``version`` (a ``version()`` the caller started: one
        check for all of a recall's searches, a request each on object storage)."""
        table = self._memories()  # opened here, not on the loop (opening waits on the loop)

        async def search() -> list[tuple[int, float]]:
            if table is None:
                return []
            if nprobes is None and where.within is None:  # exact: from the vectors kept in process
                at = await asyncio.wrap_future(version) if version is not None else None
                at = int(await table.version()) if at is None else at
                kept = await exact.nearest(
                    table,
                    where.sql(),
                    at,
                    partial(_vectors, table, where),
                    vector,
                    limit,
                    read_ids=partial(_row_ids, table, where),
                    take=partial(_taken_vectors, table),
                )
                if kept is not None:
                    return kept
            query = table.query().nearest_to(vector).column("vector").distance_type("cosine").where(where.sql())
            query = query.bypass_vector_index() if nprobes is None else query.nprobes(nprobes)
            uncovered = None if nprobes is None else await self._tail(table, where, version)
            if uncovered is not None:
                query = query.fast_search()  # the index's rows; the rows it does not cover are searched here
            hits = _pairs(await query.with_row_id().select(["_distance"]).limit(limit).to_arrow(), "_distance")
            if uncovered is None:
                return hits
            indexed = [(row_id, distance / INDEX_DISTANCE_SCALE) for row_id, distance in hits]
            return merged(indexed, uncovered.nearest(vector, limit), limit)

        return search()

    def text_search(
        self,
        query: str,
        column: str,
        where: MemoryFilter,
        limit: int,
        *,
        holds: Callable[[str], bool] | None = None,
        version: Future[int | None] | None = None,
    ) -> Coroutine[Any, Any, list[tuple[int, float]]]:
        """``(row id, BM25 score)`` of the best full-text matches in ``column``; the filter applies first.

        With ``holds`` (whether a text holds a term of ``query`` in ``column``'s tokenization), the rows no
        index covers yet are matched here (``tail``) when all the matches fit in ``limit``; those come with
        score 0, to be scored by the caller (``recall.fulltext`` rescores every such list). ``version`` as
        for ``vector_search``."""
        table = self._memories()

        async def search() -> list[tuple[int, float]]:
            if table is None or not query.strip():
                return []

            def found() -> Any:  # a query anew each time: LanceDB's builders change in place
                built = table.query().nearest_to_text(query, columns=column).where(where.sql())
                return built.with_row_id().select(["_score"]).limit(limit)

            likely = self._overflows.get(column, 0.0) < 0.5
            uncovered = None if holds is None or not likely else await self._tail(table, where, version)
            if uncovered is not None and holds is not None and len(uncovered.row_ids):
                hits = _pairs(await found().fast_search().to_arrow(), "_score")
                seen = {row_id for row_id, _ in hits}
                more = [(row_id, 0.0) for row_id in uncovered.holding(column, holds) if row_id not in seen]
                if not self._overflowed(column, len(hits) + len(more) >= limit):
                    return hits + more
                # More matches than ``limit``: only LanceDB can score the uncovered rows beside the others.
            hits = _pairs(await found().to_arrow(), "_score")
            if holds is not None and uncovered is None:
                self._overflowed(column, len(hits) >= limit)
            return hits

        return search()

    def count_memories(self, where: MemoryFilter) -> Coroutine[Any, Any, int]:
        """Memories matching ``where``, as a coroutine for ``start``."""
        table = self._memories()

        async def count() -> int:
            return 0 if table is None else int(await table.count_rows(where.sql()))

        return count()

    def version(self) -> Coroutine[Any, Any, int | None]:
        """The memories table's latest version (None without a table), as a coroutine for ``start``."""
        table = self._memories()

        async def version() -> int | None:
            return None if table is None else int(await table.version())

        return version()

    def take(self, row_ids: Sequence[int], columns: Sequence[str]) -> Coroutine[Any, Any, pa.Table | None]:
        """The rows at these Lance row ids, with ``_rowid`` (deleted ones are left out); None without a table."""
        table = self._memories()

        async def take() -> pa.Table | None:
            if table is None or not row_ids:
                return None
            return await table.take_row_ids(list(row_ids)).with_row_id().select(list(columns)).to_arrow()

        return take()

    def row_ids(self, where: MemoryFilter, limit: int) -> Coroutine[Any, Any, list[int]]:
        """The row ids of the rows ``where`` selects, at most ``limit``, in the table's order."""
        table = self._memories()

        async def row_ids() -> list[int]:
            if table is None:
                return []
            found = await table.query().where(where.sql()).with_row_id().select(["memory_id"]).limit(limit).to_arrow()
            return list(found.column("_rowid").to_pylist())

        return row_ids()

    def _overflowed(self, column: str, overflowed: bool) -> bool:
        self._overflows[column] = OVERFLOW_DECAY * self._overflows.get(column, 0.0) + (1 - OVERFLOW_DECAY) * overflowed
        return overflowed

    async def _tail(self, table: AsyncTable, where: MemoryFilter, version: Future[int | None] | None) -> Tail | None:
        """The rows no search index covers at the table's version (``tail``), or None: search them in LanceDB."""
        at = await asyncio.wrap_future(version) if version is not None else None
        at = int(await table.version()) if at is None else at
        try:
            return await tail(self._table(), table, where.sql(), at)
        except Exception:  # e.g. that version cleaned up meanwhile: LanceDB searches those rows, as it always could
            log.warning("reading the rows no index covers failed; LanceDB searches them", exc_info=True)
            return None

    def _memories(self) -> AsyncTable | None:
        if threading.current_thread() is LOOP.thread and not self._opened():
            # Opening a table waits on LanceDB's loop: from the loop itself it would never return.
            raise StoreError("the memories table must be opened (LanceStore.table) before searching from the loop")
        table = self._table()
        if table is None:
            return None
        inner = getattr(table, "_table", None)  # LanceTable keeps its AsyncTable here (lancedb 0.40)
        if not isinstance(inner, AsyncTable):
            raise StoreError(f"this LanceDB ({lancedb.__version__}) keeps no async table behind a sync one")
        return inner


async def _vectors(table: AsyncTable, where: MemoryFilter) -> pa.Table:
    """``_rowid`` and ``vector`` of the rows ``where`` selects, up to one more than ``exact`` keeps."""
    query = table.query().where(where.sql()).with_row_id().select(["vector"]).limit(exact.MAX_ROWS + 1)
    return await query.to_arrow()


async def _row_ids(table: AsyncTable, where: MemoryFilter) -> np.ndarray:
    """The ``_rowid`` of the rows ``where`` selects, up to one more than ``exact`` keeps (no other column read)."""
    found = await table.query().where(where.sql()).with_row_id().select([]).limit(exact.MAX_ROWS + 1).to_arrow()
    return np.asarray(found.column("_rowid").to_numpy(), dtype=np.int64)


async def _taken_vectors(table: AsyncTable, row_ids: np.ndarray) -> pa.Table:
    """``_rowid`` and ``vector`` of the rows at ``row_ids`` (a deleted one is left out)."""
    return await table.take_row_ids([int(r) for r in row_ids]).with_row_id().select(["vector"]).to_arrow()


def _pairs(found: pa.Table, score: str) -> list[tuple[int, float]]:
    return list(zip(found.column("_rowid").to_pylist(), found.column(score).to_pylist(), strict=True))
