"""CPU of the hot-store projections when records arrive a few at a time, as they do live.

    hindsight-es bench recall --sizes 10000 --queries 20 --work-dir /tmp/rc
    python -m benchmarks.projection_commits --data-dir /tmp/rc/n10000 --base 20000 --live 2000 --batch 4

The first ``--base`` records of the memories topic (and half as many turns) are projected in one batch
into a new store, as a rebuild would, and indexed; the next ``--live`` are then applied ``--batch`` at a
time (turns half as many), with the runner's maintenance rhythm (every 5 s, or ten times its last
duration). Prints the process CPU (LanceDB's threads included) spent in each projection and in
maintenance. A developer's tool, not a runtime path: nothing in the product reads it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import tempfile
import time
from pathlib import Path

from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.log import open_log
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.shards import WRITER
from projections.runner import MAINTAIN_EVERY_S, MAINTAIN_SHARE, decode_batch
from projections.vectors import VectorsProjection
from projections.working_memory import WorkingMemoryProjection


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


async def _records(data_dir: Path, topic: str, count: int) -> list:
    """The first ``count`` records of ``topic`` on its fullest partition (the bench's one bank)."""
    log = open_log(Settings(data_dir=data_dir))
    await log.start()
    try:
        ends = await log.end_offsets(topic)
        partition = max(ends, key=lambda p: ends[p])
        if ends[partition] < count:
            raise SystemExit(f"{topic}[{partition}] holds {ends[partition]} records, fewer than {count}")
        return await log.read(topic, partition, 0, count, count)
    finally:
        await log.close()


async def run(data_dir: Path, base: int, live: int, batch: int) -> None:
    memories = await _records(data_dir, TOPIC_MEMORIES, base + live)
    turns = await _records(data_dir, TOPIC_TURNS, (base + live) // 2)
    root = Path(tempfile.mkdtemp(prefix="projection-commits-"))
    try:
        store = LanceStore(root, read_consistency=WRITER)
        vectors, working = VectorsProjection(store), WorkingMemoryProjection(store, 100_000)
        await vectors.apply(decode_batch(memories[:base]))
        await working.apply(decode_batch(turns[: base // 2]))
        store.ensure_indexes()
        spent = {"vectors": 0.0, "turns": 0.0, "maintenance": 0.0}
        last, took, passes = time.monotonic(), 0.0, 0
        start, wall = _cpu(), time.perf_counter()
        turn_batch = max(1, batch // 2)
        for i in range(base, base + live, batch):
            at = _cpu()
            await vectors.apply(decode_batch(memories[i : i + batch]))
            spent["vectors"] += _cpu() - at
            j = base // 2 + (i - base) // 2
            at = _cpu()
            await working.apply(decode_batch(turns[j : j + turn_batch]))
            spent["turns"] += _cpu() - at
            if time.monotonic() - last >= max(MAINTAIN_EVERY_S, MAINTAIN_SHARE * took):
                at, began = _cpu(), time.monotonic()
                await vectors.maintain()
                await working.maintain()
                took, passes, last = time.monotonic() - began, passes + 1, time.monotonic()
                spent["maintenance"] += _cpu() - at
        total = _cpu() - start
        print(
            f"{live} memory records + {live // 2} turns, {batch} memory records a batch: CPU {total:.1f} s "
            f"({1000 * total / live:.1f} ms a memory record), wall {time.perf_counter() - wall:.1f} s; "
            + ", ".join(f"{name} {cpu:.1f} s" for name, cpu in spent.items())
            + f" ({passes} maintenance passes)"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="a data directory with a log (bench recall's)")
    parser.add_argument("--base", type=int, default=20_000, help="memory records projected at once first")
    parser.add_argument("--live", type=int, default=2_000, help="memory records then applied a batch at a time")
    parser.add_argument("--batch", type=int, default=4, help="memory records a batch")
    args = parser.parse_args()
    asyncio.run(run(args.data_dir, args.base, args.live, args.batch))


if __name__ == "__main__":
    main()
