"""What every client role shares: the settings, the log, the embedder, the current stores, time-outs.

Every store read runs in a thread of the connection's own pool (``settings.read_threads``) under
``settings.request_timeout_s``: the event loop's default executor also runs the pipeline's log appends,
projection writes and index builds in ``up``, and a recall must not queue behind those. A store that fails
(I/O, LanceDB, DuckDB, Arrow) or hangs is a ``StoreError``, a log that does a ``LogError``, so callers such
as the MCP gateway fail fast with a clear message and keep serving; any other exception is a bug and goes
up as it is (the HTTP API's 500 internal error, not a 503 that sends operators to their storage).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from hindsight_es.config import Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.errors import HindsightError, LogError, LogUnavailableError, StoreError
from hindsight_es.log import EventLog, open_log
from hindsight_es.stores import location
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.shards import open_hot

T = TypeVar("T")
POINTER_TTL_S = 1.0  # how stale a reader's view of the current generation may be after a rebuild switch
STORE_LIBRARIES = frozenset({"lancedb", "lance", "duckdb", "_duckdb", "pyarrow"})
START_GRACE_S = 3.0  # past the request time-out, before the log's start is given up without its own reason


@dataclass(frozen=True, slots=True)
class Stores:
    """The hot store and the archive of one generation, opened together."""

    lance: LanceStore
    archive: ArchiveStore


class Connection:
    """The log (started on first use) and the current generation's stores of one data directory."""

    def __init__(self, settings: Settings, *, log: EventLog | None = None, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self.log = log or open_log(settings)
        self._own_log = log is None
        self._log_started = log is not None  # a log passed in is started by its owner
        self._embedder = embedder
        self._opened: dict[str, tuple[Any, Any]] = {}  # store -> (its path, the store)
        self._paths: dict[str, Any] = {}  # store -> its path or s3:// URI
        self._checked_at = -float("inf")
        self._lock = threading.Lock()
        self._reads: ThreadPoolExecutor | None = None  # started on the first read

    async def start(self) -> None:
        """Start the log (again, after a failure: every write retries it). The log bounds its own start by
        the request time-out and says why it failed (the Kafka log: the broker's address and what answers
        there); the bound here, a little longer, is for a log that does not."""
        if self._log_started:
            return
        limit = self.settings.request_timeout_s
        try:
            await asyncio.wait_for(self.log.start(), limit + START_GRACE_S)
        except TimeoutError as exc:
            broker, path = self.settings.broker, self.settings.log_path
            where = f"the Kafka broker at {broker!r} did not answer" if broker else f"{path} did not open"
            raise LogUnavailableError(f"the log did not start within {limit:g}s: {where}") from exc
        self._log_started = True

    async def close(self) -> None:
        if self._reads is not None:
            self._reads.shutdown(wait=False, cancel_futures=True)
            self._reads = None
        if self._own_log:
            await self.log.close()
            self._log_started = False

    def embedder(self) -> Embedder:
        """The configured embedder (its models load on first use)."""
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedder)
        return self._embedder

    def lance(self) -> LanceStore:
        """The current generation's hot store (an older release's table gains the columns recall
        filters on when it is opened): a ``LanceStore``, or a ``ShardedLance`` (one store per
        partition) that reads the same way; ``for_bank`` gives the one holding a bank."""
        store: LanceStore = self._open("lance")
        return store

    def archive(self) -> ArchiveStore:
        """The current generation's archive."""
        store = self._open("archive")
        assert isinstance(store, ArchiveStore)
        return store

    def stores(self) -> Stores:
        return Stores(self.lance(), self.archive())

    def _open(self, name: str) -> Any:
        """A store of the current generation. The generation pointer is read at most every
        ``POINTER_TTL_S``; the store is opened again when the pointer names another directory."""
        with self._lock:
            now = time.monotonic()
            if not self._paths or now - self._checked_at >= POINTER_TTL_S:
                self._paths, self._checked_at = location.current(self.settings), now
            path = self._paths[name]
            opened = self._opened.get(name)
            if opened is None or opened[0] != path:
                store: Any
                if name == "lance":
                    store = open_hot(path, location.s3_options(self.settings))
                    if not self.settings.read_only:  # an older table read-only keeps its columns (filters may fail)
                        store.upgrade()
                else:
                    store = ArchiveStore(path, location.s3_options(self.settings))
                opened = self._opened[name] = (path, store)
            return opened[1]

    async def logged(self, call: Awaitable[T], timeout_s: float | None = None) -> T:
        """Await a log call under the request time-out (``timeout_s`` to override it)."""
        timeout = timeout_s or self.settings.request_timeout_s
        try:
            return await asyncio.wait_for(call, timeout)
        except TimeoutError as exc:
            raise LogError(f"the log did not answer within {timeout:g}s") from exc

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking store read in a thread, under the request time-out."""
        timeout = self.settings.request_timeout_s
        call = functools.partial(contextvars.copy_context().run, fn, *args)  # as to_thread: spans carry over
        try:
            return await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(self._pool(), call), timeout)
        except HindsightError:
            raise
        except TimeoutError as exc:
            raise StoreError(
                f"the stores in {location.root(self.settings)} did not answer within {timeout:g}s "
                "(HINDSIGHT_REQUEST_TIMEOUT_S)"
            ) from exc
        except Exception as exc:
            if not _from_store(exc):
                raise  # a bug in the read itself: the gateway's internal error, not "the stores are unavailable"
            raise StoreError(f"store read failed: {type(exc).__name__}: {exc}") from exc

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._reads is None:
                self._reads = ThreadPoolExecutor(self.settings.read_threads, thread_name_prefix="hindsight-read")
            return self._reads


def _from_store(exc: BaseException) -> bool:
    """Whether the store failed the read: an OS (I/O) error, or an error a store library raised (its own
    class, or raised from its code: LanceDB's Rust core raises plain ``ValueError``/``RuntimeError``)."""
    if isinstance(exc, OSError) or type(exc).__module__.partition(".")[0] in STORE_LIBRARIES:
        return True
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).partition(".")[0] in STORE_LIBRARIES
