"""What recall shows of a memory, kept in process and keyed by the row's Lance row id.

LanceDB answers a search in a few milliseconds, and reading columns back for its hits costs as much
again (a take per hit: ~3-4 ms for 75 hits on a 195k-row table). So searches return only row ids and
scores, and the rows come from here.

A row id's content never changes: without stable row ids (we do not enable them) a Lance row id is
the row's address (fragment, offset). An update writes the row anew under a new id and deletes the
old one, compaction moves rows to new fragments, and fragment ids are never reused within a table
(``tests/unit/test_row_cache.py`` checks this against the installed LanceDB). So every field, the ones
that change included (status, ``valid_to``, scope), is cached by row id and never goes stale; a search
only returns live row ids, and a row it no longer returns just ages out. Only rows a search returned
are read on the request path (one take of the missing ones per recall), so the first recall on a bank
of any size costs one take more than a warm one; a server also reads the active memories in the
background after start (``fill_in_background``) until the cache is full, never evicting for it. Memory
is bounded by ``MAX_ROWS`` whatever the banks' sizes.
One cache per ``LanceStore`` (a rebuilt generation gets a fresh one). Lookups hold a lock for dict
operations only, never across a read: concurrent recalls read their missing rows side by side."""

from __future__ import annotations

import logging
import math
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hindsight_es.recall.lexical import terms_row
from hindsight_es.stores import cards
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore

MAX_ROWS = 300_000  # about 1.2 KB each (~360 MB); the least recently used go first beyond this

QUIET_S = 0.2  # the background fill reads its next step only after this long without a recall
FILL_STEP = 500  # rows the background fill reads at a time
TERM_COLUMNS = ("search_text", "text")
TERM_ROWS = 100_000  # rows whose terms are kept (a few hundred bytes each; CJK rows keep their text)
_caches: weakref.WeakKeyDictionary[LanceStore, RowCache] = weakref.WeakKeyDictionary()
_term_caches: weakref.WeakKeyDictionary[LanceStore, RowCache] = weakref.WeakKeyDictionary()
_caches_lock = threading.Lock()
_last_read = -math.inf  # when a recall last read any cache (``RowCache.rows``): the background fill waits
log = logging.getLogger("hindsight.recall")


Read = Callable[[LanceStore, Sequence[int]], list[dict[str, Any]]]


def shown_rows(store: LanceStore, row_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The ``COLUMNS`` of the rows at ``row_ids``, from their cards (``stores.cards``: one column to decode
    instead of 17); deleted rows left out."""
    return store.search.start(cards.read(store.search.take, row_ids)).result()


def term_rows(store: LanceStore, row_ids: Sequence[int]) -> list[dict[str, Any]]:
    """The indexed terms of the rows at ``row_ids`` (``lexical.terms_row``); deleted rows left out."""
    table = store.search.start(store.search.take(row_ids, TERM_COLUMNS)).result()
    return [] if table is None else [terms_row(row) for row in table.to_pylist()]


class RowCache:
    """Rows by row id, as ``read`` reads them (each with its ``_rowid``)."""

    def __init__(self, store: LanceStore, max_rows: int = MAX_ROWS, *, read: Read = shown_rows) -> None:
        self.store, self.max_rows, self._read_rows = store, max_rows, read
        self._rows: dict[int, dict[str, Any]] = {}  # in order of last use
        self._lock = threading.Lock()

    def rows(self, row_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """The rows at these row ids (those deleted meanwhile are left out)."""
        global _last_read
        _last_read = time.monotonic()  # a recall is running: the background fill waits (``fill``)
        found: dict[int, dict[str, Any]] = {}
        missing = []
        with self._lock:
            for row_id in row_ids:
                row = self._rows.pop(row_id, None)
                if row is None:
                    missing.append(row_id)
                else:
                    found[row_id] = self._rows[row_id] = row
        if missing and (fetched := self._read_rows(self.store, missing)):
            with self._lock:
                self._put(fetched)
            found.update((row["_rowid"], row) for row in fetched)
        return found

    def fill(self, row_ids: Sequence[int]) -> int:
        """Read the rows at ``row_ids`` into the cache while it has room, ``FILL_STEP`` rows at a time,
        never evicting a row a recall read; the rows added. For ``fill_in_background``: the rows a search
        will return are then here, and a recall reads none (a take costs LanceDB ~1.4 ms for one row and
        ~3.6 ms for the ten a cold recall of a 10k bank misses). Each step waits until no recall has read
        a cache for ``QUIET_S``, and is one bounded take (a scan's stream reads ahead in LanceDB's threads
        between steps): the fill takes the gaps between requests, not a share of their time."""
        wanted = [r for r in row_ids if r not in self._rows]
        added = 0
        for start in range(0, len(wanted), FILL_STEP):
            if len(self._rows) >= self.max_rows:
                break
            while (wait := _last_read + QUIET_S - time.monotonic()) > 0:
                time.sleep(wait)
            rows = self._read_rows(self.store, wanted[start : start + FILL_STEP])
            if not rows:
                break
            with self._lock:
                for row in rows:
                    if len(self._rows) >= self.max_rows:
                        return added
                    if row["_rowid"] not in self._rows:
                        self._rows[row["_rowid"]] = row
                        added += 1
        return added

    def _put(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self._rows[row["_rowid"]] = row
        while len(self._rows) > self.max_rows:
            self._rows.pop(next(iter(self._rows)))

    def __len__(self) -> int:
        return len(self._rows)


def row_cache(store: LanceStore) -> RowCache:
    """The store's cache of what recall shows (``COLUMNS``)."""
    return _cache(_caches, store, lambda: RowCache(store))


def fill_in_background(store: LanceStore) -> threading.Thread:
    """Fill the store's row cache and term cache with its active memories (``RowCache.fill``) on a thread
    of its own, so neither start-up nor the first recall waits for it (a recall that comes first reads its
    own rows). About 9 ms of CPU per thousand rows for each cache."""

    def run() -> None:
        search = store.search
        try:  # one listing of the active memories for both caches; each stops at its own size
            row_ids = search.start(search.row_ids(MemoryFilter(), max(MAX_ROWS, TERM_ROWS))).result()
        except Exception as exc:  # a warm-up only: recalls read their rows themselves
            log.warning("row cache: the background read of %s stopped: %s", store.path, exc)
            return
        for name, cache in (("row", row_cache(store)), ("term", term_cache(store))):
            try:
                added = cache.fill(row_ids)
            except Exception as exc:  # a warm-up only: recalls read their rows themselves
                log.warning("%s cache: the background read of %s stopped: %s", name, store.path, exc)
                return
            if added:
                log.info("%s cache: %d active memories of %s read in the background", name, added, store.path)

    thread = threading.Thread(target=run, name="row-cache-fill", daemon=True)
    thread.start()
    return thread


def term_cache(store: LanceStore) -> RowCache:
    """The store's cache of the indexed terms of rows (``lexical.terms_row``), for the full-text lists
    scored over the bank's own statistics (``lexical``)."""
    return _cache(_term_caches, store, lambda: RowCache(store, TERM_ROWS, read=term_rows))


def _cache(
    caches: weakref.WeakKeyDictionary[LanceStore, RowCache], store: LanceStore, make: Callable[[], RowCache]
) -> RowCache:
    with _caches_lock:
        cache = caches.get(store)
        if cache is None:
            cache = caches[store] = make()
        return cache
