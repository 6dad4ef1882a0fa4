"""Erasure's last step: what the stores derived from erased content goes too (``ContentErased``).

The keys are destroyed first, so the log reads the erased events as placeholders; then the hot tables
drop the rows and every older table version (its data files and indexes still hold them), the archive
rewrites each Parquet file holding such an event with the event as the log now reads it (the
placeholder, exactly what a rebuild would archive), and the bank's partition snapshots taken before the
erasure are deleted (the next load folds the log). Idempotent: run again, it finds nothing more.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.errors import DecodeError
from hindsight_es.events import ContentErased, Event, decode
from hindsight_es.log import EventLog, Record
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import LanceStore, erase_rows
from hindsight_es.stores.snapshots import Snapshots
from projections.archive import archive_table
from projections.working_memory import turn_key

__all__ = ["Purged", "purge"]

# The events that carry a turn's or a memory's content (``log.sealed``).
_TURN_TYPES = ("TurnRecorded", "ExtractionCompleted")
_MEMORY_TYPES = ("MemoryRetained", "MemoryRestored", "CorrectionRequested")


@dataclass
class Purged:
    hot_rows: int = 0
    turn_rows: int = 0
    archive_files: int = 0
    snapshots: int = 0
    sessions: set[tuple[str, str]] = field(default_factory=set)  # (session, turn) of the erased turns


async def purge(
    log: EventLog,
    lance: LanceStore,
    archive: ArchiveStore,
    snapshots: Snapshots | None,
    erased: ContentErased,
    *,
    partition: int,
    offset: int,
) -> Purged:
    """Purge what ``erased`` (at ``offset`` of the bank's memory ``partition``) names from every store."""
    done = Purged()
    memory_ids, turn_ids = {str(m) for m in erased.memory_ids}, set(erased.turn_ids)
    for topic, part in await asyncio.to_thread(archive.topic_partitions):
        done.archive_files += await _rewrite(log, archive, topic, part, erased.bank_id, memory_ids, turn_ids, done)
    store = lance.for_bank(erased.bank_id)
    done.hot_rows = await asyncio.to_thread(erase_rows, store, "memories", sorted(memory_ids))
    keys = sorted(turn_key(erased.bank_id, session, turn) for session, turn in done.sessions)
    done.turn_rows = await asyncio.to_thread(erase_rows, store, "turns", keys)
    if snapshots is not None:
        done.snapshots = await asyncio.to_thread(snapshots.drop_through, partition, offset)
    return done


async def _rewrite(
    log: EventLog,
    archive: ArchiveStore,
    topic: str,
    partition: int,
    bank_id: str,
    memory_ids: set[str],
    turn_ids: set[str],
    done: Purged,
) -> int:
    """Rewrite the topic-partition's files holding the erased events, each as the log reads it now."""
    loop = asyncio.get_running_loop()

    def edit(table: pa.Table) -> pa.Table | None:
        hit = _hits(table, bank_id, memory_ids, turn_ids)
        if not pc.any(hit).as_py():
            return None
        offsets = table.filter(hit).column("offset").to_pylist()
        fresh = asyncio.run_coroutine_threadsafe(_reread(log, topic, partition, offsets), loop).result()
        for _, event in fresh:
            if event is not None and getattr(event, "turn_id", None) in turn_ids:
                done.sessions.add((str(getattr(event, "session_id", "")), str(getattr(event, "turn_id", ""))))
        kept = table.filter(pc.invert(hit))
        return pa.concat_tables([kept, archive_table(fresh).select(kept.schema.names).cast(kept.schema)]).sort_by(
            "offset"
        )

    return await asyncio.to_thread(archive.rewrite, topic, partition, edit)


def _hits(table: pa.Table, bank_id: str, memory_ids: set[str], turn_ids: set[str]) -> pa.Array:
    """The rows holding erased content: a turn's events by turn id (an extraction by any of its turns),
    a memory's by memory id."""
    bank = pc.equal(table["bank_id"], bank_id)
    types = table["type"]
    turn = pc.and_(pc.is_in(types, pa.array(_TURN_TYPES)), pc.is_in(table["turn_id"], _strings(turn_ids)))
    memory = pc.and_(pc.is_in(types, pa.array(_MEMORY_TYPES)), pc.is_in(table["memory_id"], _strings(memory_ids)))
    payload = table["payload"]
    extraction = pc.equal(types, "ExtractionCompleted")
    mentions = [pc.match_substring(payload, f'"turn_id":"{t}"') for t in sorted(turn_ids)]
    for found in mentions:
        turn = pc.or_(turn, pc.and_(extraction, found))
    return pc.fill_null(pc.and_(bank, pc.or_(turn, memory)), False).combine_chunks()


def _strings(values: set[str]) -> pa.Array:
    return pa.array(sorted(values), pa.string())


async def _reread(log: EventLog, topic: str, partition: int, offsets: list[int]) -> list[tuple[Record, Event | None]]:
    out: list[tuple[Record, Event | None]] = []
    for offset in sorted(offsets):
        for record in await log.read(topic, partition, offset, offset + 1, 1):
            try:
                out.append((record, decode(record.value)))
            except DecodeError:
                out.append((record, None))
    return out
