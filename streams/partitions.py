"""The bank actor's state of one partition: loaded when the partition is assigned, dropped when revoked.

Consumes ``hindsight.memories`` (one partition of it), produces nothing but snapshots. The topics share
their partition count and keys, so partition p of the inputs is decided against the fold of partition
p of the memory log. Loading = the newest usable snapshot (``stores.snapshots``) plus the memory
partition's tail past it, read to its end; without a usable snapshot, the whole partition is folded.
A snapshot is used only if the record just below the offset it covers is the event it names, so a
snapshot of another log (topics re-created, a data directory reused) is never taken for this one; and a
snapshot that covers more than the partition holds means the log lost records (``log.lost``): the load
refuses, rather than decide on an empty fold.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.embedding import Embedder
from hindsight_es.embedding.base import vector_space
from hindsight_es.errors import ConfigError
from hindsight_es.events import MemoryRetained, decoded, vectors
from hindsight_es.log import EventLog
from hindsight_es.log.lost import LogLostError, where_of
from hindsight_es.memory import BankState, columnar, columnar_writer, evolve
from hindsight_es.memory.snapshot import Ids, layout, state_from_json
from hindsight_es.stores.snapshots import Snapshots
from hindsight_es.text import plural
from projections.runner import collector_paused
from streams.revival import RetainedIndex

log_ = logging.getLogger("hindsight.partitions")
FOLD_BATCH = 2000
SLOW_LOAD_S = 1.0  # a partition load slower than this is logged at INFO (start-up cost an operator sees)


@dataclass(slots=True)
class Owned:
    """What the actor holds for one partition it owns."""

    partition: int
    banks: dict[str, BankState] = field(default_factory=dict)
    retained: RetainedIndex = field(default_factory=RetainedIndex)
    covered: int = 0  # next offset of the memory partition; everything below it is folded into ``banks``
    last_id: str | None = None  # event id of the record at ``covered - 1``
    embedders: Counter[tuple[str, int]] = field(default_factory=Counter)  # (embedder, dim) -> memories
    unsaved: int = 0  # events folded since the last snapshot
    # An append found the partition's end where this owner left it: from then on a foreign append is
    # caught by that check before each append (``BankActor._still_alone``), not looked for before deciding.
    alone: bool = False
    saved_at: float = field(default_factory=time.monotonic)

    def state(self, bank_id: str) -> BankState:
        if bank_id not in self.banks:
            self.banks[bank_id] = BankState(bank_id)
        return self.banks[bank_id]

    async def fold(self, log: EventLog, end: int) -> int:
        """Fold the memory partition from ``covered`` to ``end``; returns events folded."""
        count = 0
        while self.covered < end:
            records = await log.read(TOPIC_MEMORIES, self.partition, self.covered, end, FOLD_BATCH)
            if not records:
                break
            for record, event in decoded(records):
                evolve(self.state(event.bank_id), event)
                self.retained.note(event, record.offset)
                if isinstance(event, MemoryRetained):
                    self.embedders[(event.embedder, vectors.dim(event.vector))] += 1
                self.last_id = str(event.event_id)
                count += 1
            self.covered = records[-1].offset + 1
        self.unsaved += count
        return count


def _layout() -> dict[str, Any]:
    return {"format": columnar.FORMAT, "memory_fields": list(columnar.FIELDS)}


def to_body(owned: Owned) -> bytes:
    """The partition as a format-4 snapshot (``memory.columnar``). Every bank with retained offsets has a
    state: both are filled from the same events."""
    header = {
        **_layout(),
        "partition": owned.partition,
        "covered": owned.covered,
        "last_id": owned.last_id,
        "embedders": [[e, d, n] for (e, d), n in owned.embedders.items()],
        "banks": [columnar_writer.scalars(s) for s in owned.banks.values()],
    }
    banks = [columnar_writer.tables(s, owned.retained.offsets.get(b, {})) for b, s in owned.banks.items()]
    return columnar.pack(header, banks)


def from_body(body: bytes | dict[str, Any], partition: int) -> Owned:
    """The partition state a snapshot holds: format 4 (bytes), or the JSON of format 3; ``ValueError``
    (or ``KeyError``/``TypeError``) for any other, or one cut short."""
    if isinstance(body, bytes):
        return _from_columns(body, partition)
    if {k: body.get(k) for k in layout()} != layout() or body["partition"] != partition:
        raise ValueError("written by another release (format or memory fields differ)")
    owned = Owned(partition, covered=int(body["covered"]), last_id=body["last_id"])
    owned.embedders = Counter({(e, int(d)): int(n) for e, d, n in body["embedders"]})
    ids = Ids()
    owned.retained.offsets = {b: {ids[m]: int(o) for m, o in rows} for b, rows in body["retained"].items()}
    for bank in body["banks"]:
        state = state_from_json(bank, ids)
        owned.banks[state.bank_id] = state
    return owned


def _from_columns(data: bytes, partition: int) -> Owned:
    header, banks = columnar.unpack(data)
    if {k: header.get(k) for k in _layout()} != _layout() or header["partition"] != partition:
        raise ValueError("written by another release (format or memory fields differ)")
    owned = Owned(partition, covered=int(header["covered"]), last_id=header["last_id"])
    owned.embedders = Counter({(e, int(d)): int(n) for e, d, n in header["embedders"]})
    for head, tables in zip(header["banks"], banks, strict=True):
        try:
            state, retained = columnar.state_from(head, tables)
        except pa.ArrowException as exc:
            raise ValueError(f"bank {head.get('bank_id')!r} does not decode: {exc}") from exc
        owned.banks[state.bank_id] = state
        owned.retained.offsets[state.bank_id] = retained
    return owned


async def _matches(log: EventLog, partition: int, covered: int, last_id: str | None) -> bool:
    """Whether the record at ``covered - 1`` of the memory partition is the event the snapshot names."""
    if covered == 0:
        return last_id is None
    for _, event in decoded(await log.read(TOPIC_MEMORIES, partition, covered - 1, covered, 1)):
        return str(event.event_id) == last_id
    return False


async def load(log: EventLog, partition: int, snapshots: Snapshots | None) -> tuple[Owned, int]:
    """The partition's state folded to the memory log's end now: (state, events folded from the log)."""
    with collector_paused():  # a load builds millions of acyclic objects: nothing for the collector to find
        return await _load(log, partition, snapshots)


async def _load(log: EventLog, partition: int, snapshots: Snapshots | None) -> tuple[Owned, int]:
    # A snapshot covers only what was in the log when it was written, so the log ends at or past the newest
    # one's cover (listed first: one written meanwhile covers no more than the end read next)...
    newest = max(snapshots.covered(partition), default=0) if snapshots is not None else 0
    end = (await log.end_offsets(TOPIC_MEMORIES)).get(partition, 0)
    if end < newest and snapshots is not None:  # ...unless the log lost its records
        where = snapshots.where(partition, newest)
        raise LogLostError(TOPIC_MEMORIES, partition, newest, end, f"the bank actor's snapshot {where}", where_of(log))
    owned = Owned(partition)
    skipped = 0
    for covered, body in snapshots.newest(partition, end) if snapshots is not None else ():
        try:
            candidate = from_body(body, partition)
        except (ValueError, KeyError, TypeError) as exc:
            log_.warning("snapshot of partition %d at %d is not usable (%s): skipped", partition, covered, exc)
            skipped += 1
            continue
        if candidate.covered == covered and await _matches(log, partition, covered, candidate.last_id):
            owned = candidate
            break
        log_.warning("snapshot of partition %d at %d is not of this log: skipped", partition, covered)
        skipped += 1
    from_snapshot = owned.covered
    if skipped and from_snapshot == 0:
        log_.warning(
            "no usable snapshot of partition %d: folding its %s from the log", partition, plural(end, "memory event")
        )
    started = time.monotonic()
    folded = await owned.fold(log, end)
    owned.unsaved = folded
    took = time.monotonic() - started
    # INFO only when it cost the start-up something: every CLI read that drains the log loads its partitions
    log_.log(
        logging.INFO if took >= SLOW_LOAD_S else logging.DEBUG,
        "partition %d loaded in %.1fs: %s, snapshot at offset %d, %s folded from the log",
        partition,
        took,
        plural(len(owned.banks), "bank"),
        from_snapshot,
        plural(folded, "memory event"),
    )
    return owned, folded


def save(owned: Owned, snapshots: Snapshots) -> bool:
    """Write a snapshot of the partition as it stands (blocking: call from a thread while nothing
    changes it); returns whether one was written."""
    if owned.unsaved == 0:
        return False
    with collector_paused():
        body = to_body(owned)
    written = snapshots.write(owned.partition, owned.covered, body)
    snapshots.prune(owned.partition)
    owned.unsaved, owned.saved_at = 0, time.monotonic()
    return written


def check_embedder(found: Counter[tuple[str, int]], settings: Settings, embedder: Embedder) -> None:
    """Raise ``ConfigError`` when the bank's memories in the log (``found``: (embedder id, dimension) ->
    memories) were all embedded by models ``embedder`` cannot compare with (none in its ``vector_space``).

    Their vectors would not fit the table, or would rank against the others meaninglessly, and once
    appended they stay in the log: an actor started with the wrong HINDSIGHT_EMBEDDER stops here, before
    it writes anything. The check reads the actor's own input, the memory log, not a read model.
    """
    if not found or {e for e, _ in found} & set(vector_space(embedder)):
        return
    names = ", ".join(f"{n:,} by {e} ({dim}-d)" for (e, dim), n in found.most_common())
    raise ConfigError(
        f"the memories in the log were embedded by another model ({names}) than this process's {embedder.id} "
        f"({embedder.dim}-d; embedder {settings.embedder!r}, set by HINDSIGHT_EMBEDDER or --embedder): their "
        "vectors do not compare. Run with the embedder the data was written with, or use a new data directory."
    )
