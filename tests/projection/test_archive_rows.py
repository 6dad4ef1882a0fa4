"""The archive's rows are the same whatever way ``archive_table`` builds its columns: every event type,
undecodable records, erased (sealed, unopened) content, unicode, absent optional fields and UUIDs alone
or in lists, compared with the cell-by-cell rule the archive was first written with (``_reference``)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

import numpy as np
import pyarrow as pa

from hindsight_es.errors import DecodeError
from hindsight_es.events import Event, MemoryRetained, decode, encode
from hindsight_es.events import models as m
from hindsight_es.log import Record
from projections.archive import SCHEMA, _raw, _vector_array, archive_table
from tests.unit.test_codec import SAMPLES

_ENVELOPE = ("event_id", "type", "schema_version", "bank_id", "occurred_at", "causation_id", "actor")
_SCALARS = ("memory_id", "superseded_by", "session_id", "turn_id", "kind", "text")
_LISTS = ("source_turn_ids", "retracted_memory_ids", "restored_memory_ids")


def _text(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    return [_text(v) for v in value] if isinstance(value, (tuple, list)) else value


def _reference(items: list[tuple[Record, Event | None]]) -> pa.Table:
    """A row per record, a Python call per cell: the rule ``archive_table`` must keep."""
    columns: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    for record, event in items:
        fields = {} if event is None else event.__dict__
        columns["topic"].append(record.topic)
        columns["partition"].append(record.partition)
        columns["offset"].append(record.offset)
        columns["timestamp_ms"].append(record.timestamp_ms)
        columns["key"].append(record.key)
        for name in (*_ENVELOPE, *_SCALARS, *_LISTS):
            columns[name].append(_text(fields.get(name)))
        columns["payload"].append(_raw(record.value) if event is None else event.model_dump_json(exclude={"vector"}))
    vectors = [event.vector if isinstance(event, MemoryRetained) else None for _, event in items]
    arrays = [_vector_array(vectors) if f.name == "vector" else pa.array(columns[f.name], f.type) for f in SCHEMA]
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def _erased_memory() -> bytes:
    """A memory whose sealed box this process cannot open: it decodes as the erased placeholder."""
    record = json.loads(encode(SAMPLES[5]))
    for name in ("text", "quote", "key", "value", "entities", "context", "speaker", "vector"):
        record.pop(name, None)
    record["sealed"] = {"unit": "u1", "f": "memory", "n": "AAAA", "c": "AAAA", "dim": 4}
    return json.dumps(record, separators=(",", ":")).encode()


def _items() -> list[tuple[Record, Event | None]]:
    events: list[Event] = [
        *SAMPLES,
        m.SourceRetracted(
            bank_id="b", turn_ids=("t", "ü"), retracted_memory_ids=(uuid4(), uuid4()), restored_memory_ids=(uuid4(),)
        ),
        m.MemoryRetained(
            bank_id="b",
            memory_id=uuid4(),
            kind="fact",
            text='日本語 "quoted" \\ ✓ \n',
            vector=np.ones(4, np.float32),
            embedder="e",
            extractor="x",
            source_turn_ids=("t1", "t2"),
            session_id=None,
            causation_id=uuid4(),
            occurred_at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
            valid_from=datetime(2026, 1, 2, tzinfo=UTC),
        ),
    ]
    values = [encode(event) for event in events]
    values += [_erased_memory(), b"not json", b"\xff\xfe binary", b'{"type": "MemoryRetained"}', "ünï".encode()]
    items: list[tuple[Record, Event | None]] = []
    for offset, value in enumerate(values):
        try:
            event: Event | None = decode(value)
        except DecodeError:
            event = None
        items.append(
            (Record("hindsight.memories", 1, offset, None if offset % 3 else "b", value, 1000 + offset), event)
        )
    return items


def test_archive_rows_match_the_cell_by_cell_rule() -> None:
    items = _items()
    assert sum(event is None for _, event in items) == 4  # the undecodable ones are in it
    erased = items[len(SAMPLES) + 2][1]
    assert isinstance(erased, MemoryRetained) and "erased" in erased.text.lower()
    built, reference = archive_table(items), _reference(items)
    for name in SCHEMA.names:
        assert built.column(name).to_pylist() == reference.column(name).to_pylist(), name
    assert built.equals(reference)


def test_ids_are_text_in_every_id_column() -> None:
    items = _items()
    built = archive_table(items).to_pylist()
    retracted = next(
        row
        for row, (_, e) in zip(built, items, strict=True)
        if isinstance(e, m.SourceRetracted) and len(e.retracted_memory_ids) == 2
    )
    event = next(e for _, e in items if isinstance(e, m.SourceRetracted) and len(e.retracted_memory_ids) == 2)
    assert isinstance(event, m.SourceRetracted)
    assert retracted["retracted_memory_ids"] == [str(u) for u in event.retracted_memory_ids]
    assert retracted["event_id"] == str(event.event_id)
    assert base64.b64encode(b"\xff\xfe binary").decode() in built[-3]["payload"]
