"""Data keys as objects under ``<stores uri>/keys/`` (a ``keys.KeyStore`` for stores on object storage):
every worker and ``serve`` replica of a deployment, on any machine, shares them through the object store.

One object per unit, ``<bank>/unit/<unit>``, holds its key. It is created with a conditional put
(if-none-match), so processes racing to key one unit all use the first key written. Destroying a key
overwrites the object with its tombstone (who, when, why; no key bytes): a unit erased stays erased, and
a late writer's conditional put finds the tombstone instead of creating a fresh key. What an erase covers
is found by listing, not reading: empty index objects ``<bank>/session/<session>/<unit>`` and
``<bank>/turn/<turn>/<unit>`` (a memory's source turns), written before the key and removed after it is
destroyed. Every destroy rewrites ``erasures``, the generation that readers holding keys in memory watch
(read at most once per ``REFRESH_S``). Names are percent-encoded (``.`` included) path segments.

An object store that keeps versions keeps the old version of a key object, key bytes included, after
the destroy: the bucket must not version ``keys/``, or must expire non-current versions (operations.md).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TypeVar
from urllib.parse import quote, unquote

from hindsight_es.events.sealing import Erased
from hindsight_es.log.keys import Destruction, UnitTags, born_erased, tombstone
from hindsight_es.objects import ObjectStore

__all__ = ["REFRESH_S", "ObjectKeyStore"]

REFRESH_S = 1.0  # how stale another process's view of the erasure generation may be, at most
_THREADS = 64  # object requests in flight per call (a batch's keys are read or written concurrently)
_GENERATION = "erasures"

T = TypeVar("T")
R = TypeVar("R")


def _q(name: str) -> str:
    return quote(name, safe="").replace(".", "%2E")


class ObjectKeyStore:
    """Keys as objects of ``objects`` (``s3://…/keys``); safe to share between processes and machines."""

    def __init__(self, objects: ObjectStore) -> None:
        self.objects = objects
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._seen: tuple[float, int] | None = None  # (monotonic time read, generation)

    # ------------------------------------------------------------ KeyStore

    def keys(self, bank_id: str, units: Mapping[str, UnitTags]) -> dict[str, bytes | Erased]:
        # No read of the units first: the conditional put decides, and only a unit keyed (or erased) before
        # is read back. A new unit, nearly every one, costs its index objects and one put, not a GET more.
        found: dict[str, bytes | Erased] = dict(born_erased(self, bank_id, units))
        missing = [u for u in units if u not in found]
        # the index first: a key that exists is always found by the erase that covers it
        index = [name for u in missing for name in self._index_names(bank_id, u, units[u])]
        self._map(lambda name: self.objects.put(name, b""), index)

        def create(unit: str) -> bytes | None:
            key = os.urandom(32)
            body = json.dumps({"key": base64.b64encode(key).decode("ascii")}).encode()
            return key if self.objects.put_new(self._unit_name(bank_id, unit), body) else None

        created = dict(zip(missing, self._map(create, missing), strict=True))
        found.update({u: key for u, key in created.items() if key is not None})
        # keyed before (a redelivered decision, another process first) or erased: what the object holds
        found.update(self.lookup(bank_id, [u for u, key in created.items() if key is None]))
        return found

    def lookup(self, bank_id: str, units: Iterable[str]) -> dict[str, bytes | Erased]:
        wanted = list(dict.fromkeys(units))
        bodies = self._map(lambda u: self.objects.get(self._unit_name(bank_id, u)), wanted)
        return {u: _parsed(body) for u, body in zip(wanted, bodies, strict=True) if body is not None}

    def select(
        self, bank_id: str, *, session_id: str | None = None, turn_id: str | None = None, memory_id: str | None = None
    ) -> list[str]:
        if memory_id is not None:
            candidates = [f"memory:{memory_id}"]
        elif turn_id is not None:
            candidates = [f"turn:{turn_id}", *(u for _, u in self._listed(bank_id, f"turn/{_q(turn_id)}/"))]
        else:
            mine = [u for _, u in self._listed(bank_id, f"session/{_q(session_id or '')}/")]
            turns = {_q(u.removeprefix("turn:")) for u in mine if u.startswith("turn:")}
            derived = [u for name, u in self._listed(bank_id, "turn/") if name.split("/")[-2] in turns]
            candidates = [*mine, *derived]
        live = self.lookup(bank_id, candidates)
        return sorted(u for u, key in live.items() if isinstance(key, bytes))

    def live(self, bank_id: str) -> dict[str, str | None]:
        units = [unquote(name.rsplit("/", 1)[-1]) for name, _ in self.objects.list(f"{_q(bank_id)}/unit/")]
        keys = self.lookup(bank_id, units)
        sessions = {u: unquote(name.split("/")[1]) for name, u in self._listed(bank_id, "session/")}
        return {u: sessions.get(u) for u in sorted(units) if isinstance(keys.get(u), bytes)}

    def destroy(
        self, bank_id: str, units: Iterable[str], *, by: str, reason: str, at: datetime | None = None
    ) -> Erased:
        tomb = tombstone(by, reason, at)
        wanted = list(dict.fromkeys(units))
        before = self.lookup(bank_id, wanted)
        body = json.dumps({"erased": {"at": tomb.at, "by": tomb.by, "reason": tomb.reason}}).encode()
        live = [u for u in wanted if not isinstance(before.get(u), Erased)]  # a tombstone keeps its first words
        self._map(lambda u: self.objects.put(self._unit_name(bank_id, u), body), live)
        gone = set(wanted)
        stale = [name for name, u in self._listed(bank_id, "session/") + self._listed(bank_id, "turn/") if u in gone]
        self._map(self.objects.delete, [f"{_q(bank_id)}/{name}" for name in stale])
        # any value other than the last one read tells a reader to drop its keys (clocks need not agree)
        self.objects.put(_GENERATION, str(time.time_ns()).encode())
        with self._lock:
            self._seen = None
        return tomb

    def destroy_all(self, destructions: Sequence[Destruction]) -> list[Erased]:
        # one object a unit whichever way: nothing to gain from a batch but fewer generation bumps
        return [self.destroy(d.bank_id, d.units, by=d.by, reason=d.reason, at=d.at) for d in destructions]

    def generation(self) -> int:
        with self._lock:
            seen = self._seen
        if seen is not None and time.monotonic() - seen[0] < REFRESH_S:
            return seen[1]
        body = self.objects.get(_GENERATION)
        value = int(body) if body and body.strip().isdigit() else 0
        with self._lock:
            self._seen = (time.monotonic(), value)
        return value

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)

    def __repr__(self) -> str:
        return f"ObjectKeyStore({self.objects.uri!r})"

    # ------------------------------------------------------------ objects

    @staticmethod
    def _unit_name(bank_id: str, unit: str) -> str:
        return f"{_q(bank_id)}/unit/{_q(unit)}"

    @staticmethod
    def _index_names(bank_id: str, unit: str, tags: UnitTags) -> list[str]:
        names = [f"{_q(bank_id)}/session/{_q(tags.session_id)}/{_q(unit)}"] if tags.session_id else []
        return names + [f"{_q(bank_id)}/turn/{_q(t)}/{_q(unit)}" for t in dict.fromkeys(tags.turn_ids)]

    def _listed(self, bank_id: str, prefix: str) -> list[tuple[str, str]]:
        """(name under the bank, unit) of the index objects under ``prefix``."""
        bank = f"{_q(bank_id)}/"
        found = self.objects.list(bank + prefix)
        return [(name.removeprefix(bank), unquote(name.rsplit("/", 1)[-1])) for name, _ in found]

    def _map(self, fn: Callable[[T], R], items: list[T]) -> list[R]:
        if len(items) <= 1:
            return [fn(item) for item in items]
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(_THREADS, thread_name_prefix="hindsight-keys")
            pool = self._pool
        return list(pool.map(fn, items))


def _parsed(body: bytes) -> bytes | Erased:
    record = json.loads(body)
    if "key" in record:
        return base64.b64decode(record["key"])
    erased = record.get("erased") or {}
    return Erased(str(erased.get("at", "")), str(erased.get("by", "")), str(erased.get("reason", "")))
