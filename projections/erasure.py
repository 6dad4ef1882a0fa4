"""The archive's part of an erasure: on ``ContentErased`` the archive projection (the archive's only
writer) rewrites each Parquet file holding an erased event, with that event as the log now reads it.

The keys are destroyed when the erasure is recorded, so the log reads the erased events as placeholders;
the files written before hold the content. Each such row is rebuilt from its own payload with the
erased fields blanked the way ``log.sealed`` blanks them for a destroyed key (``sealing.blank``, the
tombstone's who, when and why taken from the event), which is exactly what a rebuild would archive; so
no log read is needed, and a file already holding the placeholders (a rebuild) is left as it is.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.errors import DecodeError
from hindsight_es.events import ContentErased, Event, decode, vectors
from hindsight_es.events.sealing import MEMORY_FIELDS, TURN_FIELDS, Erased, blank
from hindsight_es.log import Record, keys
from hindsight_es.stores.archive import ArchiveStore

__all__ = ["erase_archived", "erase_table", "tombstone"]

# The events that carry a turn's or a memory's content (``log.sealed``).
_TURN_TYPES = ("TurnRecorded", "ExtractionCompleted")
_MEMORY_TYPES = ("MemoryRetained", "MemoryRestored", "CorrectionRequested")
Json = dict[str, Any]
_TURN_ID = re.compile(r'"turn_id":"([^"]*)"')  # a turn named in an extraction's payload, as written
Rows = Callable[[list[tuple[Record, Event | None]]], pa.Table]  # the archive's rows of decoded records


def tombstone(event: ContentErased) -> Erased:
    """The tombstone the key store gave the erased units (``erase`` destroys them at the event's time)."""
    return keys.tombstone(event.erased_by, event.reason, event.occurred_at)


def erase_archived(
    store: ArchiveStore,
    erased: Sequence[ContentErased],
    topics: Iterable[str],
    partitions: frozenset[int] | None,
    rows: Rows,
) -> int:
    """Rewrite the files (of these topics and partitions) holding what any of ``erased`` names, their rows
    built by ``rows`` (``archive.archive_table``); returns how many. Each file is read and written once for
    all of them: a whole bank's erasure (an erasure a session, recorded together) is one batch of hundreds,
    and a rewrite per erasure read and wrote every file that many times (400 sessions: most of a minute)."""
    edit = _combined(erased, rows)
    if edit is None:
        return 0
    wanted = set(topics)
    rewritten = 0
    for topic, partition in store.topic_partitions():
        if topic in wanted and (partitions is None or partition in partitions):
            rewritten += store.rewrite(topic, partition, edit)
    return rewritten


def erase_table(table: pa.Table, erased: Sequence[ContentErased], rows: Rows) -> pa.Table:
    """``table`` (archive rows) with what any of ``erased`` names blanked."""
    edit = _combined(erased, rows)
    edited = None if edit is None else edit(table)
    return table if edited is None else edited


def _combined(erased: Sequence[ContentErased], rows: Rows) -> Callable[[pa.Table], pa.Table | None] | None:
    """One edit for all of ``erased``, each with its own tombstone (who, when, why); None when they name nothing.

    Each row is matched to the erasures that name it in one pass over the table (``_named``), so a batch of
    hundreds (a whole bank) costs a look-up per row, not a scan of the table per erasure and turn."""
    edits = [
        _Edit(event.bank_id, {str(m) for m in event.memory_ids}, set(event.turn_ids), tombstone(event))
        for event in erased
        if event.memory_ids or event.turn_ids
    ]
    if not edits:
        return None
    by_turn: dict[tuple[str, str], list[_Edit]] = {}
    by_memory: dict[tuple[str, str], list[_Edit]] = {}
    for one in edits:
        for turn_id in one.turn_ids:
            by_turn.setdefault((one.bank_id, turn_id), []).append(one)
        for memory_id in one.memory_ids:
            by_memory.setdefault((one.bank_id, memory_id), []).append(one)

    def edit(table: pa.Table) -> pa.Table | None:
        named = _named(table, by_turn, by_memory)
        if not named:
            return None
        at = sorted(named)
        items: list[tuple[Record, Event | None]] = []
        changed = False
        for index, row in zip(at, table.take(pa.array(at, pa.int64())).to_pylist(), strict=True):
            payload, event = row["payload"], None
            for one in named[index]:  # an extraction of turns two erasures name is blanked by both
                payload, event = one.blanked({**row, "payload": payload})
            changed = changed or payload != row["payload"]
            record = Record(row["topic"], row["partition"], row["offset"], row["key"], b"", row["timestamp_ms"])
            items.append((record, event))
        if not changed:
            return None  # already the placeholders (a rebuild read them from the log)
        hit = np.zeros(table.num_rows, dtype=bool)
        hit[at] = True
        kept = table.filter(pa.array(~hit))
        fresh = rows(items).select(kept.schema.names).cast(kept.schema)
        return pa.concat_tables([kept, fresh]).sort_by("offset")

    return edit


def _named(
    table: pa.Table, by_turn: dict[tuple[str, str], list[_Edit]], by_memory: dict[tuple[str, str], list[_Edit]]
) -> dict[int, list[_Edit]]:
    """Row index -> the erasures naming the row: a turn's events by turn id (an extraction by any of its turns,
    found in its payload), a memory's by memory id; each erasure of its own bank."""
    banks = pa.array(sorted({bank for bank, _ in (*by_turn, *by_memory)}), pa.string())
    types = table["type"]
    mine = pc.is_in(table["bank_id"], banks)
    turns = pa.array(sorted({t for _, t in by_turn}), pa.string())
    memories = pa.array(sorted({m for _, m in by_memory}), pa.string())
    candidate = pc.and_(
        mine,
        pc.or_(
            pc.or_(
                pc.and_(pc.is_in(types, pa.array(_TURN_TYPES)), pc.is_in(table["turn_id"], turns)),
                pc.and_(pc.is_in(types, pa.array(_MEMORY_TYPES)), pc.is_in(table["memory_id"], memories)),
            ),
            pc.equal(types, "ExtractionCompleted"),
        ),
    )
    at = np.flatnonzero(pc.fill_null(candidate, False).to_numpy(zero_copy_only=False))
    if not len(at):
        return {}
    found = table.select(["bank_id", "type", "turn_id", "memory_id", "payload"]).take(pa.array(at, pa.int64()))
    named: dict[int, list[_Edit]] = {}
    for index, row in zip(at.tolist(), found.to_pylist(), strict=True):
        bank, kind = row["bank_id"], row["type"]
        edits: list[_Edit] = []
        if kind in _TURN_TYPES:
            edits += by_turn.get((bank, row["turn_id"]), ())
        if kind in _MEMORY_TYPES:
            edits += by_memory.get((bank, row["memory_id"]), ())
        if kind == "ExtractionCompleted":
            for turn_id in dict.fromkeys(_TURN_ID.findall(row["payload"] or "")):
                edits += by_turn.get((bank, turn_id), ())
        if edits:
            named[index] = list(dict.fromkeys(edits))
    return named


class _Edit:
    """One erasure's part: the bank, the memories and turns it names, and its tombstone."""

    def __init__(self, bank_id: str, memory_ids: set[str], turn_ids: set[str], erased: Erased) -> None:
        self.bank_id, self.memory_ids, self.turn_ids, self.erased = bank_id, memory_ids, turn_ids, erased

    def blanked(self, row: Json) -> tuple[str, Event | None]:
        """The row's payload with the erased content blanked, and the event it decodes to."""
        try:
            record = json.loads(row["payload"])
        except ValueError:
            return row["payload"], None
        if not isinstance(record, dict):
            return row["payload"], None
        kind = record.get("type")
        if kind == "TurnRecorded":
            blank(record, TURN_FIELDS, self.erased, 0)
        elif kind == "ExtractionCompleted":
            for extraction in record.get("extractions") or ():
                if (extraction.get("turn") or {}).get("turn_id") in self.turn_ids:
                    blank(extraction["turn"], TURN_FIELDS, self.erased, 0)
                    blank(extraction, ("candidates", "guard"), self.erased, 0)
        elif kind == "MemoryRetained":
            codes = row.get("vector")
            blank(record, MEMORY_FIELDS, self.erased, len(codes) if codes is not None else 0)
        elif kind == "MemoryRestored" and isinstance(revived := record.get("revived"), dict):
            blank(revived, MEMORY_FIELDS, self.erased, _dim(revived.get("vector")))
        elif kind == "CorrectionRequested":
            blank(record, ("text",), self.erased, 0)
        try:
            event = decode(json.dumps(record, ensure_ascii=False).encode("utf-8"))
        except DecodeError:
            return row["payload"], None
        return event.model_dump_json(exclude={"vector"}), event


def _dim(vector: Any) -> int:
    try:
        return vectors.dim(base64.b64decode(vector)) if isinstance(vector, str) else 0
    except (binascii.Error, ValueError):
        return 0
