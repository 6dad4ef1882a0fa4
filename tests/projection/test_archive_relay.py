"""The rebuild's end of the archive child's relay (``archive_child.Relay``), over frames fed by hand."""

from __future__ import annotations

import asyncio
import marshal
from typing import Any

from projections import archive_child

TOPIC = "hindsight.memories"


class FakeChild:
    """What ``Relay`` uses of an ``asyncio.subprocess.Process``: its stdout holds ``frames``, then ends."""

    def __init__(self, frames: list[tuple[Any, ...]]) -> None:
        self.stdout, self.stderr = asyncio.StreamReader(), asyncio.StreamReader()
        for frame in frames:
            body = marshal.dumps(frame)
            self.stdout.feed_data(len(body).to_bytes(8, "big") + body)
        self.stdout.feed_eof()
        self.stderr.feed_eof()
        self.returncode = 0

    async def wait(self) -> int:
        return self.returncode


async def test_the_relay_skips_the_partitions_no_projection_here_reads() -> None:
    # a hot store sharded into fewer partitions than the log: partitions 0 and 2 are read here, 1 and 3 not
    frames = [
        ("records", 0, 0, [(0, "a", b"{}", 1), (1, "a", b"{}", 2)]),
        ("records", 1, 0, [(0, "b", b"{}", 3)]),
        ("records", 2, 5, [(5, "c", b"{}", 4)]),
        ("records", 3, 0, [(0, "d", b"{}", 5)]),
        ("done", 5),
    ]
    relay = archive_child.Relay(FakeChild(frames), TOPIC, True)  # type: ignore[arg-type]
    assert [r.offset for r in await relay.read(0, 0, 2, 100)] == [0, 1]
    (record,) = await relay.read(2, 5, 6, 100)
    assert (record.topic, record.partition, record.offset, record.key, record.timestamp_ms) == (TOPIC, 2, 5, "c", 4)
    assert await relay.finish() == 5
