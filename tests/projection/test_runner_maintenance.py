"""A tailing projection is maintained on schedule even while records never stop arriving, and its
maintenance is spaced by how long its regular passes take. A projection with ``linger_s`` lets small
batches grow, but never holds back a backlog."""

from __future__ import annotations

import asyncio
import time

from hindsight_es.config import TOPIC_TURNS, Settings
from hindsight_es.log import TopicPartition, started_log
from projections import runner
from projections.runner import Batch


class Recording:
    """Applies slower than records arrive, so the log never runs dry while the stream lasts."""

    name = "recording"
    topics = (TOPIC_TURNS,)
    linger_s = 0.0

    def __init__(self, apply_s: float, maintain_s: float, long_passes: dict[int, float] | None = None) -> None:
        self.apply_s, self.maintain_s = apply_s, maintain_s
        self.long_passes = long_passes or {}  # pass number -> its length (a vector index retrain)
        self.applied = 0
        self.batches: list[int] = []  # size of each apply
        self.maintained: list[tuple[float, float]] = []  # (start, end) of each pass

    async def positions(self) -> dict[TopicPartition, int]:
        return {}

    async def apply(self, batch: Batch) -> None:
        await asyncio.sleep(self.apply_s)
        self.applied += len(batch)
        self.batches.append(len(batch))

    async def maintain(self) -> None:
        start = time.monotonic()
        await asyncio.sleep(self.long_passes.get(len(self.maintained), self.maintain_s))
        self.maintained.append((start, time.monotonic()))


async def stream(settings: Settings, projection: Recording, *, seconds: float, maintain_every_s: float) -> int:
    """Append a record every 5 ms for ``seconds`` while the projection tails; returns records appended."""
    async with started_log(settings) as log:
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(log, projection, stop, maintain_every_s=maintain_every_s))
        appended = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            await log.append(TOPIC_TURNS, "bank", [b"x"])
            appended += 1
            await asyncio.sleep(0.005)
        stop.set()
        await task
        return appended


async def test_a_steady_stream_does_not_postpone_maintenance(tmp_path) -> None:
    projection = Recording(apply_s=0.02, maintain_s=0.0)
    appended = await stream(Settings(data_dir=tmp_path), projection, seconds=1.2, maintain_every_s=0.2)
    assert projection.applied > appended // 2
    assert len(projection.maintained) >= 3  # a record arrives during every 20 ms apply: never idle


async def test_maintenance_waits_in_proportion_to_its_last_pass(tmp_path) -> None:
    projection = Recording(apply_s=0.02, maintain_s=0.05)
    await stream(Settings(data_dir=tmp_path), projection, seconds=1.5, maintain_every_s=0.01)
    starts = [start for start, _ in projection.maintained]
    assert len(starts) >= 2
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    assert min(gaps) >= runner.MAINTAIN_SHARE * 0.05  # not every 10 ms: 10 x its 50 ms pass


async def test_one_long_pass_does_not_postpone_the_next_by_ten_times_its_length(tmp_path) -> None:
    # passes of 20 ms, the second one 300 ms (a retrain): spaced by the regular pass, the third pass
    # comes ~0.2 s after the long one ends, not 10 x 0.3 = 3 s later (past the stream's end)
    projection = Recording(apply_s=0.02, maintain_s=0.02, long_passes={1: 0.3})
    await stream(Settings(data_dir=tmp_path), projection, seconds=2.0, maintain_every_s=0.01)
    assert len(projection.maintained) >= 4
    long_end, after = projection.maintained[1][1], projection.maintained[2][0]
    assert after - long_end < 1.0
    starts = [start for start, _ in projection.maintained]
    assert min(b - a for a, b in zip(starts, starts[1:], strict=False)) >= runner.MAINTAIN_SHARE * 0.02


class Lingering(Recording):
    linger_s = 0.3


async def test_a_lingering_projection_writes_fewer_larger_batches(tmp_path) -> None:
    eager, lingering = Recording(apply_s=0.0, maintain_s=0.0), Lingering(apply_s=0.0, maintain_s=0.0)
    await stream(Settings(data_dir=tmp_path / "eager"), eager, seconds=1.2, maintain_every_s=60)
    await stream(Settings(data_dir=tmp_path / "lingering"), lingering, seconds=1.2, maintain_every_s=60)
    assert len(eager.batches) >= 20  # it reads every time it finds something: ~1 record per read
    assert 2 <= len(lingering.batches) <= 1.2 / Lingering.linger_s + 2
    assert max(lingering.batches) >= 20


async def test_lingering_never_holds_back_a_backlog(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path)
    projection = Lingering(apply_s=0.0, maintain_s=0.0)
    projection.linger_s = 30.0
    async with started_log(settings) as log:
        await log.append(TOPIC_TURNS, "bank", [b"x"] * 3000)
        stop = asyncio.Event()
        task = asyncio.create_task(runner.run(log, projection, stop, maintain_every_s=60))
        for _ in range(200):  # up to 4 s; a 30 s linger after a full batch would take far longer
            if projection.applied == 3000:
                break
            await asyncio.sleep(0.02)
        stop.set()
        await task
    assert projection.applied == 3000
    assert projection.batches == [2000, 1000]  # step reads 2000 per partition; both exceed LINGER_BELOW
