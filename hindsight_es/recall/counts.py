"""Counts of memories matching a filter, kept per version of the memories table.

Recall counts twice per query: the memories its full-text lists are scored over (``fulltext``) and the
other script's memories (none: no cross-script search). A count at one table version never changes,
since every write (append, update, delete, compaction) commits a new version, so each (store, version,
filter) is counted once and then read from here: a recall asks LanceDB for the table's version (one
check, about a third of a filtered count's CPU) instead of counting twice. A count and the searches
beside it may see versions a write apart, as they could when each was counted. Bounded by ``MAX_KEYS``.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Future

from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore

MAX_KEYS = 4096  # (store, version, filter) entries; past this the cache starts over
_COUNTS: dict[tuple[str, int, str], int] = {}


async def counted(store: LanceStore, where: MemoryFilter, version: Future[int | None]) -> int:
    """Memories matching ``where`` at the table version ``version`` gives (a ``store.search.version()``
    started once for the recall); LanceDB counts the first time a version is asked."""
    current = await asyncio.wrap_future(version)
    if current is None:
        return 0  # no table: nothing to count
    key = (str(store.path), current, where.sql())
    rows = _COUNTS.get(key)
    if rows is None:
        rows = await store.search.count_memories(where)
        if len(_COUNTS) >= MAX_KEYS:
            _COUNTS.clear()
        _COUNTS[key] = rows
    return rows
