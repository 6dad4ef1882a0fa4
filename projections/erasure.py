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
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.errors import DecodeError
from hindsight_es.events import ContentErased, Event, decode, vectors
from hindsight_es.events.sealing import MEMORY_FIELDS, TURN_FIELDS, Erased, blank
from hindsight_es.log import Record
from hindsight_es.stores.archive import ArchiveStore

__all__ = ["erase_archived", "erase_table", "tombstone"]

# The events that carry a turn's or a memory's content (``log.sealed``).
_TURN_TYPES = ("TurnRecorded", "ExtractionCompleted")
_MEMORY_TYPES = ("MemoryRetained", "MemoryRestored", "CorrectionRequested")
Json = dict[str, Any]
Rows = Callable[[list[tuple[Record, Event | None]]], pa.Table]  # the archive's rows of decoded records


def tombstone(event: ContentErased) -> Erased:
    """The tombstone the key store gave the erased units (``erase`` destroys them at the event's time)."""
    return Erased(event.occurred_at.astimezone(UTC).isoformat(timespec="seconds"), event.erased_by, event.reason)


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
    """One edit for all of ``erased``, each with its own tombstone (who, when, why); None when they name nothing."""
    edits = [
        _Edit(event.bank_id, {str(m) for m in event.memory_ids}, set(event.turn_ids), tombstone(event), rows)
        for event in erased
        if event.memory_ids or event.turn_ids
    ]
    if not edits:
        return None

    def edit(table: pa.Table) -> pa.Table | None:
        changed = None
        for one in edits:
            edited = one(table if changed is None else changed)
            if edited is not None:
                changed = edited
        return changed

    return edit


class _Edit:
    def __init__(self, bank_id: str, memory_ids: set[str], turn_ids: set[str], erased: Erased, rows: Rows) -> None:
        self.bank_id, self.memory_ids, self.turn_ids, self.erased = bank_id, memory_ids, turn_ids, erased
        self.rows = rows

    def __call__(self, table: pa.Table) -> pa.Table | None:
        hit = _hits(table, self.bank_id, self.memory_ids, self.turn_ids)
        if not pc.any(hit).as_py():
            return None
        rows = table.filter(hit)
        items: list[tuple[Record, Event | None]] = []
        changed = False
        for row in rows.to_pylist():
            payload, event = self._blanked(row)
            changed = changed or payload != row["payload"]
            record = Record(row["topic"], row["partition"], row["offset"], row["key"], b"", row["timestamp_ms"])
            items.append((record, event))
        if not changed:
            return None  # already the placeholders (a rebuild read them from the log)
        kept = table.filter(pc.invert(hit))
        fresh = self.rows(items).select(kept.schema.names).cast(kept.schema)
        return pa.concat_tables([kept, fresh]).sort_by("offset")

    def _blanked(self, row: Json) -> tuple[str, Event | None]:
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


def _hits(table: pa.Table, bank_id: str, memory_ids: set[str], turn_ids: set[str]) -> pa.Array:
    """The rows holding erased content: a turn's events by turn id (an extraction by any of its turns),
    a memory's by memory id."""
    bank = pc.equal(table["bank_id"], bank_id)
    types = table["type"]
    turn = pc.and_(pc.is_in(types, pa.array(_TURN_TYPES)), pc.is_in(table["turn_id"], _strings(turn_ids)))
    memory = pc.and_(pc.is_in(types, pa.array(_MEMORY_TYPES)), pc.is_in(table["memory_id"], _strings(memory_ids)))
    payload = table["payload"]
    extraction = pc.equal(types, "ExtractionCompleted")
    for found in (pc.match_substring(payload, f'"turn_id":"{t}"') for t in sorted(turn_ids)):
        turn = pc.or_(turn, pc.and_(extraction, found))
    return pc.fill_null(pc.and_(bank, pc.or_(turn, memory)), False).combine_chunks()


def _strings(values: set[str]) -> pa.Array:
    return pa.array(sorted(values), pa.string())
