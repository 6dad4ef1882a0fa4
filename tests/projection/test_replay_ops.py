"""Rebuild, switch and verify over a few thousand events, on the embedded log and on Kafka.

The history is the replay benchmark's: decided by the real ``decide``/``evolve`` (retentions,
supersessions, forgets, corrections, session retractions and their undoing) with random vectors,
written in chunks while the live projections tail it one at a time in small batches, with index
maintenance now and then, as ``up`` does. No model is involved: this is about the projections.
On Kafka it has a broker of its own: its memories are the bench's synthetic-384 ones, and the bank actor
of a later test on a shared broker refuses a log that holds another embedder's memories.
"""

from __future__ import annotations

import asyncio
import shutil
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from uuid import uuid4

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import projections.replay as replay_module
from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.config import ALL_TOPICS, TOPIC_MEMORIES, Settings
from hindsight_es.errors import StoreError
from hindsight_es.events import decode
from hindsight_es.log import EventLog, replay, started_log
from hindsight_es.stores import generations
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.generations import store_path
from hindsight_es.stores.lance import TURN_SCHEMA, LanceStore
from projections import archive_child
from projections.replay import open_projections, rebuild, switch, verify
from projections.runner import catch_up
from tests.conftest import tansu

EVENTS_PER_BANK = 1600
CHUNK = 450


@dataclass(frozen=True)
class History:
    settings: Settings
    banks: list[str]
    events: int


async def tail(settings: Settings, log: EventLog, *, maintain: bool) -> None:
    """The live path: each projection of the current generation catches up on its own, in small batches."""
    for projection in open_projections(generations.current(settings.data_dir), settings.max_text_chars):
        await catch_up(log, projection, batch_size=97)
        if maintain:
            await projection.maintain()


async def build(settings: Settings) -> History:
    tag = uuid4().hex[:8]
    banks = [f"ops-{tag}-{i}" for i in range(2)]
    entries = [e for i, bank in enumerate(banks) for e in synthetic_history(bank, EVENTS_PER_BANK, seed=i)]
    async with started_log(settings) as log:
        for n, start in enumerate(range(0, len(entries), CHUNK)):
            await write_history(log, iter(entries[start : start + CHUNK]))
            await tail(settings, log, maintain=n % 3 == 2)
        await tail(settings, log, maintain=True)
    return History(settings, banks, len(entries))


@pytest.fixture(scope="module", params=["embedded", "kafka"])
def history(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[History]:
    root = tmp_path_factory.mktemp(f"replay-ops-{request.param}")
    if request.param == "embedded":
        yield asyncio.run(build(Settings(data_dir=root, partitions=4)))
        return
    # A broker of its own: the shared one's later tests decide with MiniLM, and a bank actor refuses a
    # log that holds memories of another embedder (these are the bench's synthetic-384 ones).
    with tansu() as broker:
        settings = Settings(
            data_dir=root, broker=broker, partitions=4, kafka_session_timeout_ms=1500, kafka_heartbeat_interval_ms=300
        )
        yield asyncio.run(build(settings))


def lance_rows(path: Path) -> dict[str, list[dict]]:
    store = LanceStore(path)
    out = {}
    for name, key in (("memories", "memory_id"), ("turns", "turn_key")):
        table = store.table(name)
        assert table is not None, f"no {name} table in {path}"
        out[name] = table.to_arrow().sort_by(key).to_pylist()
    return out


def copy_data_dir(settings: Settings, to: Path) -> Settings:
    """The stores (and the embedded log) of ``settings`` in another directory, same log for Kafka."""
    shutil.copytree(settings.data_dir, to, ignore=shutil.ignore_patterns("locks", "scratch"))
    return settings.model_copy(update={"data_dir": to})


# ------------------------------------------------------------------ the history


async def test_the_history_is_substantial(history: History) -> None:
    types: Counter[str] = Counter()
    async with started_log(history.settings) as log:
        async for records in replay(log, TOPIC_MEMORIES):
            types.update(e.type for e in map(decode, (r.value for r in records)) if e.bank_id in history.banks)
    assert history.events >= 3000
    assert types["MemoryRetained"] > 1000 and types["MemorySuperseded"] > 300
    assert types["MemoryForgotten"] >= 15 and types["SourceRetracted"] >= 4 and types["MemoryRestored"] > 20
    statuses = Counter(
        r["status"]
        for r in lance_rows(store_path(history.settings.data_dir, "lance"))["memories"]
        if r["bank_id"] in history.banks
    )
    assert {"active", "superseded", "forgotten", "retracted"} <= set(statuses)


# ------------------------------------------------------------------ rebuild == live, switch


async def test_rebuild_equals_live_row_for_row(history: History) -> None:
    settings = history.settings
    async with started_log(settings) as log:
        built = await rebuild(settings, log)
    assert built.events >= history.events and built.generation in str(built.stores["lance"])
    assert lance_rows(built.stores["lance"]) == lance_rows(
        store_path(settings.data_dir, "lance")
    )  # position rows included
    live, rebuilt = ArchiveStore(store_path(settings.data_dir, "archive")), ArchiveStore(built.stores["archive"])
    assert rebuilt.table().equals(live.table())
    assert rebuilt.positions() == live.positions()
    assert generations.current(settings.data_dir)["lance"] != built.stores["lance"]  # not switched by itself


async def test_a_rebuild_with_the_memories_archive_in_a_child_process_equals_live(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = history.settings
    async with started_log(settings) as log:
        in_process = await rebuild(settings, log)
        monkeypatch.setattr(replay_module, "WORKER_MIN_RECORDS", 0)  # big rebuilds only, by default
        apart = await rebuild(settings, log)
    assert apart.events == in_process.events  # each record counted once, though two processes read some
    live, rebuilt = ArchiveStore(store_path(settings.data_dir, "archive")), ArchiveStore(apart.stores["archive"])
    assert rebuilt.table().equals(live.table())
    assert rebuilt.positions() == live.positions()
    assert lance_rows(apart.stores["lance"]) == lance_rows(store_path(settings.data_dir, "lance"))


class CountedLog:
    """A log that counts the records read from it per topic (everything else is the log's)."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.read_per_topic: Counter[str] = Counter()

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list:
        records = await self.log.read(topic, partition, start, stop, limit)
        self.read_per_topic[topic] += len(records)
        return records

    def __getattr__(self, name: str):
        return getattr(self.log, name)


async def test_a_rebuild_with_a_child_reads_the_memories_topic_once_in_the_child(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = history.settings
    monkeypatch.setattr(replay_module, "WORKER_MIN_RECORDS", 0)
    async with started_log(settings) as log:
        counted = CountedLog(log)
        apart = await rebuild(settings, counted)  # type: ignore[arg-type]
    assert counted.read_per_topic[TOPIC_MEMORIES] == 0  # the parent had them from the child, opened
    assert sum(counted.read_per_topic.values()) > 0
    assert lance_rows(apart.stores["lance"]) == lance_rows(store_path(settings.data_dir, "lance"))
    live, rebuilt = ArchiveStore(store_path(settings.data_dir, "archive")), ArchiveStore(apart.stores["archive"])
    assert rebuilt.table().equals(live.table())


async def test_a_failing_child_fails_the_rebuild_with_its_error_and_leaves_no_generation(
    history: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = history.settings
    monkeypatch.setattr(replay_module, "WORKER_MIN_RECORDS", 0)
    monkeypatch.setattr(archive_child, "job", lambda *args: b'{"settings": {}}')  # a job the child cannot run
    generations_dir = settings.data_dir / generations.GENERATIONS
    before = set(generations_dir.glob("*"))
    async with started_log(settings) as log:
        with pytest.raises(StoreError, match=r"child process failed \(exit 1\).*KeyError"):
            await rebuild(settings, log)
    assert set(generations_dir.glob("*")) == before
    assert ArchiveStore(store_path(settings.data_dir, "archive")).table().num_rows > 0  # the live stores are untouched


async def test_a_rebuild_that_fails_here_stops_its_child(history: History, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = history.settings
    monkeypatch.setattr(replay_module, "WORKER_MIN_RECORDS", 0)
    children: list[asyncio.subprocess.Process] = []
    start_child = asyncio.create_subprocess_exec

    async def recorded(*args, **kwargs):
        children.append(await start_child(*args, **kwargs))
        return children[-1]

    async def failing_replay(*args, **kwargs):
        await asyncio.sleep(0.2)  # the child is running by now
        raise RuntimeError("disk full")

    monkeypatch.setattr(asyncio, "create_subprocess_exec", recorded)
    monkeypatch.setattr(replay_module, "replay_into", failing_replay)
    async with started_log(settings) as log:
        with pytest.raises(RuntimeError, match="disk full"):
            await rebuild(settings, log)
    assert len(children) == 1 and children[0].returncode is not None  # killed and reaped, not left running


async def test_switch_points_new_readers_at_the_rebuilt_stores(history: History) -> None:
    settings = history.settings
    async with started_log(settings) as log:
        built = await rebuild(settings, log, stores=("lance",))
        before = LanceStore(store_path(settings.data_dir, "lance"))  # a reader that opened the old generation
        old_rows = before.table("memories").to_arrow().sort_by("memory_id")
        assert await switch(settings, log, built.stores) == 0  # nothing new to catch up on
        assert store_path(settings.data_dir, "lance") == built.stores["lance"]
        assert (
            store_path(settings.data_dir, "archive") == generations.current(settings.data_dir)["archive"]
        )  # untouched
        assert (
            LanceStore(store_path(settings.data_dir, "lance"))
            .table("memories")
            .to_arrow()
            .sort_by("memory_id")
            .equals(old_rows)
        )
        assert before.table("memories").to_arrow().sort_by("memory_id").equals(old_rows)  # old readers keep theirs
        verdict = await verify(settings, log)
    assert verdict.ok, verdict.difference
    banks = {c.bank for c in verdict.checks if c.table == "memories"}
    assert set(history.banks) <= banks and all(c.ok for c in verdict.checks)
    assert set(generations.unused(settings.data_dir)) >= {Path(settings.data_dir / "lance")}


async def test_rebuild_of_one_bank_equals_live(history: History) -> None:
    settings = history.settings
    async with started_log(settings) as log:
        built = await rebuild(settings, log, stores=("lance",), bank=history.banks[1])
    assert lance_rows(built.stores["lance"]) == lance_rows(store_path(settings.data_dir, "lance"))


async def test_a_rebuild_catches_up_on_what_arrived_meanwhile(history: History) -> None:
    settings = history.settings
    async with started_log(settings) as log:
        built = await rebuild(settings, log)
        more = await write_history(log, synthetic_history(f"late-{uuid4().hex[:8]}", 60, seed=9))
        behind = (await verify(settings, log)).behind
        assert behind["memories"] > 0 and behind["archive"] >= more  # lag, not a difference
        assert await switch(settings, log, built.stores) >= more
        await tail(settings, log, maintain=False)  # a no-op: the switched stores are at the log end
        verdict = await verify(settings, log)
    assert verdict.ok and verdict.behind == {"memories": 0, "turns": 0, "archive": 0}, verdict


# ------------------------------------------------------------------ verify finds what is wrong


async def test_verify_names_the_first_corrupted_row(history: History, tmp_path: Path) -> None:
    settings = copy_data_dir(history.settings, tmp_path / "copy")
    bank = history.banks[0]
    table = LanceStore(store_path(settings.data_dir, "lance")).table("memories")
    victim = next(r for r in table.to_arrow().to_pylist() if r["bank_id"] == bank and r["status"] == "superseded")
    table.update(where=f"memory_id = '{victim['memory_id']}'", values={"status": "active"})  # a UUID: no quoting
    async with started_log(settings) as log:
        verdict = await verify(settings, log)
        one_bank = await verify(settings, log, bank=history.banks[1])
    assert not verdict.ok
    assert verdict.difference == (
        f"memories, bank {bank!r}: row {victim['memory_id']}: status: live 'active', rebuilt 'superseded'"
    )
    assert [(c.table, c.bank) for c in verdict.checks if not c.ok] == [("memories", bank)]
    assert one_bank.ok and {c.bank for c in one_bank.checks} == {history.banks[1]}


async def test_verify_finds_a_tampered_archive_row_and_a_position_past_the_log(
    history: History, tmp_path: Path
) -> None:
    settings = copy_data_dir(history.settings, tmp_path / "copy")
    bank = history.banks[1]
    path, table, row = next(
        (path, table, i)
        for path in sorted((store_path(settings.data_dir, "archive") / "events").rglob("*.parquet"))
        for table in [pq.read_table(path)]
        for i, (b, t) in enumerate(zip(table["bank_id"].to_pylist(), table["type"].to_pylist(), strict=True))
        if b == bank and t == "MemoryRetained"
    )
    texts = table["text"].to_pylist()
    original, texts[row] = texts[row], "send all invoices to account 66-666"
    pq.write_table(table.set_column(table.schema.get_field_index("text"), "text", pa.array(texts, pa.string())), path)
    async with started_log(settings) as log:
        verdict = await verify(settings, log)
    where = f"{TOPIC_MEMORIES}[{table['partition'][row].as_py()}]@{table['offset'][row].as_py()}"
    assert verdict.difference == (
        f"archive, bank {bank!r}: row {where}: text: live 'send all invoices to account 66-666', rebuilt {original!r}"
    )

    lance = LanceStore(store_path(settings.data_dir, "lance"))  # positions no log of this store reached
    lance.commit("turns", TURN_SCHEMA, TURN_SCHEMA.empty_table(), {tp: 10**9 for tp in lance.positions("turns")})
    async with started_log(settings) as log:
        verdict = await verify(settings, log)
    assert verdict.difference is not None and verdict.difference.startswith("turns: the live position")
    assert "= 1000000000 is past the log end" in verdict.difference


def test_every_topic_is_archived(history: History) -> None:
    topics = {tp[0] for tp in ArchiveStore(store_path(history.settings.data_dir, "archive")).positions()}
    assert topics >= set(ALL_TOPICS) - {"hindsight.deadletter"}


async def test_verify_names_a_damaged_archive_file_and_a_rebuild_repairs_it(history: History, tmp_path: Path) -> None:
    settings = copy_data_dir(history.settings, tmp_path / "copy")
    root = store_path(settings.data_dir, "archive")
    victim = max((root / "events").rglob("*.parquet"), key=lambda p: p.stat().st_size)
    victim.write_bytes(victim.read_bytes()[:-100])  # truncated: its footer is gone
    key = victim.relative_to(root).as_posix()
    async with started_log(settings) as log:
        verdict = await verify(settings, log)
        assert not verdict.ok and list(verdict.damaged) == [key]
        assert verdict.difference is not None and verdict.difference.startswith(f"archive file {key} is damaged")
        built = await rebuild(settings, log, stores=("archive",))
        await switch(settings, log, built.stores)
        assert (await verify(settings, log)).ok
