"""What a recall costs right after a write, in Chinese and in English, on a copy of an existing store.

Every write makes a new version of the memories table, and a recall's exact searches (a bank of up to
3,000 rows, the other-script memories of a bilingual bank) keep their filter's vectors per version
(``hindsight_es.stores.exact``). This retains one turn (``wait=True``), then recalls one Chinese and one
English question, ``--writes`` times, in process (``hindsight_es.app.local``) on a copy of ``--data-dir``
(the original is not changed), and prints each language's CPU time per recall (the process's, every thread)
and wall time p50 / p95. A developer tool, e.g. over the layout ``bench recall --sizes 10000 --work-dir D``
builds: ``python -m benchmarks.recall_after_write --data-dir D/n10000 --bank bench-recall-10000``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from benchmarks.scratch import copied
from hindsight_es.app.local import local
from hindsight_es.config import Settings

WORDS = "budget review design migration release notes audit team offsite survey plan report".split()
QUESTIONS = {"zh": lambda rng: "上周的安全审计怎么样？", "en": lambda rng: " ".join(rng.choices(WORDS, k=4))}


async def _run(data_dir: Path, bank: str, writes: int) -> dict[str, tuple[list[float], list[float]]]:
    rng = random.Random(7)
    took: dict[str, tuple[list[float], list[float]]] = {lang: ([], []) for lang in QUESTIONS}
    async with local(Settings(data_dir=data_dir)) as hs:
        for ask in QUESTIONS.values():
            await hs.recall(bank, ask(rng))  # caches warm at the current version
        for n in range(writes):
            text = f"{' '.join(rng.choices(WORDS, k=8))} (written {n})"
            await hs.retain(bank, text, session_id=f"after-write-{n // 20}", wait=True)
            for lang, ask in QUESTIONS.items():
                cpu, started = time.process_time(), time.perf_counter()
                await hs.recall(bank, ask(rng))
                took[lang][0].append(time.process_time() - cpu)
                took[lang][1].append(time.perf_counter() - started)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="a store to copy (not changed)")
    parser.add_argument("--bank", required=True)
    parser.add_argument("--writes", type=int, default=60)
    args = parser.parse_args()
    with copied(args.data_dir) as copy:
        took = asyncio.run(_run(copy, args.bank, args.writes))
    for lang, (cpu, wall) in took.items():
        ms = sorted(w * 1000 for w in wall)
        print(
            f"{lang}: {len(ms)} recalls, each right after a write: CPU {statistics.mean(cpu) * 1000:.1f} ms a recall "
            f"(every thread), wall p50 {statistics.median(ms):.1f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms"
        )


if __name__ == "__main__":
    main()
