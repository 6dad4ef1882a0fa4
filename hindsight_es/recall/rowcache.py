"""What recall shows of a memory, kept in process: the fields a memory never changes once retained.

LanceDB answers each search in ~4 ms plus ~7 µs per row and column it reads back; on a 195k-row table
reading the 12 shown columns of 75 candidates cost more than the search. The projection only ever
changes a memory's status, links, ``valid_to``, scope and confidence (``memory.lifecycle.changes``):
its text, kind, speaker, session, turns, key, owner and ``valid_from`` are fixed by its id. So those
are cached by memory id (never stale, so never invalidated), and searches read back only the id and
the fields that change. A bank's active memories are loaded on its first recall when it is large; other
rows are read on first sight. One cache per ``LanceStore`` (a rebuilt generation gets a fresh one).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable

from hindsight_es.stores.lance import LanceStore, quote

FIXED = ("memory_id", "kind", "text", "source_turn_ids", "session_id", "speaker", "key", "valid_from", "owner")
LIVE = ("memory_id", "status", "valid_to", "scope")  # read with every search: these change
MAX_ROWS = 1_000_000  # about 0.5 KB each; the oldest go first beyond this
WARM_ROWS = 3_000  # banks with more rows than this are loaded whole on their first recall

_caches: weakref.WeakKeyDictionary[LanceStore, RowCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()


class RowCache:
    def __init__(self, store: LanceStore, max_rows: int = MAX_ROWS) -> None:
        self.store, self.max_rows = store, max_rows
        self._rows: dict[str, dict] = {}
        self._warm: set[str] = set()
        self._lock = threading.Lock()

    def warm(self, bank_id: str, bank_rows: int) -> None:
        """Load a large bank's active memories once (a few seconds per million rows)."""
        if bank_id in self._warm or bank_rows <= WARM_ROWS:
            return
        with self._lock:
            if bank_id in self._warm:
                return
            table = self.store.scan("memories", f"bank_id = {quote(bank_id)} AND status = 'active'", FIXED)
            self._put(table.to_pylist())
            self._warm.add(bank_id)

    def rows(self, ids: Iterable[str]) -> dict[str, dict]:
        """The fixed fields of these memories (those not in the table are left out)."""
        ids = list(ids)
        if missing := [i for i in ids if i not in self._rows]:
            found = self.store.rows_by_id("memories", "memory_id", missing, FIXED)
            if found is not None:
                self._put(found.to_pylist())
        return {i: row for i in ids if (row := self._rows.get(i)) is not None}

    def _put(self, rows: list[dict]) -> None:
        for row in rows:
            self._rows[row["memory_id"]] = row
        while len(self._rows) > self.max_rows:
            self._rows.pop(next(iter(self._rows)))

    def __len__(self) -> int:
        return len(self._rows)


def row_cache(store: LanceStore) -> RowCache:
    with _caches_lock:
        cache = _caches.get(store)
        if cache is None:
            cache = _caches[store] = RowCache(store)
        return cache
