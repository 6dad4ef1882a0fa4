"""``projections.relay``: the records a rebuild's child relays are the ones the log would return."""

from __future__ import annotations

import asyncio
import io

import pytest

from hindsight_es.errors import StoreError
from hindsight_es.log import Record
from projections.relay import Relayed, Tee, read_frame, write_batch, write_end

TOPIC = "hindsight.memories"


class ListLog:
    """Records in memory, read as an ``EventLog`` reads them; counts the reads of each topic."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.reads: dict[str, int] = {}

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        self.reads[topic] = self.reads.get(topic, 0) + 1
        found = [r for r in self.records if r.topic == topic and r.partition == partition and start <= r.offset < stop]
        return found[:limit]


def records() -> list[Record]:
    out = []
    for partition in (0, 2):
        for offset in (0, 1, 2, 4, 5, 6, 7):  # a gap at 3, as a compacted Kafka partition may have
            key = None if offset == 5 else f"bank-{partition}"
            value = b"\xff\x00not json" if offset == 6 else f'{{"n":{offset}}}'.encode()
            out.append(Record(TOPIC, partition, offset, key, value, 1000 + offset))
    return out + [Record("hindsight.turns", 0, 0, "b", b"{}", 1)]


def relay_stream(batches: list[tuple[int, list[Record]]], end: int | None) -> asyncio.StreamReader:
    out = io.BytesIO()
    for start, batch in batches:
        write_batch(out, start, batch)
    if end is not None:
        write_end(out, end)
    stream = asyncio.StreamReader()
    stream.feed_data(out.getvalue())
    stream.feed_eof()
    return stream


async def never_failed() -> None:
    return None


async def test_reads_return_what_the_log_returns_without_reading_it() -> None:
    log = ListLog(records())
    mine = [r for r in log.records if r.topic == TOPIC]
    batches = [(0, mine[:3]), (3, mine[3:7]), (0, mine[7:11]), (5, mine[11:])]  # as the child reads them
    relayed = Relayed(log, TOPIC, relay_stream(batches, len(mine)), never_failed)  # type: ignore[arg-type]
    got: list[Record] = []
    for partition in (0, 2):
        start = 0
        while batch := await relayed.read(TOPIC, partition, start, 8, 4):  # not the relay's batches
            assert batch == (await ListLog(records()).read(TOPIC, partition, start, 8, 4))
            got += batch
            start = batch[-1].offset + 1
    assert got == mine
    assert await relayed.read("hindsight.turns", 0, 0, 1) == [log.records[-1]]
    assert log.reads == {TOPIC: 2, "hindsight.turns": 1}  # each partition's read past its end only
    assert await relayed.drain() == len(mine)


async def test_a_read_behind_the_relay_reads_the_log_and_one_ahead_skips_to_its_range() -> None:
    log = ListLog(records())
    mine = [r for r in log.records if r.topic == TOPIC]
    stream = relay_stream([(0, mine[:7]), (0, mine[7:11]), (6, mine[12:])], len(mine))  # offset 5 of 2 not relayed
    relayed = Relayed(log, TOPIC, stream, never_failed)  # type: ignore[arg-type]
    assert await relayed.read(TOPIC, 0, 4, 8, 2) == mine[3:5]  # offsets 0-2 passed unread
    assert await relayed.read(TOPIC, 0, 0, 8, 2) == mine[:2]  # behind the relay: from the log
    assert log.reads == {TOPIC: 1}
    assert await relayed.read(TOPIC, 2, 1, 8) == mine[8:11]  # to the end of what is held of partition 2
    assert await relayed.read(TOPIC, 2, 5, 8, 1) == mine[11:12]  # not relayed: from the log
    assert await relayed.read(TOPIC, 2, 6, 8) == mine[12:]
    assert log.reads == {TOPIC: 2}


async def test_a_relay_cut_short_raises_the_childs_error() -> None:
    mine = [r for r in records() if r.topic == TOPIC]

    async def failed() -> None:
        raise StoreError("the child failed: disk full")

    relayed = Relayed(ListLog(records()), TOPIC, relay_stream([(0, mine[:3])], None), failed)  # type: ignore[arg-type]
    assert await relayed.read(TOPIC, 0, 0, 8, 3) == mine[:3]
    with pytest.raises(StoreError, match="disk full"):
        await relayed.read(TOPIC, 0, 3, 8)
    cut = Relayed(ListLog(records()), TOPIC, relay_stream([(0, mine[:3])], None), never_failed)  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="child process ended"):
        await cut.drain()


async def test_a_tee_writes_the_batches_of_its_topic_as_they_are_read() -> None:
    log = ListLog(records())
    out = io.BytesIO()
    tee = Tee(log, TOPIC, out)  # type: ignore[arg-type]
    first = await tee.read(TOPIC, 0, 0, 8, 5)
    await tee.read("hindsight.turns", 0, 0, 1)
    rest = await tee.read(TOPIC, 0, 5, 8, 5)
    write_end(out, 7)
    stream = asyncio.StreamReader()
    stream.feed_data(out.getvalue())
    stream.feed_eof()
    frames = [await read_frame(stream) for _ in range(4)]
    as_fields = [
        (0, start, [(r.partition, r.offset, r.key, r.value, r.timestamp_ms) for r in batch])
        for start, batch in ((0, first), (5, rest))
    ]
    assert frames == [*as_fields, 7, None]
