"""What a projection writes for records that change nothing, and how long a projection off the recall
path lets a steady stream gather on Kafka.

The working-memory projection reads ``hindsight.memories`` for erasures alone: a batch of other memory
events changes no row and is not a commit of its own; its positions go out with the next commit, or with
the next maintenance pass, and a caught-up store stands at the log's end."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import TurnRecorded
from hindsight_es.log import Record
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.stores.lance import LanceStore
from projections.runner import LINGER_BELOW, catch_up, decode_batch, log_ends
from projections.working_memory import TABLE, WorkingMemoryProjection
from streams import kafka_projections
from streams.kafka_projections import OwnedProjections

BANK = "quiet-bank"


async def _records(log: EmbeddedLog, topic: str) -> list[Record]:
    out: list[Record] = []
    for partition, end in (await log.end_offsets(topic)).items():
        out += await log.read(topic, partition, 0, end, end + 1)
    return out


def _version(store: LanceStore) -> int:
    table = store.table(TABLE)
    assert table is not None
    table.checkout_latest()
    return int(table.version)


async def _check(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log.sqlite3", partitions=1)
    await log.start()
    try:
        await write_history(log, synthetic_history(BANK, 60, dim=8, seed=1), chunk=50)
        turns, memories = await _records(log, TOPIC_TURNS), await _records(log, TOPIC_MEMORIES)
        assert turns and memories
        store = LanceStore(tmp_path / "lance")
        projection = WorkingMemoryProjection(store)
        await projection.positions()
        await projection.apply(decode_batch(turns[:10]))
        first = _version(store)
        assert store.positions(TABLE) == {(TOPIC_TURNS, 0): 10}

        # memory events without an erasure: no commit, the stored position stays where it was
        await projection.apply(decode_batch(memories[:30]))
        assert _version(store) == first
        assert store.positions(TABLE) == {(TOPIC_TURNS, 0): 10}

        # the next commit carries them
        await projection.apply(decode_batch(turns[10:20]))
        assert store.positions(TABLE) == {(TOPIC_TURNS, 0): 20, (TOPIC_MEMORIES, 0): 30}
        # applied again (a redelivery), nothing changes
        at = _version(store)
        await projection.apply(decode_batch(memories[:30]))
        assert _version(store) == at

        # a maintenance pass writes what is held back
        await projection.apply(decode_batch(memories[30:40]))
        assert store.positions(TABLE)[(TOPIC_MEMORIES, 0)] == 30
        await projection.maintain()
        assert store.positions(TABLE)[(TOPIC_MEMORIES, 0)] == 40

        # a restart reads the stored positions; catching up leaves the store at the log's end
        again = WorkingMemoryProjection(store)
        await catch_up(log, again)
        ends = await log_ends(log, [again])
        assert store.positions(TABLE) == {tp: end for tp, end in ends.items() if end}
        rows = store.table(TABLE)
        assert rows is not None
        shown = {r["turn_id"] for r in rows.search().where(f"bank_id = '{BANK}'").limit(10_000).to_list()}
        assert shown == {e.turn_id for _, e in decode_batch(turns) if isinstance(e, TurnRecorded)}
    finally:
        await log.close()


def test_memory_events_that_change_no_row_are_no_commit_of_their_own(tmp_path: Path) -> None:
    asyncio.run(_check(tmp_path))


class _Lingering:
    def __init__(self, linger_s: float) -> None:
        self.linger_s = linger_s


@pytest.mark.parametrize("linger_s", [0.0, 1.0])
def test_kafka_projections_let_a_steady_stream_gather_for_their_linger(
    monkeypatch: pytest.MonkeyPatch, linger_s: float
) -> None:
    waits: list[float] = []
    clock = [100.0]

    class Awaited:  # the process's waiters (``waiting.Awaited``): none here, so a linger lasts its time
        async def linger(self, seconds: float) -> None:
            waits.append(round(seconds, 3))
            clock[0] += seconds

    monkeypatch.setattr(kafka_projections, "AWAITED", Awaited())
    monkeypatch.setattr(kafka_projections.time, "monotonic", lambda: clock[0])
    owner = OwnedProjections(Settings(), "archive")
    owner.owned = {0: _Lingering(linger_s)}  # type: ignore[dict-item]

    async def batches() -> None:
        await owner._linger(5)  # the first batch: at once
        clock[0] += 0.25
        await owner._linger(5)  # 0.25 s later: waits the rest of the linger
        clock[0] += 0.1
        await owner._linger(LINGER_BELOW)  # a backlog is never held back
        clock[0] += 5.0
        await owner._linger(5)  # after a pause: at once

    asyncio.run(batches())
    assert waits == ([0.75] if linger_s else [])


def _lag_count(name: str) -> float:
    from hindsight_es import observe

    samples = observe.PROJECTION_LAG.labels(projection=name).collect()[0].samples
    return next(s.value for s in samples if s.name.endswith("_count"))


async def _replayed(tmp_path: Path, lag: bool) -> tuple[float, int, dict[tuple[str, str, int], int]]:
    from hindsight_es import observe
    from projections.runner import replay_into

    log = EmbeddedLog(tmp_path / "log.sqlite3", partitions=1)
    await log.start()
    try:
        await write_history(log, synthetic_history(BANK, 40, dim=8, seed=2), chunk=50)
        projection = WorkingMemoryProjection(LanceStore(tmp_path / "lance"))
        projection.name = f"wm-{lag}"  # its own series of the metrics
        before = _lag_count(projection.name)
        n = await replay_into(log, [projection], lag=lag)
        ends = await log_ends(log, [projection])
    finally:
        await log.close()
    read = {k: v for k, v in observe.CONSUMED.items() if k[0] == projection.name}
    assert read == {(projection.name, t, p): end for (t, p), end in ends.items() if end}
    return _lag_count(projection.name) - before, n, read


@pytest.mark.parametrize("lag", [True, False])
def test_a_replay_into_new_stores_observes_no_lag_but_how_far_it_read(tmp_path: Path, lag: bool) -> None:
    observed, n, _ = asyncio.run(_replayed(tmp_path, lag))
    assert n > 0
    assert observed == (n if lag else 0)
