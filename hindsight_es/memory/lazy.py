"""A mapping and a set that answer from snapshot columns, decoding an entry only when it is first read.

``Rows`` is a frozen base: keys in dict order, found by a sorted column of 63-bit key hashes (a binary
search, then the key itself compared, so a hash collision costs a second probe, never a wrong answer).
``LazyMap`` and ``LazySet`` put the changes made since the load over it with exactly the semantics of a
``dict`` (insertion order kept; a key deleted and set again goes to the end) and of a ``set``, so a
decision cannot tell a loaded state from a folded one. A base value is decoded once and kept (a memory
is mutated in place by ``evolve``), so loading costs reading the columns, not building every entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping, MutableSet
from dataclasses import dataclass
from hashlib import blake2b
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

    def find(self, key: K) -> int:
        """The row holding ``key``, or -1."""
        h = self.hasher(key)
        i = int(np.searchsorted(self.hashes, h))
        while i < self.n and int(self.hashes[i]) == h:
            row = int(self.order[i])
            if self.key(row) == key:
                return row
            i += 1
        return -1


class LazyMap(MutableMapping[K, V]):
    """A ``dict`` over ``Rows``: base rows in order (less those deleted), then the keys added since."""

    __slots__ = ("_base", "_got", "_gone", "_tail")

    def __init__(self, base: Rows[K, V]) -> None:
        self._base = base
        self._got: dict[K, V] = {}  # base keys read or set since the load, with their value now
        self._gone: set[K] = set()  # base keys deleted
        self._tail: dict[K, V] = {}  # keys that are not (or no longer) base rows, in the order added

    def _in_base(self, key: K) -> int:
        if key in self._got:
            return -2  # known, value in ``_got``
        if key in self._gone:
            return -1
        return self._base.find(key)

    def __getitem__(self, key: K) -> V:
        if key in self._tail:
            return self._tail[key]
        row = self._in_base(key)
        if row == -2:
            return self._got[key]
        if row < 0:
            raise KeyError(key)
        value = self._got[key] = self._base.value(row)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        if key not in self._tail and self._in_base(key) != -1:
            self._got[key] = value
        else:
            self._tail[key] = value

    def __delitem__(self, key: K) -> None:
        if key in self._tail:
            del self._tail[key]
        elif self._in_base(key) != -1:
            self._got.pop(key, None)
            self._gone.add(key)
        else:
            raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in self._tail or self._in_base(key) != -1  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self._base.n - len(self._gone) + len(self._tail)

    def __iter__(self) -> Iterator[K]:
        for row in range(self._base.n):
            key = self._base.key(row)
            if key not in self._gone:
                yield key
        yield from self._tail

    def entries(self, cache: bool = True) -> Iterator[tuple[K, V | None, int]]:
        """(key, value, row) in order; value None for a base row not read yet when ``cache`` is False (the
        caller encodes ``row`` from the base as it is), row -1 for an entry added since the load."""
        base, got, gone = self._base, self._got, self._gone
        for row in range(base.n):
            key = base.key(row)
            if key in gone:
                continue
            if key in got:
                yield key, got[key], row
            elif cache:
                value = got[key] = base.value(row)
                yield key, value, row
            else:
                yield key, None, row
        for key, value in self._tail.items():
            yield key, value, -1

    def delta(self) -> tuple[Rows[K, V], dict[K, V], set[K], dict[K, V]]:
        """(base, base entries read or set since the load, base keys deleted, keys added): what a writer
        needs to write the map again without decoding the rows nothing touched."""
        return self._base, self._got, self._gone, self._tail

    def items(self) -> Any:
        return [(k, v) for k, v, _ in self.entries()]

    def values(self) -> Any:
        return [v for _, v, _ in self.entries()]

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
        for row in range(self._base.n):
            key = self._base.key(row)
            if key not in self._gone:
                yield key
        yield from self._added

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
