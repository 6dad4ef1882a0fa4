"""A bank's decision state as Arrow tables and back, built lazily: the body of a partition snapshot (format 4).

Each index of ``BankState`` (memories, heads, texts, handled, yields, anchors) and the bank's retained
offsets is one table of rows in dict order: ``key``, ``value``, and ``hash``/``order`` (the keys' 63-bit
hashes sorted, with their rows) to find a key by binary search (``memory.lazy``). A memory's value is
one JSON row of its ``MemoryInfo`` fields: a decision reads whole memories, a few per turn, so loading
never builds one it does not read. Ids are 16 raw bytes; texts UTF-8. Data only, never code.
"""

from __future__ import annotations

import dataclasses
import json
import operator
import zlib
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID, SafeUUID

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.memory.indexing import LastTurn
from hindsight_es.memory.lazy import LazyMap, LazySet, Rows, hash_id, hash_text, uuid_of
from hindsight_es.memory.snapshot import TIMES, TUPLES, UUID_TUPLES, UUIDS  # a memory's fields by type, as format 3
from hindsight_es.memory.state import BankState, MemoryInfo

FORMAT = 4
FIELDS = tuple(f.name for f in dataclasses.fields(MemoryInfo))
_NEW, _SET, _UNKNOWN = object.__new__, object.__setattr__, SafeUUID.unknown
ID = pa.binary(16)  # a UUID's bytes
BLOB = pa.large_binary()  # UTF-8 text, a memory's JSON row, or ids end to end
_K = TypeVar("_K")
_V = TypeVar("_V")


def _cell(value: Any) -> Any:
    """JSON for what ``json`` does not write itself: ids as 32 hex digits, times in ISO 8601."""
    if isinstance(value, UUID):
        return f"{value.int:032x}"
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not a memory field's type")


def _id(text: str) -> UUID:
    value = _NEW(UUID)
    _SET(value, "int", int(text, 16))
    _SET(value, "is_safe", _UNKNOWN)
    return value


# Positions in a row of the cells JSON cannot hold as they are; the others go to ``MemoryInfo`` unchanged.
_ID_AT = [i for i, n in enumerate(FIELDS) if n in UUIDS]
_TIME_AT = [i for i, n in enumerate(FIELDS) if n in TIMES]
_IDS_AT = [i for i, n in enumerate(FIELDS) if n in UUID_TUPLES]
_TUPLE_AT = [i for i, n in enumerate(FIELDS) if n in TUPLES]


_FIELDS_OF = operator.attrgetter(*FIELDS)
_ENCODER = json.JSONEncoder(separators=(",", ":"), default=_cell)


def memory_row(memory: MemoryInfo) -> bytes:
    """One memory as the JSON list of its fields' values, in ``FIELDS`` order (ASCII)."""
    return _ENCODER.encode(_FIELDS_OF(memory)).encode()


def memory_from_row(data: bytes | memoryview) -> MemoryInfo:
    cells = json.loads(bytes(data))
    if len(cells) != len(FIELDS):
        raise ValueError("a memory row does not have MemoryInfo's fields")
    for i in _ID_AT:
        if (cell := cells[i]) is not None:
            cells[i] = _id(cell)
    for i in _TIME_AT:
        if (cell := cells[i]) is not None:
            cells[i] = datetime.fromisoformat(cell)
    for i in _IDS_AT:
        cells[i] = tuple(map(_id, cells[i]))
    for i in _TUPLE_AT:
        cells[i] = tuple(cells[i])
    return MemoryInfo(*cells)


def text_key(key: tuple[str, str]) -> str:
    """``texts``' key as one string (a kind never holds NUL)."""
    return f"{key[0]}\x00{key[1]}"


# -- reading ---------------------------------------------------------------------------------------------


def _ids(array: pa.Array) -> Callable[[int], UUID]:
    if array.type != ID or array.null_count:
        raise ValueError(f"expected ids, got {array.type}")
    data, start = memoryview(array.buffers()[1] or b""), array.offset * 16
    return lambda row: uuid_of(data[start + 16 * row : start + 16 * row + 16])


def _blobs(array: pa.Array) -> Callable[[int], memoryview]:
    if array.type != BLOB or array.null_count:
        raise ValueError(f"expected blobs, got {array.type}")
    buffers = array.buffers()
    ends = np.frombuffer(buffers[1], dtype=np.int64)[array.offset : array.offset + len(array) + 1]
    data = memoryview(buffers[2] or b"")
    return lambda row: data[ends[row] : ends[row + 1]]


def _texts(array: pa.Array) -> Callable[[int], str]:
    blob = _blobs(array)
    return lambda row: str(blob(row), "utf-8", "surrogatepass")


def _id_list(array: pa.Array) -> Callable[[int], list[UUID]]:
    blob = _blobs(array)

    def ids(row: int) -> list[UUID]:
        data = blob(row)
        return [uuid_of(data[i : i + 16]) for i in range(0, len(data), 16)]

    return ids


def column(table: pa.Table, name: str) -> pa.Array:
    column = table.column(name)
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _rows(
    table: pa.Table,
    key: Callable[[int], _K],
    hasher: Callable[[_K], int],
    value: Callable[[int], _V] | None = None,
) -> Rows[_K, _V]:
    hashes, order = column(table, "hash").to_numpy(), column(table, "order").to_numpy()
    if hashes.dtype != np.int64 or order.dtype != np.int64 or len(hashes) != table.num_rows:
        raise ValueError("a table's hash index is not int64 columns")
    none: Callable[[int], Any] = lambda row: None  # noqa: E731
    return Rows(table.num_rows, key, value or none, hashes, order, hasher, table, _selector(table))


def _selector(table: pa.Table) -> Callable[[str, Any], np.ndarray | None]:
    """The rows whose column ``name`` holds ``value`` (None: no such column); answers are kept (rows never change)."""
    found: dict[tuple[str, Any], np.ndarray] = {}

    def where(name: str, value: Any) -> np.ndarray | None:
        if name not in table.column_names:
            return None
        if (name, value) not in found:
            equal = pc.equal(column(table, name), pa.scalar(value, table.schema.field(name).type))
            found[name, value] = np.flatnonzero(equal.fill_null(False).to_numpy(zero_copy_only=False))
        return found[name, value]

    return where


def _key(table: pa.Table, read: Callable[[pa.Array], Callable[[int], _K]]) -> Callable[[int], _K]:
    return read(column(table, "key"))


def _value(table: pa.Table, read: Callable[[pa.Array], Callable[[int], _V]]) -> Callable[[int], _V]:
    return read(column(table, "value"))


def state_from(head: dict[str, Any], found: Mapping[str, pa.Table]) -> tuple[BankState, LazyMap[UUID, int]]:
    """The state (and the bank's retained offsets) ``tables``/``scalars`` wrote; ``ValueError`` (or
    ``KeyError``/``TypeError``) for anything else. Only the columns' buffers are read here."""
    state = BankState(head["bank_id"])
    memories, heads, texts = found["memories"], found["heads"], found["texts"]
    blob = _value(memories, _blobs)
    state.memories = LazyMap(_rows(memories, _key(memories, _ids), hash_id, lambda row: memory_from_row(blob(row))))
    state.heads = LazyMap(_rows(heads, _key(heads, _texts), hash_text, _value(heads, _ids)))
    text_of = _key(texts, _texts)
    state.texts = LazyMap(
        _rows(texts, lambda row: _split(text_of(row)), lambda k: hash_text(text_key(k)), _value(texts, _ids))
    )
    state.handled = LazySet(_rows(found["handled"], _key(found["handled"], _ids), hash_id))
    yields = found["yields"]
    state.yields = LazyMap(_rows(yields, _key(yields, _ids), hash_id, _value(yields, _id_list)))
    anchors = found["anchors"]
    members = _value(anchors, _id_list)
    state.anchors = LazyMap(_rows(anchors, _key(anchors, _texts), hash_text, lambda row: set(members(row))))
    state.last_turn = {s: LastTurn(*t) for s, t in head["last_turn"].items()}
    state.session_seen = {s: datetime.fromisoformat(t) for s, t in head["session_seen"].items()}
    state.owners = tuple(head["owners"])
    state.owners_set = bool(head["owners_set"])
    state.first_user_actor = head["first_user_actor"]
    kept = found["retained"]
    offsets = column(kept, "value").to_numpy()
    retained = LazyMap(_rows(kept, _key(kept, _ids), hash_id, lambda row: int(offsets[row])))
    return state, retained


def _split(text: str) -> tuple[str, str]:
    kind, _, normalized = text.partition("\x00")
    return kind, normalized


# -- the file ---------------------------------------------------------------------------------------------

# Then the header's length (8 bytes, big-endian), the header (JSON: where each table is, the CRC-32 of all
# of them: Arrow IPC has no checksum of its own), the tables.
MAGIC = b"HSNAP4\n\x00"
_COMPRESSION = "lz4"  # decompresses about 3 times faster than zstd here, for a file about a fifth larger


def pack(header: dict[str, Any], banks: list[dict[str, pa.Table]]) -> bytes:
    """One file: ``header`` (JSON: small values) and each bank's tables as Arrow IPC streams (LZ4 frames)."""
    options = pa.ipc.IpcWriteOptions(compression=_COMPRESSION)
    segments: list[bytes] = []
    where: list[list[Any]] = []
    at = crc = 0
    for i, bank in enumerate(banks):
        for name, table in bank.items():
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
                writer.write_table(table)
            data = sink.getvalue().to_pybytes()
            where.append([i, name, at, len(data)])
            segments.append(data)
            at += len(data)
            crc = zlib.crc32(data, crc)
    head = json.dumps({**header, "segments": where, "crc32": crc}, separators=(",", ":")).encode()
    return b"".join([MAGIC, len(head).to_bytes(8, "big"), head, *segments])


def unpack(data: bytes) -> tuple[dict[str, Any], list[dict[str, pa.Table]]]:
    """The header and tables ``pack`` wrote; ``ValueError`` for anything else (another format, cut short)."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise ValueError("not a format-4 snapshot")
    size = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "big")
    start = len(MAGIC) + 8 + size
    header = json.loads(data[len(MAGIC) + 8 : start])
    if not isinstance(header, dict):
        raise ValueError("the snapshot's header is not an object")
    if zlib.crc32(memoryview(data)[start:]) != header["crc32"]:
        raise ValueError("the snapshot's tables do not match their checksum (cut short or damaged)")
    body = pa.py_buffer(data)
    banks: list[dict[str, pa.Table]] = [{} for _ in header["banks"]]
    for i, name, at, length in header["segments"]:
        if start + at + length > len(data):
            raise ValueError(f"the snapshot is cut short (table {name} of bank {i})")
        try:
            banks[i][name] = pa.ipc.open_stream(body.slice(start + at, length)).read_all()
        except pa.ArrowException as exc:
            raise ValueError(f"table {name} of bank {i} does not decode: {exc}") from exc
    return header, banks


def plain(data: bytes) -> bytes:
    """Every byte a format-4 snapshot holds, decompressed: its header and each column's buffers (what a
    search for erased content must look through; the tables are compressed as stored)."""
    header, banks = unpack(data)
    out = [json.dumps(header).encode()]
    for tables in banks:
        for table in tables.values():
            for chunked in table.columns:
                out += [b.to_pybytes() for chunk in chunked.chunks for b in chunk.buffers() if b is not None]
    return b"\n".join(out)
