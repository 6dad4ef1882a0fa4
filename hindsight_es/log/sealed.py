"""Personal content sealed in the log: AES-GCM per erasable unit, opened on every read.

``SealedLog`` wraps any ``EventLog``: on append, the personal fields of an event (a turn's text, speaker
and metadata; a memory's text, key, value, entities, context and vector; extracted candidates; a
correction's text) move into ``"sealed": {"unit", "n", "c"}``, compressed and encrypted with the unit's
data key (``boxes``, ``keys.KeyStore``), the event's id and bank as associated data. On read they come
back, so everything that decodes events sees plaintext while the key exists; once it is destroyed, the
fields read as an erased placeholder naming who erased them and when (a vector as zeros of its
dimension). Records without ``"sealed"`` (a log from before sealing) pass through unchanged.

A unit whose key is missing, with no tombstone either, was sealed under another key store: writers
create a unit's key durably before they append it. What decides or projects (``deciding``: the actors
and projections of ``worker`` and ``up``) refuses such a record (``MissingKeyError``) instead of acting
on a placeholder; a read-only view (audit, export) reads it as erased, with a warning.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
import struct
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import Any

from hindsight_es.errors import LogError
from hindsight_es.events import ErasureRequested, Event, vectors
from hindsight_es.events.sealing import FIELDS, KIND, MARK, TURN_FIELDS, Erased, blank, sealed_objects
from hindsight_es.log import boxes as boxes_
from hindsight_es.log.keys import Destruction, KeyStore, UnitTags
from hindsight_es.log.port import Consumer, EventLog, Record, TopicPartition
from hindsight_es.log.port import record as new_record
from hindsight_es.log.seal_plans import Plan
from hindsight_es.log.seal_plans import plan as plan_of

log_ = logging.getLogger("hindsight.sealed")

__all__ = ["MissingKeyError", "SealedLog", "Sealer", "deciding"]

Json = dict[str, Any]
_CACHE_MAX = 500_000  # keys held in memory (about 100 B each); past it the cache starts again
_ERASURES = (b'"type":"ErasureRequested"', b'"type":"ContentErased"')


class MissingKeyError(LogError):
    """A sealed record whose unit this process's key store neither keys nor remembers erasing: the key
    store is not the one the writers use, so acting on the record would act on a blank."""

    def __init__(self, unit: str, bank: str, keys: KeyStore) -> None:
        super().__init__(
            f"no key and no tombstone for {unit} of bank {bank} in {keys}: this key store is not the one the "
            "log's writers use (a different HINDSIGHT_STORES_URI or data directory than the other workers "
            "and serve?). Nothing of this batch was decided, projected or committed; start every worker "
            "with the same HINDSIGHT_STORES_URI (keys under <stores>/keys) or the same data directory"
        )


class Sealer:
    """Seals and opens event records (JSON objects) with the keys of one ``KeyStore``."""

    def __init__(self, keys: KeyStore) -> None:
        self.keys = keys
        self._cache: dict[tuple[str, str], bytes | Erased] = {}
        self._missing: set[tuple[str, str]] = set()
        self._generation = keys.generation()

    # ------------------------------------------------------------ sealing

    def seal(self, value: bytes) -> bytes:
        return self.seal_all([value])[0]

    def seal_all(self, values: Sequence[bytes]) -> list[bytes]:
        """The values sealed; the keys they need are created in one key-store write."""
        self._refresh()  # a unit erased by another process since is never sealed under its old key
        parsed = [_parsed(v) for v in values]
        wanted: dict[str, dict[str, UnitTags]] = {}
        for item in parsed:
            if item is not None:
                for _, unit, tags, _ in item[1]:
                    wanted.setdefault(str(item[0].get("bank_id", "")), {})[unit] = tags
        keys = {bank: self._keys(bank, units) for bank, units in wanted.items()}
        return [value if item is None else _sealed(item, keys) for value, item in zip(values, parsed, strict=True)]

    # ------------------------------------------------------------ opening

    def open(self, records: Sequence[Record], *, strict: bool = False) -> list[Record]:
        """The records with their sealed content opened (or blanked, see the module docstring); ``strict``:
        a unit with neither key nor tombstone raises ``MissingKeyError`` instead of reading as erased.

        A record as ``seal_all`` writes it is opened in its bytes: each box is replaced by its decrypted
        fields, nothing else is parsed or re-serialized (``_spliced``); the decrypted fields are the ones
        the box took, so it decodes to the same event as the parsed and re-serialized record the other
        path gives. Any other shape, a failed decryption or a destroyed key takes that path.
        """
        self._forget_erased(records)
        if not any(MARK in r.value for r in records):
            return list(records)
        self._refresh()
        # One sealer may serve several threads: the cache is replaced, never cleared, so this batch reads
        # the keys it found or fetched (``keys``: this batch's, copied from the cache or fetched) even if
        # another thread starts a new cache meanwhile.
        keys: dict[tuple[str, str], bytes | Erased] = {}
        cache = self._cache
        boxed: dict[int, _Boxes] = {}
        parsed: dict[int, Json] = {}
        wanted: dict[str, set[str]] = {}
        for i, r in enumerate(records):
            if MARK not in r.value:
                continue
            if (boxes := _boxes(r.value)) is not None:
                boxed[i] = boxes
                for box in boxes[2]:
                    if (unit_key := (boxes[0], box[1].decode("utf-8"))) not in keys:
                        if (key := cache.get(unit_key)) is not None:
                            keys[unit_key] = key
                        else:
                            wanted.setdefault(unit_key[0], set()).add(unit_key[1])
            elif isinstance(record := _json(r.value), dict):
                parsed[i] = record
                self._want(record, wanted, keys)
        self._fetch(wanted, keys)  # one key-store read per bank for the whole batch
        out = list(records)
        for i, boxes in boxed.items():
            if (value := self._spliced(records[i].value, boxes, keys)) is not None:
                r = records[i]
                out[i] = new_record(r.topic, r.partition, r.offset, r.key, value, r.timestamp_ms)
            elif isinstance(record := _json(records[i].value), dict):
                parsed[i] = record
        if late := {i: self._want(record, {}, keys) for i, record in parsed.items() if i in boxed}:
            # keys a splice did not look up
            self._fetch({b: u for w in late.values() for b, u in w.items()}, keys)
        for i, record in parsed.items():
            out[i] = replace(records[i], value=self._opened(record, keys, strict))
        return out

    def _want(
        self, record: Json, wanted: dict[str, set[str]], keys: dict[tuple[str, str], bytes | Erased]
    ) -> dict[str, set[str]]:
        """``wanted`` with the units of ``record`` whose keys are neither in ``keys`` nor cached (cached
        ones are copied into ``keys``)."""
        bank = str(record.get("bank_id", ""))
        for target in sealed_objects(record):
            unit_key = (bank, str(target["sealed"].get("unit")))
            if unit_key in keys:
                continue
            if (key := self._cache.get(unit_key)) is not None:
                keys[unit_key] = key
            else:
                wanted.setdefault(bank, set()).add(unit_key[1])
        return wanted

    def _spliced(self, value: bytes, boxes: _Boxes, keys: Keys) -> bytes | None:
        """``value`` with every box replaced by its decrypted fields; None where one does not open."""
        bank, aad, found = boxes
        parts: list[bytes] = []
        at = 0
        for start, unit, nonce, sealed, end in found:
            key = keys.get((bank, unit.decode("utf-8")))
            if not isinstance(key, bytes):
                return None
            if (plain := boxes_.open_box(key, nonce, sealed, aad)) is None:
                return None
            if len(plain) < 3 or plain[:1] != b"{" or plain[-1:] != b"}":  # no fields: the comma would dangle
                return None
            parts += [value[at:start], plain[1:-1]]
            at = end
        parts.append(value[at:])
        return b"".join(parts)

    def open_value(self, value: bytes) -> bytes:
        return self.open([Record("", 0, 0, None, value, 0)])[0].value

    def _opened(self, record: Json, keys: Keys, strict: bool = False) -> bytes:
        bank, aad = str(record.get("bank_id", "")), _aad(record)
        for target in sealed_objects(record):
            box = target.pop("sealed")
            key = keys.get((bank, str(box.get("unit"))))
            fields = FIELDS.get(str(box.get("f")), TURN_FIELDS)
            plain = boxes_.open_box(key, box["n"], box["c"], aad) if isinstance(key, bytes) else None
            opened = _json(plain) if plain is not None else None  # None: tampered or foreign, as if erased
            if isinstance(opened, dict):
                target.update(opened)
            else:
                if key is None and strict:
                    raise MissingKeyError(str(box.get("unit")), bank, self.keys)
                if key is None and (bank, unit := str(box.get("unit"))) not in self._missing:
                    self._missing.add((bank, unit))  # a key store that is not the writers' (see docs/operations.md)
                    log_.warning("no key for %s of bank %s in %s: it reads as erased", unit, bank, self.keys)
                _blank(target, fields, key, {}, int(box.get("dim", 0)))
        return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def _fetch(self, wanted: dict[str, set[str]], into: MutableMapping[tuple[str, str], bytes | Erased]) -> None:
        if len(self._cache) > _CACHE_MAX:
            self._cache = {}
        for bank, units in wanted.items():
            for unit, key in self.keys.lookup(bank, sorted(units)).items():
                self._cache[(bank, unit)] = into[(bank, unit)] = key

    # ------------------------------------------------------------ keys

    def close(self) -> None:
        self.keys.close()

    def forget_cached(self) -> None:
        self._cache = {}
        self._generation = self.keys.generation()

    def _forget_erased(self, records: Sequence[Record]) -> None:
        """An erasure read from the log drops the cached keys of its bank before anything after it is
        opened: every reader of the topic holding it sees the erase at once, whatever the key store's
        generation says yet (an object store's is read at most once a second)."""
        erasure, erased = _ERASURES  # two ``in`` tests, not a generator per record (a rebuild reads millions)
        banks = {
            str(record.get("bank_id", ""))
            for r in records
            if (erasure in r.value or erased in r.value) and isinstance(record := _json(r.value), dict)
        }
        if banks:
            self._cache = {k: v for k, v in self._cache.items() if k[0] not in banks}

    def _refresh(self) -> None:
        if (now := self.keys.generation()) != self._generation:
            self._cache = {}
            self._generation = now

    def _keys(self, bank: str, units: dict[str, UnitTags]) -> dict[str, bytes | Erased]:
        have = {u: k for u in units if (k := self._cache.get((bank, u))) is not None}
        missing = {u: t for u, t in units.items() if u not in have}
        if missing:
            for u, k in self.keys.keys(bank, missing).items():
                self._cache[(bank, u)] = k
                have[u] = k
        return have


# A record as ``seal_all`` writes it: the envelope first (pydantic's field order), then boxes whose unit
# holds no escape; the box's own fields in the order ``_sealed`` writes them.
_HEAD = re.compile(rb'\{"event_id":"([^"\\]*)","type":"[^"\\]*","schema_version":\d+,"bank_id":"([^"\\]*)"')
_BOX = re.compile(
    rb'"sealed":\{"unit":"([^"\\]*)","f":"\w+","n":"([A-Za-z0-9+/=]*)","c":"([A-Za-z0-9+/=]*)"(?:,"dim":\d+)?\}'
)
_Boxes = tuple[str, bytes, list[tuple[int, bytes, bytes, bytes, int]]]  # bank, AAD, (start, unit, n, c, end)
Keys = Mapping[tuple[str, str], bytes | Erased]  # (bank, unit) -> key


def _boxes(value: bytes) -> _Boxes | None:
    """The bank, AAD and boxes of a record in ``seal_all``'s shape, or None (the record is parsed instead)."""
    if (head := _HEAD.match(value)) is None:
        return None
    found = []
    at = value.find(MARK, head.end())
    while at >= 0:
        if (m := _BOX.match(value, at)) is None:
            return None
        found.append((m.start(), m[1], m[2], m[3], m.end()))
        at = value.find(MARK, m.end())
    bank = head[2]
    return bank.decode("utf-8"), head[1] + struct.pack(">H", len(bank)) + bank, found


def _json(value: bytes) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return None


def _parsed(value: bytes) -> tuple[Json, Plan] | None:
    """The record and what to seal in it; None for a record with nothing to seal."""
    if b'"type":"TurnRecorded"' not in value and b'"text"' not in value and b'"vector"' not in value:
        return None
    try:
        record = json.loads(value)
    except ValueError:
        return None
    if not isinstance(record, dict) or not (plan := plan_of(record)):
        return None
    return record, plan


def _sealed(item: tuple[Json, Plan], keys: dict[str, dict[str, bytes | Erased]]) -> bytes:
    record, plan = item
    mine, aad = keys[str(record.get("bank_id", ""))], _aad(record)
    for target, unit, _, fields in plan:
        key = mine[unit]
        taken = {f: target.pop(f) for f in fields if f in target}
        if isinstance(key, Erased):  # written after its unit was erased: erased it stays
            _blank(target, fields, key, taken)
            continue
        nonce, sealed = boxes_.close(key, taken, aad)
        target["sealed"] = {"unit": unit, "f": KIND[fields], "n": nonce, "c": sealed}
        if "vector" in taken:
            target["sealed"]["dim"] = vectors.dim(base64.b64decode(taken["vector"]))
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _blank(target: Json, fields: Sequence[str], key: bytes | Erased | None, taken: Json, dim: int = 0) -> None:
    erased = key if isinstance(key, Erased) else None
    if "vector" in fields and not dim:
        dim = vectors.dim(base64.b64decode(taken.get("vector") or ""))
    blank(target, fields, erased, dim)


def _aad(record: Json) -> bytes:
    bank = str(record.get("bank_id", "")).encode()
    return str(record.get("event_id", "")).encode() + struct.pack(">H", len(bank)) + bank


class _SealedConsumer:
    def __init__(self, inner: Consumer, sealer: Sealer, strict: bool) -> None:
        self._inner, self._sealer, self._strict = inner, sealer, strict

    async def poll(self, max_records: int = 500, timeout_ms: int = 200) -> list[Record]:
        records = await self._inner.poll(max_records, timeout_ms)
        return await asyncio.to_thread(lambda: self._sealer.open(records, strict=self._strict))

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        await self._inner.commit(offsets)

    async def committed(self, topic: str, partition: int) -> int | None:
        return await self._inner.committed(topic, partition)

    async def close(self) -> None:
        await self._inner.close()


class SealedLog:
    """An ``EventLog`` whose records hold personal content only sealed (see the module docstring);
    ``strict``: reads and polls raise ``MissingKeyError`` where a key is missing (``deciding``)."""

    def __init__(self, inner: EventLog, sealer: Sealer, *, strict: bool = False) -> None:
        self.inner, self.sealer, self.strict = inner, sealer, strict

    @property
    def appends(self) -> int | None:
        """The inner log's count of this process's appends, where it keeps one (``EmbeddedLog.appended``)."""
        return getattr(self.inner, "appends", None)

    async def appended(self, seen: int, timeout: float) -> int:
        return int(await self.inner.appended(seen, timeout))  # type: ignore[attr-defined]

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        try:
            await self.inner.close()
        finally:
            self.sealer.close()

    async def append(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        # Keys may be object-store requests (``ObjectKeyStore``): sealing and opening run off the event loop.
        return await self.inner.append(topic, key, await asyncio.to_thread(self.sealer.seal_all, values))

    async def partitions(self, topic: str) -> int:
        return await self.inner.partitions(topic)

    async def end_offsets(self, topic: str) -> dict[int, int]:
        return await self.inner.end_offsets(topic)

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        records = await self.inner.read(topic, partition, start, stop, limit)
        return await asyncio.to_thread(lambda: self.sealer.open(records, strict=self.strict))

    async def consumer(self, group: str, topics: Sequence[str]) -> Consumer:
        return _SealedConsumer(await self.inner.consumer(group, topics), self.sealer, self.strict)

    def __getattr__(self, name: str) -> Any:  # adapter-specific extras (e.g. the embedded log's path)
        return getattr(self.inner, name)


def deciding(log: EventLog) -> EventLog:
    """The view of ``log`` for what decides or projects: a sealed log's reads and polls refuse content
    whose key is missing (``MissingKeyError``) instead of reading it as erased. Same inner log and sealer
    (closing stays with ``log``'s owner); any other log is returned as it is."""
    if isinstance(log, SealedLog) and not log.strict:
        return SealedLog(log.inner, log.sealer, strict=True)
    return log


def shred(log: object, events: Iterable[Event]) -> None:
    """Destroy the keys of the erasures among ``events`` (nothing on an unsealed log), as the bank actor
    does before it appends their ``ContentErased``. The erasing client destroys them right after recording
    the request, but an actor quick enough would otherwise declare the content erased while its keys
    still open it (a projection could copy it into a row after the erasure dropped the rows), and a
    client that died in between would leave them live. Destroying twice is a no-op."""
    sealer = getattr(log, "sealer", None)
    if not isinstance(sealer, Sealer):
        return
    erasures = [e for e in events if isinstance(e, ErasureRequested) and e.units]
    if erasures:
        sealer.keys.destroy_all([Destruction.of(e) for e in erasures])
