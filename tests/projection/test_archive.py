"""Archive projection over real Parquet files and real DuckDB: idempotence, resume, lineage, search."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

import numpy as np
import pytest

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.events import (
    Event,
    ForgetRequested,
    MemoryArchived,
    MemoryForgotten,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    SourceRetracted,
    TurnRecorded,
    encode,
)
from hindsight_es.log import Record
from hindsight_es.stores.archive import UNDECODABLE, ArchiveStore
from projections.archive import ArchiveProjection

BANK = "alice"
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
NS = UUID("00000000-0000-0000-0000-00000000a5c1")


def mid(name: str) -> UUID:
    return uuid5(NS, name)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def vec(*values: float) -> np.ndarray:
    out = np.zeros(8, dtype=np.float32)
    out[: len(values)] = values
    return out


def turn(turn_id: str, minute: int, text: str, session: str = "s1", bank: str = BANK) -> TurnRecorded:
    return TurnRecorded(
        bank_id=bank, session_id=session, turn_id=turn_id, text=text, speaker="Alice", occurred_at=at(minute)
    )


def retained(
    name: str,
    minute: int,
    text: str,
    turns: tuple[str, ...],
    vector: np.ndarray,
    session: str | None = "s1",
    bank: str = BANK,
) -> MemoryRetained:
    return MemoryRetained(
        bank_id=bank,
        memory_id=mid(name),
        kind="fact",
        text=text,
        source_turn_ids=turns,
        session_id=session,
        valid_from=at(minute),
        occurred_at=at(minute),
        vector=vector,
        embedder="test-8d",
        extractor="rules",
        actor="bank-actor",
    )


class Log:
    """Assigns offsets per (topic, partition) like the event log, and keeps the records."""

    def __init__(self) -> None:
        self.records: list[tuple[Record, Event | None]] = []
        self._next: dict[tuple[str, int], int] = {}

    def add(self, topic: str, event: Event | None, raw: bytes = b"", partition: int = 0) -> Record:
        offset = self._next.get((topic, partition), 0)
        self._next[(topic, partition)] = offset + 1
        value = encode(event) if event is not None else raw
        key = event.bank_id if event is not None else None
        record = Record(topic, partition, offset, key, value, 1_740_000_000_000 + len(self.records))
        self.records.append((record, event))
        return record


def history() -> Log:
    """Two sessions; m1 (from t1) superseded by m2 (from t2), t2 retracted so m1 comes back, then
    m1 forgotten and restored; m3 from session s2 archived; a command; a poisoned dead letter."""
    log = Log()
    log.add(TOPIC_TURNS, turn("t1", 0, "I live in Berlin"))
    log.add(TOPIC_TURNS, turn("t1", 0, "someone else's t1", bank="bob"))
    log.add(TOPIC_MEMORIES, retained("m1", 1, "Alice lives in Berlin", ("t1",), vec(1, 0)))
    log.add(TOPIC_TURNS, turn("t2", 5, "I moved to Paris"))
    log.add(TOPIC_MEMORIES, retained("m2", 6, "Alice lives in Paris", ("t2",), vec(0, 1)))
    log.add(
        TOPIC_MEMORIES,
        MemorySuperseded(bank_id=BANK, memory_id=mid("m1"), superseded_by=mid("m2"), valid_to=at(6), occurred_at=at(6)),
    )
    log.add(TOPIC_TURNS, turn("t3", 10, "I play the cello", session="s2"))
    log.add(TOPIC_MEMORIES, retained("m3", 11, "Alice plays the cello", ("t3",), vec(0, 0, 1), session=None))
    log.add(
        TOPIC_MEMORIES,
        SourceRetracted(
            bank_id=BANK,
            turn_ids=("t2",),
            retracted_memory_ids=(mid("m2"),),
            restored_memory_ids=(mid("m1"),),
            occurred_at=at(20),
        ),
    )
    log.add(TOPIC_COMMANDS, ForgetRequested(bank_id=BANK, memory_ids=(mid("m1"),), occurred_at=at(21)))
    log.add(TOPIC_MEMORIES, MemoryForgotten(bank_id=BANK, memory_id=mid("m1"), occurred_at=at(22)))
    log.add(TOPIC_MEMORIES, MemoryRestored(bank_id=BANK, memory_id=mid("m1"), occurred_at=at(23)))
    log.add(TOPIC_MEMORIES, MemoryArchived(bank_id=BANK, memory_id=mid("m3"), occurred_at=at(30)))
    log.add(TOPIC_DEAD_LETTER, None, raw=b"\xff\xfe not an event", partition=1)
    log.add(TOPIC_DEAD_LETTER, None, raw=b'{"type": "NoSuchEvent"}', partition=1)
    return log


def files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.parquet"))


@pytest.fixture
def store(tmp_path: Path) -> ArchiveStore:
    return ArchiveStore(tmp_path / "archive")


async def test_apply_twice_equals_once(store: ArchiveStore) -> None:
    log, projection = history(), ArchiveProjection(store)
    await projection.apply(log.records)
    once, once_files = store.table_rows(), files(store.root)
    await projection.apply(log.records)
    await ArchiveProjection(ArchiveStore(store.root)).apply(log.records)  # a restarted process too
    assert store.table_rows() == once
    assert files(store.root) == once_files
    assert len(once) == len(log.records)


async def test_one_file_per_topic_partition_named_by_offsets(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    assert files(store.root) == [
        f"events/topic={TOPIC_COMMANDS}/partition=0/{0:020d}-{0:020d}.parquet",
        f"events/topic={TOPIC_DEAD_LETTER}/partition=1/{0:020d}-{1:020d}.parquet",
        f"events/topic={TOPIC_MEMORIES}/partition=0/{0:020d}-{7:020d}.parquet",
        f"events/topic={TOPIC_TURNS}/partition=0/{0:020d}-{3:020d}.parquet",
    ]


async def test_positions_come_from_file_names_and_resume(tmp_path: Path) -> None:
    log = history()
    live = ArchiveStore(tmp_path / "live")
    await ArchiveProjection(live).apply(log.records[:6])
    # A new process knows where to resume from the files alone.
    assert await ArchiveProjection(ArchiveStore(live.root)).positions() == {(TOPIC_TURNS, 0): 3, (TOPIC_MEMORIES, 0): 3}
    # Redelivery overlapping what is archived: only the new offsets land, in a file starting at the position.
    resumed = ArchiveStore(live.root)
    await ArchiveProjection(resumed).apply(log.records[3:])
    assert f"events/topic={TOPIC_MEMORIES}/partition=0/{3:020d}-{7:020d}.parquet" in files(live.root)
    rebuilt = ArchiveStore(tmp_path / "rebuilt")
    await ArchiveProjection(rebuilt).apply(log.records)
    assert resumed.table_rows() == rebuilt.table_rows()
    assert (
        resumed.positions()
        == rebuilt.positions()
        == {(TOPIC_TURNS, 0): 4, (TOPIC_MEMORIES, 0): 8, (TOPIC_COMMANDS, 0): 1, (TOPIC_DEAD_LETTER, 1): 2}
    )


def test_write_drops_rows_below_the_position(store: ArchiveStore) -> None:
    rows = [{"topic": TOPIC_TURNS, "partition": 0, "offset": n, "payload": f"r{n}"} for n in range(8)]
    assert store.write(rows[:5], TOPIC_TURNS, 0, 0, 4) is not None
    assert store.write(rows[:5], TOPIC_TURNS, 0, 0, 4) is None
    path = store.write(rows[3:], TOPIC_TURNS, 0, 3, 7)
    assert path is not None and path.name == f"{5:020d}-{7:020d}.parquet"
    assert [r["payload"] for r in store.table_rows()] == [f"r{n}" for n in range(8)]
    with pytest.raises(ValueError):
        store.write(rows[:2], TOPIC_TURNS, 0, 1, 1)


async def test_undecodable_records_are_stored(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    dead = [r for r in store.table_rows() if r["topic"] == TOPIC_DEAD_LETTER]
    assert [(r["offset"], r["type"], r["bank_id"]) for r in dead] == [(0, None, None), (1, None, None)]
    assert dead[0]["payload"] == "base64://4gbm90IGFuIGV2ZW50"  # not UTF-8: kept byte for byte
    assert dead[1]["payload"] == '{"type": "NoSuchEvent"}'
    assert store.counts()[UNDECODABLE] == 2
    assert UNDECODABLE not in store.counts(BANK)


async def test_rows_have_typed_columns_and_vectors_only_in_their_column(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    m1 = next(r for r in store.table_rows(BANK) if r["type"] == "MemoryRetained" and r["memory_id"] == str(mid("m1")))
    assert m1["vector"] == [127, 0, 0, 0, 0, 0, 0, 0]  # its int8 codes (vectors.codes)
    assert m1["source_turn_ids"] == ["t1"] and m1["occurred_at"] == at(1) and m1["kind"] == "fact"
    assert '"vector"' not in m1["payload"] and '"embedder":"test-8d"' in m1["payload"]
    retraction = next(r for r in store.table_rows(BANK) if r["type"] == "SourceRetracted")
    assert retraction["memory_id"] is None
    assert retraction["retracted_memory_ids"] == [str(mid("m2"))]
    assert retraction["restored_memory_ids"] == [str(mid("m1"))]


async def test_lineage_of_a_superseded_then_restored_memory(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    lineage = store.lineage(BANK, mid("m1"))
    assert lineage["retained"]["text"] == "Alice lives in Berlin"
    assert lineage["status"] == "active"
    turns = [
        (t["turn_id"], t["text"], t["session_id"], t["speaker"], t["occurred_at"]) for t in lineage["source_turns"]
    ]
    assert turns == [("t1", "I live in Berlin", "s1", "Alice", at(0))]  # bob's t1 is another bank's
    assert [e["type"] for e in lineage["events"]] == [
        "MemoryRetained",
        "MemorySuperseded",
        "SourceRetracted",
        "MemoryForgotten",
        "MemoryRestored",
    ]
    # The links as they stand: m2 replaced m1 until it was retracted, and replaces nothing now (the events
    # keep the supersession); a link to a memory that does not replace it now drew a wrong chain
    assert lineage["superseded_by"] == []
    assert lineage["supersedes"] == []
    assert store.lineage(None, mid("m1"))["events"] == lineage["events"]

    newer = store.lineage(BANK, mid("m2"))
    assert newer["status"] == "retracted"
    assert [t["text"] for t in newer["source_turns"]] == ["I moved to Paris"]
    assert newer["supersedes"] == []
    assert [e["type"] for e in newer["events"]] == ["MemoryRetained", "MemorySuperseded", "SourceRetracted"]


async def test_events_filters(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    everything = store.events(BANK)
    assert len(everything) == 12
    assert [e["occurred_at"] for e in everything] == sorted(e["occurred_at"] for e in everything)
    assert [e["turn_id"] for e in store.events(BANK, types=["TurnRecorded"])] == ["t1", "t2", "t3"]
    assert [e["type"] for e in store.events(BANK, memory_id=mid("m3"))] == ["MemoryRetained", "MemoryArchived"]
    assert [e["text"] for e in store.events(BANK, session_id="s2")] == ["I play the cello"]
    window = store.events(BANK, since=at(20), until=at(23), limit=2)
    assert [e["type"] for e in window] == ["SourceRetracted", "ForgetRequested"]
    assert store.events("nobody") == []


async def test_session_memories(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    s1 = store.session_memories(BANK, "s1")
    assert [(m["text"], m["status"]) for m in s1] == [
        ("Alice lives in Berlin", "active"),
        ("Alice lives in Paris", "retracted"),
    ]
    # m3 has no session_id of its own: it belongs to s2 through its source turn.
    s2 = store.session_memories(BANK, "s2")
    assert [(m["text"], m["status"]) for m in s2] == [("Alice plays the cello", "archived")]
    assert store.session_memories(BANK, "s9") == []


async def test_counts(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    assert store.counts(BANK) == {
        "ForgetRequested": 1,
        "MemoryArchived": 1,
        "MemoryForgotten": 1,
        "MemoryRestored": 1,
        "MemoryRetained": 3,
        "MemorySuperseded": 1,
        "SourceRetracted": 1,
        "TurnRecorded": 3,
    }
    assert store.counts("bob") == {"TurnRecorded": 1}
    assert sum(store.counts().values()) == 15


async def test_search_archived_finds_the_nearest_vector_whatever_its_status(store: ArchiveStore) -> None:
    await ArchiveProjection(store).apply(history().records)
    hits = store.search_archived(BANK, vec(0.1, 0.2, 0.9).tolist(), limit=2)
    assert [(h["text"], h["status"]) for h in hits] == [
        ("Alice plays the cello", "archived"),
        ("Alice lives in Paris", "retracted"),
    ]
    assert hits[0]["score"] > hits[1]["score"]
    assert store.search_archived(BANK, vec(1).tolist(), 5, embedder="other-model") == []
    # A compatible id list (vector_space) matches vectors of any of its ids.
    assert len(store.search_archived(BANK, vec(1).tolist(), 5, embedder=["other-model", "test-8d"])) == 3
    cold = store.search_cold(BANK, vec(1).tolist(), 5, embedder=("new-model", "test-8d"))
    assert [h["text"] for h in cold] == ["Alice plays the cello"]
    assert store.search_cold(BANK, vec(1).tolist(), 5, embedder=("new-model",)) == []
    assert store.search_archived("bob", vec(1).tolist(), 5) == []


async def test_compaction_keeps_rows_and_positions(store: ArchiveStore) -> None:
    log, projection = history(), ArchiveProjection(store)
    for start in range(0, len(log.records), 2):  # many small files
        await projection.apply(log.records[start : start + 2])
    before_rows, before_positions = store.table_rows(), store.positions()
    memory_dir = store.root / "events" / f"topic={TOPIC_MEMORIES}" / "partition=0"
    parts = {p.name: p.read_bytes() for p in memory_dir.iterdir()}
    assert len(parts) > 2

    assert store.compact_all() > 0
    assert [p.name for p in memory_dir.iterdir()] == [f"{0:020d}-{7:020d}.parquet"]
    assert store.table_rows() == before_rows
    assert ArchiveStore(store.root).positions() == before_positions

    for name, data in parts.items():  # a compaction that crashed before deleting its parts
        (memory_dir / name).write_bytes(data)
    assert store.table_rows() == before_rows
    assert store.lineage(BANK, mid("m1"))["events"] == ArchiveStore(store.root).lineage(BANK, mid("m1"))["events"]
    assert store.compact(TOPIC_MEMORIES, 0) == len(parts)
    assert store.table_rows() == before_rows and ArchiveStore(store.root).positions() == before_positions


def test_empty_archive_queries_return_nothing(store: ArchiveStore) -> None:
    assert store.positions() == {}
    assert store.events(BANK) == []
    assert store.table_rows() == []
    assert store.counts() == {}
    assert store.session_memories(BANK, "s1") == []
    assert store.search_archived(BANK, vec(1).tolist(), 5) == []
    lineage = store.lineage(BANK, mid("m1"))
    assert lineage["retained"] is None and lineage["events"] == lineage["source_turns"] == []
    assert store.compact_all() == 0


async def test_a_missing_memory_in_a_full_archive_has_an_empty_lineage(tmp_path: Path) -> None:
    store = ArchiveStore(tmp_path / "a")
    await ArchiveProjection(store).apply(history().records)
    lineage = store.lineage(None, mid("nope"))
    assert lineage["retained"] is None and lineage["events"] == [] and lineage["supersedes"] == []
    shutil.rmtree(store.root / "events")
    assert store.events(BANK) == []


async def test_on_object_storage_the_archive_reads_writes_and_compacts_like_on_disk(
    s3_server: dict[str, str], s3_options: Any, tmp_path: Path
) -> None:
    options = s3_options
    remote = ArchiveStore(f"{s3_server['stores_uri']}/archive-{tmp_path.name}", options)
    local = ArchiveStore(tmp_path / "archive")
    log = history()
    for store in (remote, local):
        projection = ArchiveProjection(store)
        for start in range(0, len(log.records), 2):  # many small objects
            await projection.apply(log.records[start : start + 2])
    assert remote.table_rows() == local.table_rows() and remote.positions() == local.positions()
    assert remote.lineage(BANK, mid("m1")) == local.lineage(BANK, mid("m1"))
    objects = [k for k, _ in remote.objects.list("events/") if "/partition=0/" in k and TOPIC_MEMORIES in k]
    assert remote.compact_all() > 0  # merged object written whole, then the parts deleted
    assert [k for k, _ in remote.objects.list("events/") if "/partition=0/" in k and TOPIC_MEMORIES in k] == [
        f"events/topic={TOPIC_MEMORIES}/partition=0/{0:020d}-{7:020d}.parquet"
    ]
    assert len(objects) > 2 and remote.table_rows() == local.table_rows()
    again = ArchiveStore(remote.root, options)  # a reader elsewhere: positions from the object names
    assert again.positions() == local.positions()
    assert again.search_archived(BANK, vec(0, 0, 1), 1)[0]["memory_id"] == str(mid("m3"))


async def test_temp_files_of_a_killed_writer_are_removed_at_start(store: ArchiveStore) -> None:
    """A writer killed (-9) between writing its temp file and the rename leaves ``.<name>.<uuid>.tmp``;
    the next start removes it once it is older than any live write, and keeps a younger one."""
    import os
    import signal
    import subprocess
    import sys
    import time

    log = history()
    await ArchiveProjection(store).apply(log.records)
    data = files(store.root)
    key = "events/topic=hindsight.turns/partition=0/00000000000000000099-00000000000000000099.parquet"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "from hindsight_es.stores.objects import LocalObjects\n"
            "os.replace = lambda *a: (print('written', flush=True), time.sleep(120))\n"
            f"LocalObjects(sys.argv[1]).put({key!r}, b'x' * 100_000)\n",
            str(store.root),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None and writer.stdout.readline().strip() == "written"
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    (left,) = [p for p in store.root.rglob("*.tmp")]
    fresh = left.with_name(f".{left.name.split('.')[1]}.parquet.{'0' * 32}.tmp")
    fresh.write_bytes(b"a live writer's")
    old = time.time() - 3600
    os.utime(left, (old, old))

    await ArchiveProjection(ArchiveStore(store.root)).positions()  # what a (re)started runner reads first
    assert not left.exists() and fresh.exists()
    assert files(store.root) == data and store.table_rows()


@pytest.mark.parametrize("damage", ["overwritten", "truncated"])
async def test_a_damaged_file_is_named_skipped_by_reads_and_listed(
    store: ArchiveStore, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Random bytes over a file's pages (its CRCs catch them) or a truncated file: reads go on without
    it (never serving its rows), a warning names it, ``damaged()`` lists it; the other files are served."""
    import logging

    log = history()
    await ArchiveProjection(store).apply(log.records)
    whole = store.table_rows()
    victim = max(store.root.rglob("*.parquet"), key=lambda p: p.stat().st_size)
    data = bytearray(victim.read_bytes())
    if damage == "truncated":
        victim.write_bytes(bytes(data[: len(data) // 2]))
    else:
        pages_end = len(data) - 8 - int.from_bytes(data[-8:-4], "little")  # where the footer starts
        start = pages_end // 2  # random bytes over the middle of the pages (column data and page headers)
        data[start : start + 256] = np.random.default_rng(7).integers(0, 256, 256, dtype=np.uint8).tobytes()
        victim.write_bytes(bytes(data))
    key = victim.relative_to(store.root).as_posix()

    caplog.set_level(logging.WARNING, logger="hindsight.archive")
    fresh = ArchiveStore(store.root)  # a process that reads it for the first time
    rows = fresh.table_rows()
    assert 0 < len(rows) < len(whole) and all(r in whole for r in rows)
    assert f"archive file {key} is damaged" in caplog.text
    assert list(fresh.damaged()) == [key]


async def test_compaction_leaves_a_large_file_until_the_small_ones_add_up_to_it(store: ArchiveStore) -> None:
    """A steady stream adds small files beside a merged one many times their size: merging them into it
    would rewrite it every pass, so they are merged among themselves until they add up to it."""
    rng = np.random.default_rng(5)
    log = Log()
    for n in range(1000):  # texts that do not compress, so a file's size follows its rows
        log.add(TOPIC_TURNS, turn(f"t{n}", n, rng.bytes(300).hex()))
    projection = ArchiveProjection(store)
    turn_dir = store.root / "events" / f"topic={TOPIC_TURNS}" / "partition=0"
    await projection.apply(log.records[:400])  # one large file
    (large,) = turn_dir.iterdir()
    written = large.stat().st_mtime_ns
    for start in range(400, 432, 2):  # sixteen small ones
        await projection.apply(log.records[start : start + 2])
    before = store.table_rows()

    assert store.compact_all(min_files=2) == 16  # the sixteen became one, the large file untouched
    assert sorted(p.name for p in turn_dir.iterdir()) == [large.name, f"{400:020d}-{431:020d}.parquet"]
    assert large.stat().st_mtime_ns == written
    assert store.table_rows() == before

    end = 432
    while len(list(turn_dir.iterdir())) > 1:  # until the files after it outweigh the large one
        assert large.stat().st_mtime_ns == written and end < 1000
        await projection.apply(log.records[end : end + 8])
        end += 8
        store.compact_all(min_files=2)
    assert [p.name for p in turn_dir.iterdir()] == [f"{0:020d}-{end - 1:020d}.parquet"]
    assert end > 650  # the large file waited for new rows of about its own size
    assert ArchiveStore(store.root).positions()[(TOPIC_TURNS, 0)] == end
