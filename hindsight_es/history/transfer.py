"""Export a bank's events to a file (JSON lines or Parquet) and import them into another log.

One line (or row) per event: ``{"topic", "key", "value"}`` with the event's JSON as ``value``.
Import keeps event ids and appends memory events first, then commands, then turns: the target's
bank actor folds the memory events when it starts, finds those inputs already decided
(``state.handled``, filled from ``causation_id``) and decides nothing again. Events already in
the target (same id) are skipped, so importing twice appends nothing the second time.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import pyarrow as pa
import pyarrow.parquet as pq

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.errors import DecodeError, InvalidInputError
from hindsight_es.events import CommandEvent, Event, MemoryEvent, TurnRecorded, decode, encode
from hindsight_es.history.bank import bank_records
from hindsight_es.log import EventLog
from hindsight_es.memory.decide import undecidable
from hindsight_es.text import plural

TOPICS = (TOPIC_TURNS, TOPIC_COMMANDS, TOPIC_MEMORIES)
_IMPORT_ORDER = (TOPIC_MEMORIES, TOPIC_COMMANDS, TOPIC_TURNS)
_BELONGS = {TOPIC_TURNS: (TurnRecorded,), TOPIC_COMMANDS: get_args(CommandEvent), TOPIC_MEMORIES: get_args(MemoryEvent)}
_SCHEMA = pa.schema([("topic", pa.string()), ("key", pa.string()), ("value", pa.string())])
_CHUNK = 1000


@dataclass(frozen=True, slots=True)
class Entry:
    topic: str
    event: Event


_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    "": "jsonl",
}


def file_format(path: Path, fmt: str | None = None) -> str:
    """The format named, else the file's by its suffix; a suffix of another format (x.csv) is refused rather
    than written or read as JSON lines under a name that says otherwise."""
    if fmt is None:
        fmt = _SUFFIXES.get(path.suffix.lower())
        if fmt is None:
            raise InvalidInputError(
                f"{path.name}: name the file .jsonl or .parquet, or give the format (--format jsonl|parquet)"
            )
    if fmt not in ("jsonl", "parquet"):
        raise InvalidInputError(f"unknown format {fmt!r}: jsonl or parquet")
    return fmt


async def export_bank(log: EventLog, bank_id: str, path: Path, fmt: str | None = None) -> dict[str, int]:
    """Write the bank's turns, commands and memory events to ``path``; returns how many per topic
    (records that are not events are left out and counted as ``undecodable``)."""
    rows: list[tuple[str, str, str]] = []
    counts: dict[str, int] = defaultdict(int)
    for topic in TOPICS:
        async for records in bank_records(log, topic, bank_id):
            for record in records:
                try:
                    event = decode(record.value)
                except DecodeError:
                    counts["undecodable"] += 1
                    continue
                rows.append((topic, bank_id, encode(event).decode("utf-8")))
                counts[topic] += 1
    _write(rows, path, file_format(path, fmt))
    return dict(counts)


def _write(rows: list[tuple[str, str, str]], path: Path, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        if fmt == "parquet":
            columns = list(zip(*rows, strict=True)) if rows else [(), (), ()]
            pq.write_table(
                pa.Table.from_arrays([pa.array(c, pa.string()) for c in columns], schema=_SCHEMA),
                tmp,
                compression="zstd",
            )
        else:
            with open(tmp, "w", encoding="utf-8") as f:
                for topic, key, value in rows:
                    f.write(
                        f'{{"topic": {json.dumps(topic)}, "key": {json.dumps(key, ensure_ascii=False)}, '
                        f'"value": {value}}}\n'
                    )
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_export(path: Path, fmt: str | None = None) -> list[Entry]:
    """Read and check an export; raises ``InvalidInputError`` naming the first bad line or row."""
    try:
        return [_entry(where, item) for where, item in _items(path, file_format(path, fmt))]
    except OSError as exc:
        raise InvalidInputError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _items(path: Path, fmt: str) -> Iterator[tuple[str, Any]]:
    if fmt == "parquet":
        try:
            table = pq.read_table(path, schema=_SCHEMA)
        except (pa.ArrowInvalid, KeyError) as exc:
            raise InvalidInputError(f"{path} is not an export (columns topic, key, value): {exc}") from exc
        for number, row in enumerate(table.to_pylist(), start=1):
            yield f"row {number}", row
        return
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            if raw.strip():
                try:
                    yield f"line {number}", json.loads(raw)
                except ValueError as exc:
                    raise InvalidInputError(f"line {number}: not JSON: {exc}") from exc


def _entry(where: str, item: Any) -> Entry:
    if not isinstance(item, dict) or set(item) != {"topic", "key", "value"}:
        raise InvalidInputError(f"{where}: expected an object with exactly topic, key and value")
    topic, key, value = item["topic"], item["key"], item["value"]
    if topic not in _BELONGS:
        raise InvalidInputError(f"{where}: topic {topic!r} is not one of {', '.join(TOPICS)}")
    try:
        event = decode(value.encode("utf-8") if isinstance(value, str) else json.dumps(value).encode("utf-8"))
    except DecodeError as exc:
        raise InvalidInputError(f"{where}: {exc}") from exc
    if not isinstance(event, _BELONGS[topic]):
        raise InvalidInputError(f"{where}: a {event.type} does not belong on {topic}")
    if key != event.bank_id:
        raise InvalidInputError(f"{where}: key {key!r} is not the event's bank {event.bank_id!r}")
    return Entry(topic, event)


@dataclass(frozen=True, slots=True)
class Imported:
    appended: dict[str, int]  # topic -> events appended
    present: int  # events the target already held (same id)
    undecided: int  # inputs no memory event in the file was caused by: the target's actor decides them
    banks: list[str]


async def import_entries(log: EventLog, entries: list[Entry]) -> Imported:
    """Append the entries the target does not hold yet, memory events first. A bank whose target
    history shares no event with the file is refused: two histories of one bank do not merge."""
    by_bank: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        by_bank[entry.event.bank_id].append(entry)
    appended: dict[str, int] = defaultdict(int)
    added: list[Entry] = []  # appended by this import
    present = 0
    for bank_id, mine in sorted(by_bank.items()):
        held = await _event_ids(log, bank_id)
        ids = {str(e.event.event_id) for e in mine}
        if held and not held & ids:
            raise InvalidInputError(
                f"bank {bank_id!r} already has {plural(len(held), 'event')} in the target and none of the "
                "file's: import into a fresh data directory or broker"
            )
        for topic in _IMPORT_ORDER:
            fresh = [e for e in mine if e.topic == topic and str(e.event.event_id) not in held]
            added += fresh
            new = [encode(e.event) for e in fresh]
            for start in range(0, len(new), _CHUNK):
                await log.append(topic, bank_id, new[start : start + _CHUNK])
            appended[topic] += len(new)
        present += len(ids & held)
    causes = {e.event.causation_id for e in entries if e.topic == TOPIC_MEMORIES}
    # Inputs appended now that no memory event of the file answers, but for a turn that decides nothing
    # wherever it is decided: filler, or erased (the file holds its placeholder; the target's actor skips it).
    undecided = sum(
        1
        for e in added
        if e.topic != TOPIC_MEMORIES
        and e.event.event_id not in causes
        and not (isinstance(e.event, TurnRecorded) and undecidable(e.event))
    )
    return Imported(dict(appended), present, undecided, sorted(by_bank))


async def _event_ids(log: EventLog, bank_id: str) -> set[str]:
    held: set[str] = set()
    for topic in TOPICS:
        async for records in bank_records(log, topic, bank_id):
            for record in records:
                try:
                    held.add(str(json.loads(record.value)["event_id"]))
                except (ValueError, KeyError, TypeError):
                    continue
    return held
