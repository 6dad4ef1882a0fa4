"""One contract for every EventLog adapter: the embedded SQLite log and the Kafka log (on Tansu)."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from collections import defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from hindsight_es.config import Settings
from hindsight_es.errors import LogUnavailableError
from hindsight_es.log import Consumer, EventLog, Record, partition_for, replay
from hindsight_es.log.embedded import EmbeddedLog

PARTITIONS = 4
REPO_ROOT = Path(__file__).resolve().parents[2]

OpenConsumer = Callable[[str, list[str]], Awaitable[Consumer]]


# --------------------------------------------------------------------------- fixtures and helpers


@pytest.fixture(params=["embedded", "sealed", pytest.param("kafka", marks=pytest.mark.kafka)])
async def log(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[EventLog]:
    if request.param == "embedded":
        event_log: EventLog = EmbeddedLog(tmp_path / "log.sqlite3", PARTITIONS)
    elif request.param == "sealed":  # the wrapper every entry point gets (log.open_log): the same semantics
        from hindsight_es.log.keys import SqliteKeyStore
        from hindsight_es.log.sealed import SealedLog, Sealer

        keys = SqliteKeyStore(tmp_path / "keys.sqlite3")
        event_log = SealedLog(EmbeddedLog(tmp_path / "log.sqlite3", PARTITIONS), Sealer(keys))
    else:
        from hindsight_es.log.kafka import KafkaLog

        event_log = KafkaLog(request.getfixturevalue("kafka_settings"))
    await event_log.start()
    try:
        yield event_log
    finally:
        await event_log.close()
        await event_log.close()  # idempotent


@pytest.fixture
def topic(unique: Callable[[str], str]) -> str:
    return unique("test.topic")


@pytest.fixture
async def open_consumer(log: EventLog) -> AsyncIterator[OpenConsumer]:
    """Opens consumers on ``log`` and closes whatever the test left open."""
    opened: list[Consumer] = []

    async def _open(group: str, topics: list[str]) -> Consumer:
        consumer = await log.consumer(group, topics)
        opened.append(consumer)
        return consumer

    yield _open
    for consumer in opened:
        await consumer.close()


def key_on(partition: int, prefix: str = "bank") -> str:
    """A key that ``partition_for`` puts on ``partition``."""
    i = 0
    while partition_for(f"{prefix}-{i}", PARTITIONS) != partition:
        i += 1
    return f"{prefix}-{i}"


async def drain(consumer: Consumer, count: int, timeout_s: float = 20.0) -> list[Record]:
    """Poll until ``count`` records arrived (or the deadline passed)."""
    out: list[Record] = []
    deadline = time.monotonic() + timeout_s
    while len(out) < count and time.monotonic() < deadline:
        out.extend(await consumer.poll(max_records=500, timeout_ms=200))
    return out


async def nothing_more(consumer: Consumer, window_s: float = 0.4) -> list[Record]:
    """Whatever arrives within a short window (expected: nothing)."""
    out: list[Record] = []
    deadline = time.monotonic() + window_s
    while time.monotonic() < deadline:
        out.extend(await consumer.poll(max_records=500, timeout_ms=100))
    return out


def next_offsets(records: list[Record]) -> dict[tuple[str, int], int]:
    offsets: dict[tuple[str, int], int] = {}
    for r in records:
        offsets[(r.topic, r.partition)] = max(offsets.get((r.topic, r.partition), 0), r.offset + 1)
    return offsets


def positions(records: list[Record]) -> set[tuple[int, int]]:
    return {(r.partition, r.offset) for r in records}


async def replay_all(log: EventLog, topic: str) -> list[Record]:
    return [r async for batch in replay(log, topic, batch=7) for r in batch]


async def append_spread(log: EventLog, topic: str, count: int) -> list[Record]:
    """``count`` single-value appends over 8 keys; returns what replay sees afterwards."""
    for i in range(count):
        await log.append(topic, f"bank-{i % 8}", [f"v{i}".encode()])
    records = await replay_all(log, topic)
    assert len(records) == count
    return records


# --------------------------------------------------------------------------- the contract


async def test_per_key_order_and_partition(log: EventLog, topic: str) -> None:
    keys = [f"bank-{i}" for i in range(12)]
    rounds = 5
    for rnd in range(rounds):  # keys interleaved; appends of different keys run concurrently
        await asyncio.gather(*(log.append(topic, key, [f"{key}|{rnd}|{j}".encode() for j in range(3)]) for key in keys))

    assert await log.partitions(topic) == PARTITIONS
    records = await replay_all(log, topic)
    assert len(records) == len(keys) * rounds * 3
    by_key: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        assert r.topic == topic
        assert isinstance(r.key, str)
        by_key[r.key].append(r)
    now_ms = time.time() * 1000
    for key in keys:
        got = by_key[key]
        assert [r.value.decode() for r in got] == [f"{key}|{rnd}|{j}" for rnd in range(rounds) for j in range(3)]
        assert {r.partition for r in got} == {partition_for(key, PARTITIONS)}  # the same on both adapters
        assert all(abs(r.timestamp_ms - now_ms) < 120_000 for r in got)


async def test_offsets_contiguous_returned_and_end_offsets(log: EventLog, topic: str) -> None:
    assert await log.end_offsets(topic) == dict.fromkeys(range(PARTITIONS), 0)

    keys = [key_on(0, "a"), key_on(0, "b"), key_on(1), key_on(2)]  # partition 3 stays empty
    returned: dict[int, list[int]] = defaultdict(list)
    for i in range(24):
        key = keys[i % len(keys)]
        values = [f"{key}:{i}:{j}".encode() for j in range(1 + i % 3)]
        offsets = await log.append(topic, key, values)
        assert len(offsets) == len(values)
        assert offsets == list(range(offsets[0], offsets[0] + len(values)))  # one append, one run
        returned[partition_for(key, PARTITIONS)].extend(offsets)

    assert await log.append(topic, keys[0], []) == []
    for offsets in returned.values():
        assert sorted(offsets) == list(range(len(offsets)))  # contiguous from 0
    ends = await log.end_offsets(topic)
    assert ends == {p: len(returned.get(p, [])) for p in range(PARTITIONS)}
    assert ends[3] == 0

    for partition in range(PARTITIONS):  # what was returned is what is stored
        stored = await log.read(topic, partition, 0, ends[partition] + 10, 10_000)
        assert [r.offset for r in stored] == list(range(ends[partition]))


async def test_read_ranges(log: EventLog, topic: str) -> None:
    key = key_on(2)
    first = await log.append(topic, key, [f"v{i}".encode() for i in range(10)])  # one batch
    assert first == list(range(10))
    for i in range(10, 15):
        assert await log.append(topic, key, [f"v{i}".encode()]) == [i]

    async def offsets(start: int, stop: int, limit: int = 1000) -> list[int]:
        records = await log.read(topic, 2, start, stop, limit)
        assert all(r.value == f"v{r.offset}".encode() and r.key == key and r.partition == 2 for r in records)
        return [r.offset for r in records]

    assert await offsets(3, 7) == [3, 4, 5, 6]  # from the middle of a batch
    assert await offsets(3, 7, limit=2) == [3, 4]
    assert await offsets(8, 12) == [8, 9, 10, 11]  # across batches
    assert await offsets(0, 15) == list(range(15))
    assert await offsets(12, 1_000) == [12, 13, 14]  # stop beyond the end
    assert await offsets(5, 5) == []
    assert await offsets(15, 20) == []  # at the end
    assert await offsets(40, 50) == []  # beyond the end
    assert await log.read(topic, 0, 0, 10) == []  # an empty partition
    assert await offsets(0, 15, limit=0) == []

    replayed = await replay_all(log, topic)
    assert [(r.partition, r.offset) for r in replayed] == [(2, i) for i in range(15)]


async def test_commit_and_resume_after_restart(
    log: EventLog, topic: str, open_consumer: OpenConsumer, unique: Callable[[str], str]
) -> None:
    group = unique("group")
    records = await append_spread(log, topic, 20)
    consumer = await open_consumer(group, [topic])
    got = await drain(consumer, 20)
    assert positions(got) == positions(records)

    # Process (and commit) only the first half of every partition.
    ends = await log.end_offsets(topic)
    done = [r for r in got if r.offset < (ends[r.partition] + 1) // 2]
    commit = next_offsets(done)
    await consumer.commit(commit)
    for (t, p), offset in commit.items():
        assert await consumer.committed(t, p) == offset
    await consumer.close()

    await log.append(topic, "bank-new", [b"after-restart"])
    expected = {(r.partition, r.offset) for r in await replay_all(log, topic)} - positions(done)

    resumed = await open_consumer(group, [topic])
    for (t, p), offset in commit.items():
        assert await resumed.committed(t, p) == offset
    again = await drain(resumed, len(expected))
    assert positions(again) == expected
    assert await nothing_more(resumed) == []
    await resumed.commit(next_offsets(again))
    for partition, end in (await log.end_offsets(topic)).items():
        assert await resumed.committed(topic, partition) == (end if end else None)


async def test_replay_from_the_beginning(
    log: EventLog, topic: str, open_consumer: OpenConsumer, unique: Callable[[str], str]
) -> None:
    records = await append_spread(log, topic, 30)
    assert all(
        [r.offset for r in records if r.partition == p] == list(range(sum(1 for r in records if r.partition == p)))
        for p in range(PARTITIONS)
    )  # replay: partition by partition, in offset order

    first = await open_consumer(unique("group-a"), [topic])
    got = await drain(first, 30)
    await first.commit(next_offsets(got))

    fresh = await open_consumer(unique("group-b"), [topic])  # a new group starts at the beginning
    everything = await drain(fresh, 30)
    assert sorted((r.partition, r.offset, r.key, r.value) for r in everything) == sorted(
        (r.partition, r.offset, r.key, r.value) for r in records
    )


async def test_at_least_once_redelivery(
    log: EventLog, topic: str, open_consumer: OpenConsumer, unique: Callable[[str], str]
) -> None:
    group = unique("group")
    await append_spread(log, topic, 12)
    consumer = await open_consumer(group, [topic])
    got = await drain(consumer, 12)
    assert len(got) == 12
    await consumer.close()  # crashed before committing

    again = await open_consumer(group, [topic])
    redelivered = await drain(again, 12)
    assert sorted((r.partition, r.offset, r.value) for r in redelivered) == sorted(
        (r.partition, r.offset, r.value) for r in got
    )
    for partition in range(PARTITIONS):
        assert await again.committed(topic, partition) is None


async def test_groups_are_independent(
    log: EventLog, topic: str, open_consumer: OpenConsumer, unique: Callable[[str], str]
) -> None:
    records = await append_spread(log, topic, 16)
    group_a, group_b = unique("group-a"), unique("group-b")
    a = await open_consumer(group_a, [topic])
    b = await open_consumer(group_b, [topic])

    got_a = await drain(a, 16)
    await a.commit(next_offsets(got_a))
    got_b = await drain(b, 16)  # b still sees everything although a committed all
    assert positions(got_a) == positions(got_b) == positions(records)

    commit_b = next_offsets([r for r in got_b if r.offset == 0])
    await b.commit(commit_b)
    for partition in range(PARTITIONS):
        assert await a.committed(topic, partition) == next_offsets(got_a).get((topic, partition))
        assert await b.committed(topic, partition) == commit_b.get((topic, partition))


async def test_kafka_unreachable_broker_fails_fast(tmp_path: Path) -> None:
    from hindsight_es.log.kafka import KafkaLog

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(data_dir=tmp_path, broker=f"127.0.0.1:{port}", request_timeout_s=120.0)
    started = time.monotonic()
    with pytest.raises(LogUnavailableError, match=f"127.0.0.1:{port}"):
        await KafkaLog(settings).start()
    assert time.monotonic() - started < 60  # a refused connection, not the 120 s time-out


# --------------------------------------------------------------------------- embedded only


async def test_embedded_second_member_stands_by_then_takes_over(tmp_path: Path, unique: Callable[[str], str]) -> None:
    topic, group = unique("topic"), unique("group")
    path = tmp_path / "log.sqlite3"
    log_one, log_two = EmbeddedLog(path, PARTITIONS), EmbeddedLog(path, PARTITIONS)  # as two processes would
    await log_one.start()
    await log_two.start()
    try:
        records = await append_spread(log_one, topic, 10)
        owner = await log_one.consumer(group, [topic])
        standby = await log_two.consumer(group, [topic])
        got = await drain(owner, 10)
        assert positions(got) == positions(records)
        assert await nothing_more(standby) == []

        half = [r for r in got if r.offset == 0]
        await owner.commit(next_offsets(half))
        await owner.close()

        taken_over = await drain(standby, 10 - len(half))
        assert positions(taken_over) == positions(records) - positions(half)
        await standby.close()
    finally:
        await log_one.close()
        await log_two.close()


async def test_embedded_poll_reads_every_partition_of_every_topic_within_its_limit(
    tmp_path: Path, unique: Callable[[str], str]
) -> None:
    """A poll reads all its partitions in one call and skips those with nothing new (by their ends): what
    another connection (another process) appends after a poll still arrives, each record once, in order,
    and no poll returns more than it asked for."""
    topics, group = [unique("a"), unique("b")], unique("group")
    path = tmp_path / "log.sqlite3"
    mine, other = EmbeddedLog(path, PARTITIONS), EmbeddedLog(path, PARTITIONS)
    await mine.start()
    await other.start()
    try:
        for i in range(24):
            await mine.append(topics[i % 2], f"bank-{i % 8}", [f"v{i}".encode()])
        consumer = await mine.consumer(group, topics)
        got: list[Record] = []
        for _ in range(40):
            batch = await consumer.poll(max_records=5, timeout_ms=50)
            assert len(batch) <= 5
            got.extend(batch)
        assert len(got) == 24
        assert {r.topic for r in got} == set(topics)
        assert {r.partition for r in got} == set(range(PARTITIONS))
        for i in range(8):  # appended by another connection: no wake-up from this one, found by the ends
            await other.append(topics[1], f"bank-{i}", [f"late{i}".encode()])
        late = await drain(consumer, 8)
        assert sorted(r.value for r in late) == sorted(f"late{i}".encode() for i in range(8))
        everything = got + late
        for topic in topics:
            for partition in range(PARTITIONS):
                offsets = [r.offset for r in everything if (r.topic, r.partition) == (topic, partition)]
                assert offsets == list(range(len(offsets)))
        await consumer.close()
    finally:
        await mine.close()
        await other.close()


_CHILD = """
import asyncio, sys
from hindsight_es.log.embedded import EmbeddedLog

async def main(path, rounds):
    log = EmbeddedLog(path, 4)
    await log.start()
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(rounds):
        await log.append("shared", f"child-{i % 5}", [f"child-{i % 5}:{i}:{j}".encode() for j in range(1 + i % 3)])
    await log.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def test_embedded_appends_from_two_processes(tmp_path: Path) -> None:
    path = tmp_path / "log.sqlite3"
    rounds = 150
    log = EmbeddedLog(path, PARTITIONS)
    await log.start()
    try:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
        }
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", _CHILD, str(path), str(rounds),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env,
        )  # fmt: skip
        assert child.stdin is not None and child.stdout is not None
        assert (await asyncio.wait_for(child.stdout.readline(), 30)).strip() == b"ready"
        child.stdin.write(b"go\n")
        await child.stdin.drain()
        for i in range(rounds):
            values = [f"main-{i % 5}:{i}:{j}".encode() for j in range(1 + i % 3)]
            offsets = await log.append("shared", f"main-{i % 5}", values)
            assert offsets == list(range(offsets[0], offsets[0] + len(values)))
        assert await asyncio.wait_for(child.wait(), 60) == 0

        records = await replay_all(log, "shared")
        per_writer = sum(1 + i % 3 for i in range(rounds))
        assert len(records) == 2 * per_writer
        ends = await log.end_offsets("shared")
        for partition, end in ends.items():
            assert [r.offset for r in records if r.partition == partition] == list(range(end))
        by_key: dict[str, list[str]] = defaultdict(list)
        for r in records:
            assert r.key is not None
            by_key[r.key].append(r.value.decode())
        for writer in ("main", "child"):
            for k in range(5):
                key = f"{writer}-{k}"
                expected = [f"{key}:{i}:{j}" for i in range(k, rounds, 5) for j in range(1 + i % 3)]
                assert by_key[key] == expected
    finally:
        await log.close()
