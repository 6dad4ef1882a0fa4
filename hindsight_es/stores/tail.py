"""The rows of the memories table that its search indexes do not cover yet, searched in process.

Under a steady stream the vectors projection commits a few small fragments a second, and its maintenance
pass folds them into the indexes every few seconds; in between, LanceDB searches the rows no index covers
by a flat scan planned beside every index search. That plan costs more than the rows it scans: on the
10k layout of ``bench recall`` (19,237 rows), 50 rows in one new fragment raised a vector search's CPU
from 2.1 to 4.9 ms and a full-text search's from 2.1 to 3.5 ms (in eleven fragments: 6.0 and 4.9 ms),
while the same searches told to skip them (LanceDB's ``fast_search``) cost what they cost on the
maintained table (2.1 and 2.2 ms). A recall beside 20 turns/s cost 20.2 ms of CPU against 11.6 ms on a
still copy of the same layout read beside the same ingest.

So the searches (``lance_search.Searches``) ask LanceDB for the covered rows only and search this tail
here: the rows of the fragments not covered by every search index, under the recall's filter, are read
once per table version and filter (a few hundred rows between passes) and kept; a vector search ranks them
by exact cosine distance, as LanceDB's flat scan does, and a full-text search takes the ones holding a term
of the query (in the index's own tokenization, which the caller gives), leaving their scores to the caller
(``recall.fulltext`` scores every row of a full-text list of up to ``EXACT_MATCHES`` rows itself). A tail of
more than ``MAX_ROWS`` (a backlog no pass has indexed yet) is left to LanceDB, as before.

A row id is a row's address and its content never changes (an update writes a new row), so a tail read at
one version and a search run at a later one can only disagree on rows moved or deleted in between, which
the row cache no longer finds: recall searches again (``recall.search``), as it does for any compaction.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from hindsight_es.stores.exact import ranked, unit_vectors
from hindsight_es.stores.once import once
from hindsight_es.types import Vector

MAX_ROWS = 2_000  # uncovered rows searched here; past this LanceDB scans them (a backlog, not a stream)
KEPT = 8  # tails kept (per table and filter, at one version each): a recall uses one or two filters
INDEXES = frozenset({"vector_idx", "search_text_idx", "text_ngram_idx"})
TEXTS = ("search_text", "text_ngram")


@dataclass(frozen=True, slots=True)
class Tail:
    """The uncovered rows one filter selects at one version."""

    table: object  # the open table it was read for: alive as long as its key is, so its id is not reused
    version: int
    row_ids: np.ndarray  # int64
    unit: np.ndarray  # float32, L2-normalized vectors
    texts: dict[str, list[str]]  # the full-text columns, by name

    def nearest(self, vector: Vector, limit: int) -> list[tuple[int, float]]:
        """``(row id, cosine distance)`` of the ``limit`` nearest, nearest first."""
        return ranked(self.row_ids, self.unit, vector, limit)

    def holding(self, column: str, holds: Callable[[str], bool]) -> list[int]:
        """Row ids of the rows whose ``column`` text ``holds`` a term of the query."""
        return [int(r) for r, text in zip(self.row_ids, self.texts[column], strict=True) if text and holds(text)]


_TAILS: OrderedDict[tuple[int, str], Tail] = OrderedDict()
_READING: dict[Hashable, asyncio.Future[Tail | None]] = {}


async def tail(sync_table: Any, table: object, where: str, version: int) -> Tail | None:
    """The tail of ``table`` (an async table; ``sync_table`` the LanceDB table behind which it is) that the SQL
    filter ``where`` selects at ``version``; None when more than ``MAX_ROWS`` rows are uncovered. Runs on
    LanceDB's event loop, like the searches; the read itself in a thread (it waits on that loop)."""
    key = (id(table), where)
    kept = _TAILS.get(key)
    if kept is not None and kept.version == version and kept.table is table:
        _TAILS.move_to_end(key)
        return kept

    async def produce() -> Tail | None:
        rows = await asyncio.to_thread(read, sync_table, where, version)
        found = None if rows is None else Tail(table, version, *unit_vectors(rows), _texts(rows))
        if found is not None:
            _TAILS[key] = found
            _TAILS.move_to_end(key)
            while len(_TAILS) > KEPT:
                _TAILS.popitem(last=False)
        return found

    return await once(_READING, (*key, version), produce)


def read(sync_table: Any, where: str, version: int) -> pa.Table | None:
    """``_rowid``, ``vector`` and the full-text columns of the uncovered rows ``where`` selects at
    ``version``; None when their fragments hold more than ``MAX_ROWS`` rows."""
    dataset = sync_table.to_lance()
    if dataset.version != version:
        dataset = dataset.checkout_version(version)
    fragments = uncovered(dataset)
    if sum(f.metadata.physical_rows - f.metadata.num_deletions for f in fragments) > MAX_ROWS:
        return None
    columns = ["vector", *TEXTS]
    if not fragments:  # (an empty list would be read as "every fragment")
        empty = {column: pa.array([], dataset.schema.field(column).type) for column in columns}
        return pa.table({"_rowid": pa.array([], pa.uint64()), **empty})
    scanner = dataset.scanner(columns=columns, filter=where or None, fragments=fragments, with_row_id=True)
    return scanner.to_table()


def uncovered(dataset: Any) -> list[Any]:
    """The fragments of a Lance dataset that one of its search indexes (``INDEXES``) does not cover."""
    covered: set[int] | None = None
    for index in dataset.describe_indices():
        if index.name in INDEXES:
            held = {int(f) for segment in index.segments for f in segment.fragment_ids}
            covered = held if covered is None else covered & held
    return [f for f in dataset.get_fragments() if covered is None or f.fragment_id not in covered]


def merged(
    first: Sequence[tuple[int, float]], second: Sequence[tuple[int, float]], limit: int
) -> list[tuple[int, float]]:
    """Two ``(row id, distance)`` lists as one, nearest first, each row once (its nearer distance)."""
    best: dict[int, float] = {}
    for row_id, distance in (*first, *second):
        if row_id not in best or distance < best[row_id]:
            best[row_id] = distance
    return sorted(best.items(), key=lambda hit: (hit[1], hit[0]))[:limit]


def _texts(rows: pa.Table) -> dict[str, list[str]]:
    return {column: [t or "" for t in rows.column(column).to_pylist()] for column in TEXTS}
