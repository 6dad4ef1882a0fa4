"""Recalls per second from concurrent tasks in one process, on a copy of an existing store.

``--tasks`` asyncio tasks call ``Hindsight.recall`` (``hindsight_es.app.local``) back to back for ``--seconds``
on a copy of ``--data-dir`` (the original is not changed), after 20 warm-up recalls, and print recalls/s,
the process's CPU per recall (every thread), and how many queries the multilingual model embedded per call
(``embedding/coalesce.py``). A developer tool, e.g. over the layout ``bench recall --sizes 10000 --work-dir D``
builds: ``python -m benchmarks.recall_threads --data-dir D/n10000 --bank bench-recall-10000``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time
from pathlib import Path

from benchmarks.recall_after_write import WORDS  # the same generated questions
from benchmarks.scratch import copied
from hindsight_es.app.local import local
from hindsight_es.config import Settings


async def _run(data_dir: Path, bank: str, tasks: int, seconds: float) -> None:
    rng = random.Random(3)
    async with local(Settings(data_dir=data_dir)) as hs:
        for _ in range(20):
            await hs.recall(bank, " ".join(rng.choices(WORDS, k=4)))
        queries = getattr(getattr(hs.embedder, "multilingual", hs.embedder), "_queries", None)
        calls, texts = (queries.calls, queries.texts) if queries is not None else (0, 0)
        done = 0
        end = time.perf_counter() + seconds
        cpu, started = time.process_time(), time.perf_counter()

        async def worker(seed: int) -> None:
            nonlocal done
            ask = random.Random(seed)
            while time.perf_counter() < end:
                await hs.recall(bank, " ".join(ask.choices(WORDS, k=4)))
                done += 1

        await asyncio.gather(*(worker(n) for n in range(tasks)))
        elapsed = time.perf_counter() - started
        per_recall = (time.process_time() - cpu) / done * 1000
        line = f"{tasks} tasks x {seconds:.0f}s: {done / elapsed:.1f} recalls/s, CPU {per_recall:.2f} ms a recall"
        if queries is not None and queries.calls > calls:
            line += f"; {(queries.texts - texts) / (queries.calls - calls):.2f} queries a multilingual call"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="a store to copy (not changed)")
    parser.add_argument("--bank", required=True)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    with copied(args.data_dir) as copy:
        asyncio.run(_run(copy, args.bank, args.tasks, args.seconds))


if __name__ == "__main__":
    main()
