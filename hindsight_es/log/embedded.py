"""Embedded event log: SQLite in WAL mode in the data directory, Kafka semantics.

Appends from several processes are serialised by SQLite's write lock; offsets are contiguous
per (topic, partition). A consumer group is owned by one process at a time through an advisory
file lock; a second member stands by (polls nothing) until the owner goes away, like a Kafka
rebalance with one active member. A log opened ``read_only`` (a data directory this process may only
read) answers reads and refuses appends and consumer groups with a ``ReadOnlyError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar, TypeVarTuple

from hindsight_es.errors import LogError, LogFullError, ReadOnlyError
from hindsight_es.health import HEALTH
from hindsight_es.log import compression
from hindsight_es.log.port import Record, TopicPartition, partition_for
from hindsight_es.log.port import record as new_record
from hindsight_es.log.read_only import connect_read_only

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
  topic TEXT NOT NULL, partition INTEGER NOT NULL, offset INTEGER NOT NULL,
  key TEXT, value BLOB NOT NULL, ts INTEGER NOT NULL,
  PRIMARY KEY (topic, partition, offset)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ends (
  topic TEXT NOT NULL, partition INTEGER NOT NULL, next_offset INTEGER NOT NULL,
  PRIMARY KEY (topic, partition));
CREATE TABLE IF NOT EXISTS group_offsets (
  grp TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, next_offset INTEGER NOT NULL,
  PRIMARY KEY (grp, topic, partition));
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

PAGE_SIZE = 16384
_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")
_Row = tuple[int, str | None, bytes, int]  # offset, key, value, ts


class EmbeddedLog:
    """Durable local log; safe to open from several processes on one machine."""

    def __init__(
        self, path: Path, partitions: int = 4, *, max_bytes: int | None = None, read_only: bool = False
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.max_bytes = max_bytes  # at the limit, writes fail as on a full disk (SQLITE_FULL)
        self._requested_partitions = partitions
        self._partitions = partitions
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._appends = 0  # appends by this process (``appended``)
        self._append_waiters: set[asyncio.Future[None]] = set()

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        if self.read_only:
            conn = connect_read_only(self.path)
            self._partitions = int(conn.execute("SELECT value FROM meta WHERE name='partitions'").fetchone()[0])
            self._conn = conn
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False, isolation_level=None)
        # Records (a memory event is 1-3 KB) spill into overflow pages of 4 KiB pages: the file held twice
        # their bytes; in 16 KiB pages it holds 1.17 times. Only a new file takes it (an old one keeps its own).
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        if self.max_bytes is not None:
            page = int(conn.execute("PRAGMA page_size").fetchone()[0])
            conn.execute(f"PRAGMA max_page_count={max(1, self.max_bytes // page)}")
        # The partition count is fixed when the log is created, as with a Kafka topic.
        conn.execute("INSERT OR IGNORE INTO meta VALUES ('partitions', ?)", (str(self._requested_partitions),))
        self._partitions = int(conn.execute("SELECT value FROM meta WHERE name='partitions'").fetchone()[0])
        self._conn = conn

    async def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise LogError(f"embedded log {self.path} is not started")
        return self._conn

    async def _run(self, fn: Callable[[*_Ts], _T], *args: *_Ts) -> _T:
        def locked() -> _T:
            with self._lock:
                return fn(*args)

        try:
            return await asyncio.to_thread(locked)
        except sqlite3.Error as exc:
            if exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_FULL:
                limit = f" (HINDSIGHT_LOG_MAX_BYTES={self.max_bytes})" if self.max_bytes is not None else ""
                error = LogFullError(f"embedded log {self.path}: {exc}{limit}")
                HEALTH.degrade("log", str(error))
                raise error from exc
            raise LogError(f"embedded log {self.path}: {exc}") from exc

    # ------------------------------------------------------------ writes

    async def append(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        if self.read_only:
            raise ReadOnlyError(self.path.parent, f"append to its log {self.path.name}")
        partition = partition_for(key, self._partitions)
        offsets = await self._run(self._append, topic, partition, key, list(values))
        HEALTH.recover("log")
        self._appends += 1
        for waiter in self._append_waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._append_waiters.clear()
        return offsets

    @property
    def appends(self) -> int:
        """How many appends this process has made: a mark for ``appended``."""
        return self._appends

    async def appended(self, seen: int, timeout: float) -> int:
        """``appends`` once it has passed ``seen``, or after ``timeout`` seconds. Only this process's appends
        wake it: one that waits for another process's records must still look again after the timeout."""
        if self._appends == seen:
            waiter = asyncio.get_running_loop().create_future()
            self._append_waiters.add(waiter)
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(waiter, timeout)
            finally:
                self._append_waiters.discard(waiter)
        return self._appends

    def _append(self, topic: str, partition: int, key: str, values: list[bytes]) -> list[int]:
        db = self._db()
        now = int(time.time() * 1000)
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT next_offset FROM ends WHERE topic=? AND partition=?", (topic, partition)
            ).fetchone()
            first = row[0] if row else 0
            db.executemany(
                "INSERT INTO records VALUES (?,?,?,?,?,?)",
                [(topic, partition, first + i, key, compression.pack(v), now) for i, v in enumerate(values)],
            )
            db.execute(
                "INSERT INTO ends VALUES (?,?,?) "
                "ON CONFLICT(topic, partition) DO UPDATE SET next_offset=excluded.next_offset",
                (topic, partition, first + len(values)),
            )
            db.execute("COMMIT")
        except BaseException:
            # SQLite has already rolled back after some errors (SQLITE_FULL, SQLITE_IOERR): a second
            # ROLLBACK would fail and hide the real error.
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return list(range(first, first + len(values)))

    # ------------------------------------------------------------ reads

    async def partitions(self, topic: str) -> int:
        return self._partitions

    async def end_offsets(self, topic: str) -> dict[int, int]:
        rows = await self._run(
            lambda: self._db().execute("SELECT partition, next_offset FROM ends WHERE topic=?", (topic,)).fetchall()
        )
        ends = {p: 0 for p in range(self._partitions)}
        ends.update(dict(rows))
        return ends

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        rows = await self._run(self._read, topic, partition, start, stop, limit)
        return [new_record(topic, partition, o, k, v, ts) for o, k, v, ts in rows]

    def _read(self, topic: str, partition: int, start: int, stop: int, limit: int) -> list[_Row]:
        rows = (
            self._db()
            .execute(
                "SELECT offset, key, value, ts FROM records WHERE topic=? AND partition=? AND offset>=? AND offset<?"
                " ORDER BY offset LIMIT ?",
                (topic, partition, start, stop, limit),
            )
            .fetchall()
        )
        return [(o, k, compression.unpack(v), ts) for o, k, v, ts in rows]

    def _read_from(self, wanted: list[tuple[str, int, int]], limit: int) -> list[Record]:
        """Up to ``limit`` records from each ``(topic, partition, start)`` in turn, in one call: a consumer's
        poll is one hop to a thread, not one per partition, and a partition with nothing past its start
        (by the ``ends`` its appends update in their transaction) is not read. At 20 turns/s the bank
        actor's polls read its 8 partitions one thread hop at a time: 16 hops a turn, most finding nothing."""
        db = self._db()
        topics = sorted({t for t, _, _ in wanted})
        marks = ",".join("?" * len(topics))
        ends = {
            (t, p): o
            for t, p, o in db.execute(
                f"SELECT topic, partition, next_offset FROM ends WHERE topic IN ({marks})", topics
            )
        }
        out: list[Record] = []
        for topic, partition, start in wanted:
            if len(out) >= limit:
                break
            if ends.get((topic, partition), 0) > start:
                rows = self._read(topic, partition, start, 2**62, limit - len(out))
                out.extend(Record(topic, partition, o, k, v, ts) for o, k, v, ts in rows)
        return out

    # ------------------------------------------------------------ groups

    async def consumer(self, group: str, topics: Sequence[str]) -> EmbeddedConsumer:
        if self.read_only:  # a member holds a lock file and commits positions: both are writes
            raise ReadOnlyError(self.path.parent, f"consume its log as group {group!r}")
        return EmbeddedConsumer(self, group, list(topics))

    def _committed(self, group: str) -> dict[TopicPartition, int]:
        rows = self._db().execute("SELECT topic, partition, next_offset FROM group_offsets WHERE grp=?", (group,))
        return {(t, p): o for t, p, o in rows}

    def _commit(self, group: str, offsets: dict[TopicPartition, int]) -> None:
        self._db().executemany(
            "INSERT INTO group_offsets VALUES (?,?,?,?) ON CONFLICT(grp, topic, partition)"
            " DO UPDATE SET next_offset=excluded.next_offset",
            [(group, t, p, o) for (t, p), o in offsets.items()],
        )


class EmbeddedConsumer:
    """The single active member of a group on this machine; positions start at the committed offsets."""

    def __init__(self, log: EmbeddedLog, group: str, topics: list[str]) -> None:
        self._log = log
        self.group = group
        self.topics = topics
        self._positions: dict[TopicPartition, int] | None = None
        lock_dir = log.path.parent / "locks"
        lock_dir.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(lock_dir / f"{group}.lock", "a+")  # noqa: SIM115 - held for the consumer's life
        self._owner = False
        self._turn = 0

    def _try_own(self) -> bool:
        if not self._owner:
            try:
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._owner = True
            except BlockingIOError:
                return False
        return True

    async def _load_positions(self) -> dict[TopicPartition, int]:
        if self._positions is None:
            committed = await self._log._run(self._log._committed, self.group)
            self._positions = {
                (t, p): committed.get((t, p), 0) for t in self.topics for p in range(self._log._partitions)
            }
        return self._positions

    async def poll(self, max_records: int = 500, timeout_ms: int = 200) -> list[Record]:
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            seen = self._log.appends  # before the fetch: an append during it ends the wait at once
            if self._try_own():
                records = await self._fetch(max_records)
                if records:
                    return records
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            # woken at once by appends from this process, else re-check other processes' appends
            await self._log.appended(seen, min(remaining, 0.05))

    async def _fetch(self, max_records: int) -> list[Record]:
        positions = await self._load_positions()
        order = list(positions)
        self._turn = (self._turn + 1) % len(order)  # rotate so a busy partition cannot starve the others
        wanted = [(t, p, positions[(t, p)]) for t, p in order[self._turn :] + order[: self._turn]]
        out = await self._log._run(self._log._read_from, wanted, max_records)
        for record in out:
            positions[(record.topic, record.partition)] = record.offset + 1
        return out

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        if offsets:
            await self._log._run(self._log._commit, self.group, dict(offsets))

    async def committed(self, topic: str, partition: int) -> int | None:
        return (await self._log._run(self._log._committed, self.group)).get((topic, partition))

    async def close(self) -> None:
        if self._owner:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
            self._owner = False
        self._lock_file.close()
