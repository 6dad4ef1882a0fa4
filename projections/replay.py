"""Replays of the log into projection stores: rebuild into a new generation, switch readers to it,
and verify the live stores against a scratch rebuild.

Consumes every topic from offset 0 and produces fresh LanceDB and Parquet stores through the
projections' own ``apply`` (``runner.replay_into``). Events carry the extractor's output and the
vectors, so no extractor and no embedding model is called. Switching is one atomic replace of
``current.json`` (``stores.generations``); the caller holds the ``ServiceLock`` while it switches, so
no projection is still writing the generation being replaced (the CLI takes it).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from hindsight_es.config import ALL_TOPICS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder
from hindsight_es.errors import InvalidInputError
from hindsight_es.events import utcnow
from hindsight_es.log import EventLog, Record, TopicPartition
from hindsight_es.log.sealed import deciding
from hindsight_es.stores import generations, location
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.location import s3_options
from hindsight_es.stores.objects import S3Options, join
from hindsight_es.stores.shards import ShardedLance, create_layout, layout_of, open_hot
from projections import archive_child, fresh
from projections.archive import ArchiveProjection
from projections.digest import NO_BANK, Rows, bank_hashes, digest_rows, first_difference
from projections.fresh import FreshTurns, FreshVectors
from projections.rankings import RankingCheck, rank_banks
from projections.runner import Projection, Select, log_ends, replay_into
from projections.vectors import VectorsProjection
from projections.working_memory import WorkingMemoryProjection

STORES_OF = {"vectors": ("lance",), "archive": ("archive",), "all": ("lance", "archive")}
REBUILD_BATCH = 20_000  # records per read; one LanceDB merge per batch, so fewer is faster
# A rebuild of at least this many records replays the archive of one topic in a child process, beside
# the LanceDB projections (below it, starting the child, ~1 s of imports, costs more than it saves).
WORKER_MIN_RECORDS = 20_000
APART = TOPIC_MEMORIES  # the topic whose archive is replayed in the child
_KEYS = {"memories": ("memory_id",), "turns": ("turn_key",), "archive": ("topic", "partition", "offset")}
_TOPICS_OF = {"memories": (TOPIC_MEMORIES,), "turns": (TOPIC_TURNS,), "archive": ALL_TOPICS}


class Progress(Protocol):
    def start(self, total: int) -> None: ...

    def advance(self, n: int) -> None: ...

    def stage(self, what: str) -> None: ...  # the work after the records are read: it has no count


def open_projections(
    stores: Mapping[str, Any],
    max_text_chars: int,
    *,
    options: S3Options | None = None,
    partitions: Iterable[int] | None = None,
    shard: int | None = None,
    fresh: bool = False,
) -> list[Projection]:
    """The projections writing the given stores (``lance``: vectors and working memory; ``archive``),
    for ``partitions`` (None: all). ``shard``: a new hot store gets one store per partition, this many
    (``stores.shards``); an existing one keeps its layout. ``fresh``: the hot store is new and nothing
    else writes it until ``fresh.finish`` (a rebuild: ``projections.fresh``)."""
    out: list[Projection] = []
    vectors, working = (FreshVectors, FreshTurns) if fresh else (VectorsProjection, WorkingMemoryProjection)
    only = None if partitions is None else frozenset(partitions)
    if "lance" in stores:
        if shard is not None:
            create_layout(stores["lance"], shard, options)
        hot = open_hot(stores["lance"], options, writer=True)
        if isinstance(hot, ShardedLance):
            for p in sorted(only if only is not None else range(hot.partitions)):
                one = hot.for_partition(p)
                out += [vectors(one, frozenset([p])), working(one, max_text_chars, frozenset([p]))]
        else:
            out += [vectors(hot, only), working(hot, max_text_chars, only)]
    if "archive" in stores:
        out.append(ArchiveProjection(ArchiveStore(stores["archive"], options), partitions=only))
    return out


# ------------------------------------------------------------------ rebuild and switch


@dataclass(frozen=True, slots=True)
class Built:
    generation: str
    stores: dict[str, Any]  # store -> its path or s3:// URI
    events: int  # records read from the log (each once, whatever number of projections used it)
    replay_seconds: float
    index_seconds: float


async def rebuild(
    settings: Settings,
    log: EventLog,
    *,
    stores: tuple[str, ...] = ("lance", "archive"),
    bank: str | None = None,
    progress: Progress | None = None,
    batch_size: int = REBUILD_BATCH,
) -> Built:
    """Replay the log into a new generation of ``stores``, indexes included; readers keep the current
    one until ``switch``.

    With ``bank``, only that bank's rows of the LanceDB tables are replayed: the other banks' rows are
    copied from the current store (one snapshot per table) and their records are replayed only past
    where that snapshot stood. The archive is one copy of the log for all banks and is rebuilt whole.

    From ``WORKER_MIN_RECORDS`` records on, the archive of the memories topic is replayed in a child
    process (``projections.archive_child``), beside the LanceDB projections here, which read that topic
    from the child (read and opened once for both).
    """
    if bank is not None and "archive" in stores:
        raise InvalidInputError("a one-bank rebuild covers the LanceDB tables only (--projection vectors)")
    # A generation readers will be switched to: content this key store cannot open stops the rebuild
    # (``MissingKeyError``) instead of going into it as erased, as in every process that projects.
    log = deciding(log)
    options, base = s3_options(settings), location.root(settings)
    live_hot = generations.current(base, options)["lance"]
    layout = layout_of(live_hot, options) or location.shard(settings)
    gen_id, root = generations.new_generation(base)
    paths = {store: join(root, store) for store in stores}
    try:
        select = None
        if bank is not None:
            if layout is not None:
                create_layout(paths["lance"], layout, options)
            select = _copy_other_banks(open_hot(live_hot, options), open_hot(paths["lance"], options), bank)
        whole = bank is None  # a table written from empty (``projections.fresh``), not a copy to merge into
        projections = open_projections(paths, settings.max_text_chars, options=options, shard=layout, fresh=whole)
        until = await log_ends(log, projections)
        if progress:
            progress.start(sum(until.values()))
        started = time.perf_counter()
        apart = "archive" in paths and sum(until.values()) >= WORKER_MIN_RECORDS
        here, child, source = projections, None, log
        if apart:
            # the archive of the memories topic (most of the log, and of the archive's work) in a child
            # process, which relays the records it reads to the LanceDB projections here (read last: the
            # child starts later); the rest of the archive here
            here = [p for p in projections if not isinstance(p, ArchiveProjection)]
            here.append(
                ArchiveProjection(ArchiveStore(paths["archive"], options), tuple(t for t in ALL_TOPICS if t != APART))
            )
            apart_until = {tp: end for tp, end in until.items() if tp[0] == APART}
            relay = any(APART in p.topics for p in here)
            child = await archive_child.start(settings, paths["archive"], APART, apart_until, batch_size, relay=relay)
            source = archive_child.RelayedLog(log, child) if relay else log
        try:
            events = await replay_into(
                source,
                here,
                lag=False,
                until=until,
                select=select,
                batch_size=batch_size,
                progress=progress.advance if progress else None,
                last=APART if child is not None else None,
            )
            if progress:
                progress.stage("writing held rows and positions")
            await fresh.finish(here)
            if child is not None:
                done = await child.finish()
                if not child.relays:  # else read (and counted) here too
                    events += done
                    if progress:
                        progress.advance(done)
        except BaseException:
            if child is not None:  # stop the child before the generation goes
                await child.stop()
            raise
        replayed = time.perf_counter()
        if progress:
            progress.stage("building indexes")
        for projection in here:
            await projection.maintain()
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        raise
    return Built(gen_id, paths, events, replayed - started, time.perf_counter() - replayed)


def _copy_other_banks(source: Any, target: Any, bank: str) -> Select:
    """Copy every other bank's rows (shard by shard); the records to replay are the bank's, and any past
    the snapshot."""
    stood: dict[TopicPartition, int] = {}
    for mine, theirs in zip(source.shards(), target.shards(), strict=True):
        for name in ("memories", "turns"):
            if mine.table(name) is None:
                continue
            rows, positions = mine.snapshot(name)
            stood.update(positions)
            theirs.upsert(name, rows.schema, rows.filter(pc.not_equal(rows["bank_id"], bank)))

    def select(record: Record) -> bool:
        return record.key == bank or record.offset >= stood.get((record.topic, record.partition), 0)

    return select


async def switch(
    settings: Settings, log: EventLog, stores: Mapping[str, Path], *, batch_size: int = REBUILD_BATCH
) -> int:
    """Catch ``stores`` up to the log end, then make them current in one atomic replace; returns the
    records applied on the way. The caller holds the ``ServiceLock``."""
    options = s3_options(settings)
    projections = open_projections(stores, settings.max_text_chars, options=options)
    applied = await replay_into(deciding(log), projections, batch_size=batch_size, lag=False)
    if applied:
        for projection in projections:
            await projection.maintain()
    generations.switch(location.root(settings), stores, options)
    return applied


# ------------------------------------------------------------------ verify


@dataclass(frozen=True, slots=True)
class Check:
    table: str  # memories | turns | archive
    bank: str  # NO_BANK for archived records without one
    live: str  # content hash of the live rows
    rebuilt: str  # content hash of the rebuilt rows
    rows: int

    @property
    def ok(self) -> bool:
        return self.live == self.rebuilt


@dataclass(frozen=True, slots=True)
class Verdict:
    checks: list[Check]
    difference: str | None  # the first difference, named; None when the live stores are exact
    behind: dict[str, int]  # table -> records the live store has not projected yet (lag, not a difference)
    damaged: dict[str, str] = field(default_factory=dict)  # live archive file -> why it fails its check
    rankings: list[RankingCheck] = field(default_factory=list)  # probe queries, live vs rebuilt top ids
    rankings_skipped: str | None = None  # why no ranking was compared

    @property
    def ok(self) -> bool:
        return self.difference is None


@dataclass(frozen=True, slots=True)
class _Snapshot:
    rows: Rows
    positions: dict[TopicPartition, int]


async def verify(
    settings: Settings,
    log: EventLog,
    *,
    bank: str | None = None,
    progress: Progress | None = None,
    embedder: Embedder | None = None,
) -> Verdict:
    """Rebuild into a scratch directory up to where the live stores stand, and compare per-bank
    content hashes of every table, then the rankings of probe queries (``rankings``, with ``embedder``
    or the settings' one); names the first difference. Live positions must lie within the log."""
    scratch = generations.scratch_dir(settings.data_dir, read_only=settings.read_only)
    try:
        now = utcnow()
        live = _snapshot(location.current(settings), bank, s3_options(settings))
        ends = {(t, p): e for t in ALL_TOPICS for p, e in (await log.end_offsets(t)).items()}
        # Each table is rebuilt to where it stands: the turns table also follows the memories topic and may
        # stand elsewhere on it than the memories table (one map for both compared one of them early).
        until_of = {name: _within(live[name].positions, ends) for name in ("memories", "turns", "archive")}
        if progress:
            progress.start(sum(sum(until.values()) for until in until_of.values()))
        select: Select | None = (lambda record: record.key == bank) if bank is not None else None
        stores = {store: scratch / store for store in generations.STORES}
        for store in ("lance", "archive"):
            projections = open_projections({store: stores[store]}, settings.max_text_chars, fresh=True)
            for table in dict.fromkeys(map(_table_of, projections)):  # one read of the log per table
                await replay_into(
                    log,
                    [p for p in projections if _table_of(p) == table],
                    until=until_of[table],
                    select=select,
                    batch_size=REBUILD_BATCH,
                    progress=progress.advance if progress else None,
                    lag=False,
                )
            await fresh.finish(projections)
        verdict = _compare(live, _snapshot(stores, bank), ends, bank)
        if verdict.difference is None:
            verdict = await _rank(settings, verdict, stores["lance"], live, embedder, now)
        damaged = ArchiveStore(location.current(settings)["archive"], s3_options(settings)).damaged()
        if not damaged:
            return verdict
        key, why = next(iter(sorted(damaged.items())))
        named = f"archive file {key} is damaged ({why}); reads skip it, `replay rebuild` writes it again from the log"
        return Verdict(verdict.checks, named, verdict.behind, damaged, verdict.rankings, verdict.rankings_skipped)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


async def _rank(
    settings: Settings,
    verdict: Verdict,
    scratch: Path,
    live: dict[str, _Snapshot],
    embedder: Embedder | None,
    now: datetime,
) -> Verdict:
    """``verdict`` with the rankings compared; the first ranking difference is its difference."""
    banks = sorted({c.bank for c in verdict.checks if c.table == "memories" and c.bank != NO_BANK and c.rows})
    checks, skipped = await rank_banks(settings, banks, scratch, live["memories"].positions, embedder, now)
    difference = next((c.difference() for c in checks if not c.ok), None)
    return Verdict(verdict.checks, difference, verdict.behind, verdict.damaged, checks, skipped)


_TABLES = {"vectors": "memories", "working_memory": "turns", "archive": "archive"}  # projection -> ``_snapshot``'s name


def _table_of(projection: Projection) -> str:
    """The table a projection of ``open_projections`` writes (one not listed here is an error)."""
    return _TABLES[projection.name]


def _within(until: dict[TopicPartition, int], ends: dict[TopicPartition, int]) -> dict[TopicPartition, int]:
    return {tp: min(position, ends.get(tp, 0)) for tp, position in until.items()}


def _snapshot(stores: Mapping[str, Any], bank: str | None, options: S3Options | None = None) -> dict[str, _Snapshot]:
    out: dict[str, _Snapshot] = {}
    lance = open_hot(stores["lance"], options)
    for name in ("memories", "turns"):
        if lance.table(name) is None:
            out[name] = _Snapshot(digest_rows(pa.table({}), ()), {})
            continue
        rows, positions = lance.snapshot(name)
        if bank is not None:
            rows = rows.filter(pc.equal(rows["bank_id"], bank))
        out[name] = _Snapshot(digest_rows(rows, _KEYS[name]), positions)
    archive = ArchiveStore(stores["archive"], options)
    positions = archive.positions()
    data = archive.table(bank)
    # Rows past the positions read a moment ago are the live projection moving on: not compared.
    below = [
        o < positions.get((t, p), 0)
        for t, p, o in zip(
            data["topic"].to_pylist(), data["partition"].to_pylist(), data["offset"].to_pylist(), strict=True
        )
    ]
    out["archive"] = _Snapshot(digest_rows(data.filter(pa.array(below, pa.bool_())), _KEYS["archive"]), positions)
    return out


def _compare(
    live: dict[str, _Snapshot], rebuilt: dict[str, _Snapshot], ends: dict[TopicPartition, int], bank: str | None
) -> Verdict:
    checks: list[Check] = []
    difference: str | None = None
    behind: dict[str, int] = {}
    for name, snapshot in live.items():
        for (topic, partition), position in sorted(snapshot.positions.items()):
            end = ends.get((topic, partition), 0)
            if position > end and difference is None:
                difference = (
                    f"{name}: the live position {topic}[{partition}] = {position} is past the log end "
                    f"{end}: the store was not projected from this log"
                )
        behind[name] = sum(
            max(0, end - snapshot.positions.get(tp, 0)) for tp, end in ends.items() if tp[0] in _TOPICS_OF[name]
        )
        mine, theirs = bank_hashes(snapshot.rows), bank_hashes(rebuilt[name].rows)
        for each in sorted(mine.keys() | theirs.keys()) if bank is None else [bank]:
            a, b = mine.get(each, ("", 0)), theirs.get(each, ("", 0))
            checks.append(Check(name, each, a[0], b[0], max(a[1], b[1])))
            if a[0] != b[0] and difference is None:
                where = f"bank {each!r}" if each != NO_BANK else "records without a bank"
                difference = f"{name}, {where}: " + (first_difference(snapshot.rows, rebuilt[name].rows, each) or "?")
    return Verdict(checks, difference, behind)
