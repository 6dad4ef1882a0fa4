"""A bank state written as the tables ``memory.columnar`` reads (format 4).

A map read lazily from a snapshot is written again from its columns: only the entries a decision read,
set, added or deleted since are encoded (``LazyMap.delta``), the other rows are copied by Arrow, so a
snapshot of a loaded partition costs what changed. A folded map is encoded entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import numpy as np
import pyarrow as pa

from hindsight_es.memory.columnar import BLOB, ID, column, memory_row, text_key
from hindsight_es.memory.lazy import MASK, LazyMap, LazySet, Rows, hash_text
from hindsight_es.memory.state import BankState


@dataclass(frozen=True, slots=True)
class Codec:
    key: Callable[[Any], bytes]
    key_type: pa.DataType
    value: Callable[[Any], Any] | None = None  # None: a set, keys only
    value_type: pa.DataType | None = None
    hasher: Callable[[Any], int] | None = None  # None: ids, hashed from their bytes in one pass
    # Columns of one field of the value beside it, that a lazy map selects rows by (``LazyMap.matching``)
    extra: tuple[tuple[str, Callable[[Any], Any], pa.DataType], ...] = ()


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _ids_bytes(ids: Iterable[UUID]) -> bytes:
    return b"".join(u.bytes for u in ids)


_BY_ID = {"key": lambda u: u.bytes, "key_type": ID}
_SELECTED = (
    ("status", lambda m: m.status, pa.string()),
    ("memory_key", lambda m: m.key, pa.string()),
    ("cold", lambda m: m.cold, pa.bool_()),
)
MEMORIES = Codec(**_BY_ID, value=memory_row, value_type=BLOB, extra=_SELECTED)
HEADS = Codec(_utf8, BLOB, lambda u: u.bytes, ID, hash_text)
TEXTS = Codec(lambda k: _utf8(text_key(k)), BLOB, lambda u: u.bytes, ID, lambda k: hash_text(text_key(k)))
HANDLED = Codec(**_BY_ID)
YIELDS = Codec(**_BY_ID, value=_ids_bytes, value_type=BLOB)
ANCHORS = Codec(_utf8, BLOB, _ids_bytes, BLOB, hash_text)
RETAINED = Codec(**_BY_ID, value=int, value_type=pa.int64())


def _table(keys: pa.Array, hashes: np.ndarray, values: dict[str, pa.Array]) -> pa.Table:
    order = np.argsort(hashes, kind="stable")
    columns = {"key": keys, "hash": pa.array(hashes[order]), "order": pa.array(order.astype(np.int64))}
    return pa.table(columns | values)


def _encoders(codec: Codec) -> list[tuple[str, Callable[[Any], Any], pa.DataType]]:
    if codec.value is None or codec.value_type is None:
        return []
    return [("value", codec.value, codec.value_type), *codec.extra]


def _encoded(entries: list[tuple[Any, Any]], codec: Codec) -> tuple[pa.Array, np.ndarray, dict[str, pa.Array]]:
    keys = pa.array([codec.key(k) for k, _ in entries], codec.key_type)
    if codec.hasher is None:  # a UUID's last 8 bytes, as ``lazy.hash_id`` takes them
        data = keys.buffers()[1] if entries else None
        halves = np.frombuffer(data or b"", dtype=">u8")[1::2].astype(np.uint64)
        hashes = (halves & np.uint64(MASK)).astype(np.int64)
    else:
        hashes = np.fromiter((codec.hasher(k) for k, _ in entries), np.int64, len(entries))
    values = {name: pa.array([encode(v) for _, v in entries], kind) for name, encode, kind in _encoders(codec)}
    return keys, hashes, values


def _patched(
    stored: pa.Array, changed: list[tuple[int, Any]], encode: Callable[[Any], Any], kind: pa.DataType
) -> pa.Array:
    """``stored`` with the cells of the rows in ``changed`` (sorted) encoded from their values now."""
    if len(changed) * 8 > len(stored):  # most rows read: one list beats a slice per row
        cells = stored.to_pylist()
        for row, value in changed:
            cells[row] = encode(value)
        return pa.array(cells, kind)
    pieces, start = [], 0
    for row, value in changed:
        pieces += [stored.slice(start, row - start), pa.array([encode(value)], kind)]
        start = row + 1
    pieces.append(stored.slice(start))
    return pa.concat_arrays(pieces)


def _rewritten(
    base: Rows[Any, Any], codec: Codec, got: Mapping[int, Any], gone: Iterable[Any], tail: list[Any]
) -> pa.Table:
    """The base table less the keys deleted, with the values read since encoded again, then the keys added."""
    table = base.table
    row_hash = np.empty(base.n, np.int64)
    row_hash[base.order] = base.hashes
    keep = np.ones(base.n, dtype=bool)
    keep[[base.find(k) for k in gone]] = False
    kept = pa.array(keep)
    changed = sorted(got.items(), key=lambda rv: rv[0])
    keys = column(table, "key").filter(kept)
    values = {
        name: _patched(column(table, name), changed, encode, kind).filter(kept)
        for name, encode, kind in _encoders(codec)
    }
    hashes = row_hash[keep]
    if tail:
        more_keys, more_hashes, more_values = _encoded(tail, codec)
        keys, hashes = pa.concat_arrays([keys, more_keys]), np.concatenate([hashes, more_hashes])
        values = {name: pa.concat_arrays([values[name], more_values[name]]) for name in values}
    return _table(keys, hashes, values)


def _written(entries: Any, codec: Codec) -> pa.Table:
    columns = {name for name, _, _ in _encoders(codec)}
    if isinstance(entries, LazyMap) and columns <= set(entries.delta()[0].table.column_names):
        base, got, gone, tail = entries.delta()
        return _rewritten(base, codec, got, gone, list(tail.items()))
    if isinstance(entries, LazySet):
        base, added, removed = entries.delta()
        return _rewritten(base, codec, {}, removed, [(k, None) for k in added])
    pairs = list(entries.items()) if codec.value is not None else [(k, None) for k in entries]
    return _table(*_encoded(pairs, codec))


def tables(state: BankState, retained: Mapping[UUID, int]) -> dict[str, pa.Table]:
    """The state's tables (and the bank's retained offsets), for ``columnar.pack``."""
    return {
        "memories": _written(state.memories, MEMORIES),
        "heads": _written(state.heads, HEADS),
        "texts": _written(state.texts, TEXTS),
        "handled": _written(state.handled, HANDLED),
        "yields": _written(state.yields, YIELDS),
        "anchors": _written(state.anchors, ANCHORS),
        "retained": _written(retained, RETAINED),
    }


def scalars(state: BankState) -> dict[str, Any]:
    """What is small and read whole (per session, or one value): kept as JSON in the header."""
    return {
        "bank_id": state.bank_id,
        "last_turn": {s: list(t) for s, t in state.last_turn.items()},
        "session_seen": {s: t.isoformat() for s, t in state.session_seen.items()},
        "owners": list(state.owners),
        "owners_set": state.owners_set,
        "first_user_actor": state.first_user_actor,
    }
