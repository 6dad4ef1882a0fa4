"""Data keys for erasable units, behind ``KeyStore`` (where a KMS could sit), and the default store: a
SQLite file in the data directory.

A unit is ``turn:<turn_id>`` or ``memory:<memory_id>`` within a bank; each has its own random 256-bit
key, tagged with the session it belongs to (and, for a memory, the turns it came from), so erasing a
session, a turn or a memory is destroying a set of keys. A destroyed key leaves a tombstone (who, when,
why) and no key bytes: the file runs with ``secure_delete`` and no journal is left behind. A store opened
``read_only`` (a data directory this process may only read) looks keys up and refuses to create or destroy
any (``ReadOnlyError``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from hindsight_es.errors import ReadOnlyError
from hindsight_es.events import ErasureRequested
from hindsight_es.events.sealing import Erased
from hindsight_es.log.read_only import connect_read_only

__all__ = ["Destruction", "Erased", "KeyStore", "SqliteKeyStore", "UnitTags", "born_erased", "known", "tombstone"]


@dataclass(frozen=True, slots=True)
class UnitTags:
    session_id: str | None = None
    turn_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Destruction:
    """One erasure's keys to destroy, and who, why and when (default now) for their tombstone."""

    bank_id: str
    units: tuple[str, ...]
    by: str
    reason: str
    at: datetime | None = None

    @classmethod
    def of(cls, command: ErasureRequested) -> Destruction:
        """The keys an erase request names, with its actor, reason and time: what the erasing client destroys
        after recording it, and the bank actor again before deciding it (``log.sealed.shred``)."""
        return cls(command.bank_id, tuple(command.units), command.actor, command.reason, command.occurred_at)


def tombstone(by: str, reason: str, at: datetime | None) -> Erased:
    return Erased((at or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds"), by, reason)


class KeyStore(Protocol):
    def keys(self, bank_id: str, units: Mapping[str, UnitTags]) -> dict[str, bytes | Erased]:
        """Each unit's key, created (durably, before it is returned) where it has none yet."""

    def lookup(self, bank_id: str, units: Iterable[str]) -> dict[str, bytes | Erased]:
        """The units' keys or tombstones; a unit never keyed is absent."""

    def select(
        self, bank_id: str, *, session_id: str | None = None, turn_id: str | None = None, memory_id: str | None = None
    ) -> list[str]:
        """The units an erase of that scope covers (live ones only)."""

    def live(self, bank_id: str) -> dict[str, str | None]:
        """Every unit of the bank whose key is live (not destroyed), with the session it was keyed in (None
        when it was keyed outside one): what erasing the whole bank destroys."""

    def destroy(
        self, bank_id: str, units: Iterable[str], *, by: str, reason: str, at: datetime | None = None
    ) -> Erased:
        """Destroy the units' keys for good; returns the tombstone they now carry (erased ``at``, default now)."""

    def destroy_all(self, destructions: Sequence[Destruction]) -> list[Erased]:
        """``destroy`` each, together (a whole bank's erasures: one write of the store, not one each); their
        tombstones in order."""

    def generation(self) -> int:
        """Grows with every destroy: a reader holding keys in memory drops them when it changes."""

    def close(self) -> None:
        """Release the store (a later call opens it again)."""


def known(store: KeyStore, bank_id: str, units: Mapping[str, UnitTags]) -> tuple[dict[str, bytes | Erased], list[str]]:
    """What a key store's ``keys`` starts from: the units' keys or tombstones it holds, with the units born
    erased, and the units still to key."""
    found = store.lookup(bank_id, units)
    missing = {u: units[u] for u in units if u not in found}
    found.update(born_erased(store, bank_id, missing))
    return found, [u for u in missing if u not in found]


def born_erased(store: KeyStore, bank_id: str, units: Mapping[str, UnitTags]) -> dict[str, Erased]:
    """The units among ``units`` drawn from a turn already erased, with that turn's tombstone. A memory
    decided from an erased turn (a service still deciding that turn when the erase came) is born erased:
    its content is never sealed under a live key."""
    sources = {f"turn:{t}" for tags in units.values() for t in tags.turn_ids}
    if not sources:
        return {}
    gone = {u: k for u, k in store.lookup(bank_id, sources).items() if isinstance(k, Erased)}
    out: dict[str, Erased] = {}
    for u, tags in units.items():
        if (dead := next((gone[f"turn:{t}"] for t in tags.turn_ids if f"turn:{t}" in gone), None)) is not None:
            out[u] = dead
    return out


_SCHEMA = """
CREATE TABLE IF NOT EXISTS unit_keys (
  bank_id TEXT NOT NULL, unit TEXT NOT NULL, session_id TEXT, turn_ids TEXT NOT NULL DEFAULT '[]',
  key BLOB, erased_at TEXT, erased_by TEXT, erased_reason TEXT, PRIMARY KEY (bank_id, unit)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unit_keys_session ON unit_keys (bank_id, session_id);
CREATE TABLE IF NOT EXISTS erasures (generation INTEGER NOT NULL);
"""


class SqliteKeyStore:
    """Keys in ``keys.sqlite3`` beside the log; safe to share between the processes of one machine."""

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        self._lock = threading.Lock()
        self._opening = threading.Lock()
        self._con: sqlite3.Connection | None = None
        if read_only:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            if self._db.execute("SELECT count(*) FROM erasures").fetchone()[0] == 0:
                self._db.execute("INSERT INTO erasures VALUES (0)")
            self._db.execute("COMMIT")
        if os.name == "posix":
            os.chmod(path, 0o600)

    @property
    def _db(self) -> sqlite3.Connection:
        with self._opening:
            if self._con is None and self.read_only:
                self._con = self._reading()
            if self._con is None:
                con = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                con.execute("PRAGMA secure_delete=ON")  # freed pages are zeroed: a destroyed key leaves no bytes
                con.execute("PRAGMA journal_mode=DELETE")
                con.executescript(_SCHEMA)
                self._con = con
            return self._con

    def _reading(self) -> sqlite3.Connection:
        """The file opened read-only; with no file (a log sealed nothing yet), an empty store in memory."""
        if self.path.exists():
            return connect_read_only(self.path)
        con = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        con.executescript(_SCHEMA + "INSERT INTO erasures VALUES (0);")
        return con

    def keys(self, bank_id: str, units: Mapping[str, UnitTags]) -> dict[str, bytes | Erased]:
        found, missing = known(self, bank_id, units)
        if missing and self.read_only:
            raise ReadOnlyError(self.path.parent, f"create data keys in {self.path.name}")
        if missing:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.executemany(
                        "INSERT OR IGNORE INTO unit_keys (bank_id, unit, session_id, turn_ids, key) VALUES (?,?,?,?,?)",
                        [
                            (bank_id, u, units[u].session_id, json.dumps(list(units[u].turn_ids)), os.urandom(32))
                            for u in missing
                        ],
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
                    raise
            found.update(self.lookup(bank_id, missing))
        return found

    def lookup(self, bank_id: str, units: Iterable[str]) -> dict[str, bytes | Erased]:
        wanted = list(dict.fromkeys(units))
        out: dict[str, bytes | Erased] = {}
        with self._lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                rows = self._db.execute(
                    "SELECT unit, key, erased_at, erased_by, erased_reason FROM unit_keys "
                    f"WHERE bank_id = ? AND unit IN ({','.join('?' * len(chunk))})",
                    (bank_id, *chunk),
                ).fetchall()
                for unit, key, at, by, reason in rows:
                    out[unit] = bytes(key) if key is not None else Erased(at or "", by or "", reason or "")
        return out

    def select(
        self, bank_id: str, *, session_id: str | None = None, turn_id: str | None = None, memory_id: str | None = None
    ) -> list[str]:
        if memory_id is not None or turn_id is not None:
            with self._lock:
                rows = self._db.execute(
                    "SELECT unit, session_id, turn_ids FROM unit_keys WHERE bank_id = ? AND key IS NOT NULL",
                    (bank_id,),
                ).fetchall()
            if memory_id is not None:
                return [u for u, _, _ in rows if u == f"memory:{memory_id}"]
            return [u for u, _, t in rows if u == f"turn:{turn_id}" or turn_id in json.loads(t)]
        # A session's units, and those drawn from its turns; the rows read are the ones holding one of its turn
        # ids as written (``instr``), not the bank's (a whole bank's erase selects once a session)
        with self._lock:
            own = self._db.execute(
                "SELECT unit FROM unit_keys WHERE bank_id = ? AND session_id IS ? AND key IS NOT NULL",
                (bank_id, session_id),
            ).fetchall()
            turns = sorted({u.removeprefix("turn:") for (u,) in own if u.startswith("turn:")})
            rows = []
            for start in range(0, max(len(turns), 1), 200):
                chunk = turns[start : start + 200]
                drawn = "".join(" OR instr(turn_ids, ?) > 0" for _ in chunk)
                rows += self._db.execute(
                    "SELECT unit, session_id, turn_ids FROM unit_keys WHERE bank_id = ? AND key IS NOT NULL "
                    f"AND (session_id IS ?{drawn})",
                    (bank_id, session_id, *(json.dumps(t) for t in chunk)),
                ).fetchall()
        wanted = set(turns)
        found = {u for u, s, t in rows if s == session_id or wanted.intersection(json.loads(t))}
        return sorted(found)  # the table's order (its key is bank, unit)

    def live(self, bank_id: str) -> dict[str, str | None]:
        with self._lock:
            rows = self._db.execute(
                "SELECT unit, session_id FROM unit_keys WHERE bank_id = ? AND key IS NOT NULL ORDER BY unit", (bank_id,)
            ).fetchall()
        return {unit: session or None for unit, session in rows}

    def destroy(
        self, bank_id: str, units: Iterable[str], *, by: str, reason: str, at: datetime | None = None
    ) -> Erased:
        return self.destroy_all([Destruction(bank_id, tuple(units), by, reason, at)])[0]

    def destroy_all(self, destructions: Sequence[Destruction]) -> list[Erased]:
        if self.read_only:
            raise ReadOnlyError(self.path.parent, f"destroy data keys in {self.path.name}")
        tombs = [tombstone(d.by, d.reason, d.at) for d in destructions]
        rows = [(t.at, t.by, t.reason, d.bank_id, u) for d, t in zip(destructions, tombs, strict=True) for u in d.units]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.executemany(
                    "UPDATE unit_keys SET key = NULL, erased_at = ?, erased_by = ?, erased_reason = ? "
                    "WHERE bank_id = ? AND unit = ? AND key IS NOT NULL",
                    rows,
                )
                if cursor.rowcount <= 0:  # all destroyed before (the actor's shred after the client's): no change
                    self._db.execute("ROLLBACK")
                    return tombs
                self._db.execute("UPDATE erasures SET generation = generation + 1")
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("VACUUM")  # rewrites the file: no page keeps the old key bytes
        return tombs

    def generation(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT generation FROM erasures").fetchone()[0])

    def close(self) -> None:
        with self._lock, self._opening:
            if self._con is not None:
                self._con.close()
                self._con = None

    def __repr__(self) -> str:
        return f"SqliteKeyStore({str(self.path)!r})"
