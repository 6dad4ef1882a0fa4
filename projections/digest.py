"""Content hashes of projection rows, per bank, and the first row where two copies of a table differ.

A row's digest covers every column a rebuild must reproduce: all of them, including the
(topic, partition, offset) each row was projected from, vectors as float32 bytes. Storage order
and file layout do not count (rows are compared by key). Position rows are left to the caller.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow as pa

from hindsight_es.stores.cards import CARD

NO_BANK = ""  # rows without a bank (undecodable records in the archive)


@dataclass(frozen=True, slots=True)
class Rows:
    """One table's rows, keyed, with a digest each."""

    table: pa.Table
    keys: list[tuple[Any, ...]]  # the key columns' values: sort in log order for the archive
    banks: list[str]
    digests: list[str]

    def by_bank(self) -> dict[str, dict[tuple[Any, ...], int]]:
        """bank -> key -> row index."""
        out: dict[str, dict[tuple[Any, ...], int]] = {}
        for i, (bank, key) in enumerate(zip(self.banks, self.keys, strict=True)):
            out.setdefault(bank, {})[key] = i
        return out


def digest_rows(table: pa.Table, key_columns: tuple[str, ...]) -> Rows:
    vectors = _vector_bytes(table.column("vector")) if "vector" in table.column_names else None
    plain = table.drop_columns(["vector"]) if vectors is not None else table
    # A card is derived from the row's other columns (``stores.cards``): a store written before cards
    # existed holds the same rows without them
    plain = plain.drop_columns([CARD]) if CARD in plain.column_names else plain
    names = sorted(plain.column_names)
    keys, banks, digests = [], [], []
    for i, row in enumerate(plain.to_pylist()):
        h = hashlib.blake2b(
            json.dumps([row[n] for n in names], default=_plain, ensure_ascii=False).encode(), digest_size=16
        )
        if vectors is not None:
            h.update(vectors[i] or b"\0null")
        keys.append(tuple(row[c] for c in key_columns))
        banks.append(row.get("bank_id") or NO_BANK)
        digests.append(h.hexdigest())
    return Rows(table, keys, banks, digests)


def bank_hashes(rows: Rows) -> dict[str, tuple[str, int]]:
    """bank -> (sha256 of its rows' keys and digests in key order, row count)."""
    out = {}
    for bank, index in rows.by_bank().items():
        h = hashlib.sha256()
        for key in sorted(index):
            h.update(f"{show_key(key)}\t{rows.digests[index[key]]}\n".encode())
        out[bank] = (h.hexdigest(), len(index))
    return out


def first_difference(live: Rows, rebuilt: Rows, bank: str) -> str | None:
    """The first row (in key order) of ``bank`` that is missing from one side or differs, described."""
    mine, theirs = live.by_bank().get(bank, {}), rebuilt.by_bank().get(bank, {})
    for key in sorted(mine.keys() | theirs.keys()):
        if key not in theirs:
            return f"row {show_key(key)} is in the live store but not in the rebuild"
        if key not in mine:
            return f"row {show_key(key)} is missing from the live store"
        a, b = mine[key], theirs[key]
        if live.digests[a] != rebuilt.digests[b]:
            return f"row {show_key(key)}: " + _columns_differ(live.table.slice(a, 1), rebuilt.table.slice(b, 1))
    return None


def _columns_differ(a: pa.Table, b: pa.Table) -> str:
    diffs = []
    for name in sorted(set(a.column_names) | set(b.column_names)):
        x = a.column(name).to_pylist()[0] if name in a.column_names else "(no column)"
        y = b.column(name).to_pylist()[0] if name in b.column_names else "(no column)"
        if x != y:
            shown = ("…", "…") if name == "vector" else (_short(x), _short(y))
            diffs.append(f"{name}: live {shown[0]}, rebuilt {shown[1]}")
    return "; ".join(diffs) or "same values, different encoding"


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def show_key(key: tuple[Any, ...]) -> str:
    """``memory_id`` or ``turn_key`` as is; an archive row as ``topic[partition]@offset``."""
    return f"{key[0]}[{key[1]}]@{key[2]}" if len(key) == 3 else "/".join(map(str, key))


def _vector_bytes(column: pa.ChunkedArray) -> list[bytes | None]:
    """Per row: the vector's float32 little-endian bytes, or None (fixed or variable size lists)."""
    array = column.combine_chunks()
    if isinstance(array.type, pa.FixedSizeListType):
        flat = array.flatten().to_numpy(zero_copy_only=False).astype("<f4").reshape(len(array), array.type.list_size)
        valid = array.is_valid().to_numpy(zero_copy_only=False)
        return [row.tobytes() if ok else None for row, ok in zip(flat, valid, strict=True)]
    offsets = array.offsets.to_numpy()
    values = array.values.to_numpy(zero_copy_only=False).astype("<f4")
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    return [values[offsets[i] : offsets[i + 1]].tobytes() if valid[i] else None for i in range(len(array))]
