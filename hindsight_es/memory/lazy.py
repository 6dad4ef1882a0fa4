"""A mapping and a set that answer from snapshot columns, decoding an entry only when it is first read.

``Rows`` is a frozen base: keys in dict order, found by a sorted column of 63-bit key hashes (a binary
search, then the key itself compared, so a hash collision costs a second probe, never a wrong answer).
``LazyMap`` and ``LazySet`` put the changes made since the load over it with exactly the semantics of a
``dict`` (insertion order kept; a key deleted and set again goes to the end) and of a ``set``, so a
decision cannot tell a loaded state from a folded one. A base value is decoded once and kept (a memory
is mutated in place by ``evolve``), so loading costs reading the columns, not building every entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, MutableMapping, MutableSet
from dataclasses import dataclass
from hashlib import blake2b
from itertools import chain
from typing import Any, Generic, TypeVar
from uuid import UUID, SafeUUID

import numpy as np

K = TypeVar("K")
V = TypeVar("V")
MASK = (1 << 63) - 1  # hashes are non-negative int64: numpy compares them exactly
_NEW, _SET, _UNKNOWN = object.__new__, object.__setattr__, SafeUUID.unknown


def uuid_of(data: bytes | memoryview) -> UUID:
    """A UUID from its 16 bytes, without ``UUID.__init__``'s validation (the bytes are a UUID's own)."""
    value = _NEW(UUID)
    _SET(value, "int", int.from_bytes(data, "big"))
    _SET(value, "is_safe", _UNKNOWN)
    return value


def hash_id(key: UUID) -> int:
    return key.int & MASK


def hash_text(key: str) -> int:
    return int.from_bytes(blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big") & MASK


@dataclass(frozen=True, slots=True)
class Rows(Generic[K, V]):
    """``n`` rows: ``key(row)``, ``value(row)``; ``hashes`` sorted ascending, ``order[i]`` the row of ``hashes[i]``."""

    n: int
    key: Callable[[int], K]
    value: Callable[[int], V]
    hashes: np.ndarray
    order: np.ndarray
    hasher: Callable[[K], int]
    table: Any = None  # the columns the rows were read from, written again as they are where unchanged
    where: Callable[[str, Any], np.ndarray | None] | None = None  # rows whose stored ``name`` equals a value

    def find(self, key: K) -> int:
        """The row holding ``key``, or -1."""
        try:
            h = self.hasher(key)
        except (AttributeError, TypeError):  # not a key of this map's type (None, say): absent, as from a dict
            return -1
        i = int(np.searchsorted(self.hashes, h))
        while i < self.n and int(self.hashes[i]) == h:
            row = int(self.order[i])
            if self.key(row) == key:
                return row
            i += 1
        return -1


def _keys(base: Rows[K, Any], gone: set[K], extra: Iterable[K]) -> Iterator[K]:
    """The snapshot's keys in their order, less those deleted since, then those added since."""
    for row in range(base.n):
        key = base.key(row)
        if key not in gone:
            yield key
    yield from extra


class LazyMap(MutableMapping[K, V]):
    """A ``dict`` over ``Rows``: base rows in order (less those deleted), then the keys added since."""

    __slots__ = ("_base", "_got", "_row_of", "_gone", "_tail")

    def __init__(self, base: Rows[K, V]) -> None:
        self._base = base
        self._got: dict[K, V] = {}  # base keys read or set since the load, with their value now
        self._row_of: dict[K, int] = {}  # the base row of each key in ``_got``
        self._gone: set[K] = set()  # base keys deleted
        self._tail: dict[K, V] = {}  # keys that are not (or no longer) base rows, in the order added

    def _base_row(self, key: K) -> int:
        """The base row of a key the map still holds from the base, else -1."""
        row = self._row_of.get(key)
        if row is not None:
            return row
        return -1 if key in self._gone else self._base.find(key)

    def __getitem__(self, key: K) -> V:
        if key in self._tail:
            return self._tail[key]
        if key in self._got:
            return self._got[key]
        row = self._base_row(key)
        if row < 0:
            raise KeyError(key)
        value = self._got[key] = self._base.value(row)
        self._row_of[key] = row
        return value

    def __setitem__(self, key: K, value: V) -> None:
        if key in self._tail:
            self._tail[key] = value
        elif (row := self._base_row(key)) >= 0:
            self._got[key], self._row_of[key] = value, row
        else:
            self._tail[key] = value

    def __delitem__(self, key: K) -> None:
        if key in self._tail:
            del self._tail[key]
        elif self._base_row(key) >= 0:
            self._got.pop(key, None)
            self._row_of.pop(key, None)
            self._gone.add(key)
        else:
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self._tail or self._base_row(key) >= 0  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self._base.n - len(self._gone) + len(self._tail)

    def __iter__(self) -> Iterator[K]:
        return _keys(self._base, self._gone, self._tail)

    def tally(self, name: str, of: Callable[[V], Any]) -> dict[Any, int] | None:
        """How many entries hold each value of column ``name`` (``of(value)`` for the entries decoded since the
        load, the stored column for the rows nobody read), without decoding any; None without the column."""
        table = self._base.table
        if table is None or name not in table.column_names:
            return None
        read = np.zeros(self._base.n, dtype=bool)
        read[list(self._row_of.values())] = True
        read[[self._base.find(k) for k in self._gone]] = True
        stored = table.column(name).to_numpy(zero_copy_only=False)[~read]
        values, counts = np.unique(stored, return_counts=True)
        out: dict[Any, int] = {getattr(v, "item", lambda v=v: v)(): int(n) for v, n in zip(values, counts, strict=True)}
        for value in chain(self._got.values(), self._tail.values()):
            out[of(value)] = out.get(of(value), 0) + 1
        return out

    def _entries(self) -> Iterator[tuple[K, V]]:
        base, got, gone = self._base, self._got, self._gone
        for row in range(base.n):
            key = base.key(row)
            if key in gone:
                continue
            if key in got:
                yield key, got[key]
            else:
                value = got[key] = base.value(row)
                self._row_of[key] = row
                yield key, value
        yield from self._tail.items()

    def stored(self, name: str, value: Any) -> Iterator[K] | None:
        """The keys of the base rows that stored ``value`` in column ``name`` and are still in the map, in row
        order, without decoding a row (an entry set since the load may hold another value now). None when
        the base keeps no such column."""
        rows = self._base.where(name, value) if self._base.where is not None else None
        if rows is None:
            return None
        return (k for k in map(self._base.key, rows.tolist()) if k not in self._gone)

    def delta(self) -> tuple[Rows[K, V], dict[int, V], set[K], dict[K, V]]:
        """(base, the value now of each base row read or set since the load, base keys deleted, keys added):
        what a writer needs to write the map again without decoding the rows nothing touched."""
        return self._base, {self._row_of[k]: v for k, v in self._got.items()}, self._gone, self._tail

    def items(self) -> Any:
        return list(self._entries())

    def values(self) -> Any:
        return [v for _, v in self._entries()]

    def copy(self) -> dict[K, V]:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MutableMapping):
            return NotImplemented
        return dict(self.items()) == dict(other.items())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyMap({len(self)} entries, {len(self._got) + len(self._tail)} decoded)"


class LazySet(MutableSet[K]):
    """A ``set`` over the keys of ``Rows`` (its values unused)."""

    __slots__ = ("_base", "_added", "_gone")

    def __init__(self, base: Rows[K, Any]) -> None:
        self._base = base
        self._added: set[K] = set()
        self._gone: set[K] = set()

    def __contains__(self, key: object) -> bool:
        if key in self._added:
            return True
        return key not in self._gone and self._base.find(key) >= 0  # type: ignore[arg-type]

    def add(self, key: K) -> None:
        if key in self._gone:
            self._gone.discard(key)
        elif self._base.find(key) < 0:
            self._added.add(key)

    def discard(self, key: K) -> None:
        if key in self._added:
            self._added.discard(key)
        elif key not in self._gone and self._base.find(key) >= 0:
            self._gone.add(key)

    def __iter__(self) -> Iterator[K]:
        return _keys(self._base, self._gone, self._added)

    def __len__(self) -> int:
        return self._base.n - len(self._gone) + len(self._added)

    def delta(self) -> tuple[Rows[K, Any], set[K], set[K]]:
        """(base, keys added, base keys deleted)."""
        return self._base, self._added, self._gone

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MutableSet | frozenset | set):
            return NotImplemented
        return len(self) == len(other) and all(k in other for k in self)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazySet({len(self)} keys)"
