"""How long a ``retain(wait=True)`` takes when a script retains one turn after another in process.

Runs the pipeline in this process (``hindsight_es.app.local``) on a fresh data directory and retains
``--turns`` turns one at a time, each waiting until its memories are queryable, as the README's Python
example does. Prints the wall time of a call (p50, mean, max) and the process's CPU time (every thread)
per turn. A developer tool: ``python -m benchmarks.retain_wait --turns 60``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time

from hindsight_es.app.local import local
from hindsight_es.config import Settings

WORDS = "budget review design migration release notes audit team offsite survey plan report".split()


async def _run(turns: int, data_dir: str) -> tuple[list[float], float]:
    rng = random.Random(1)
    async with local(Settings(data_dir=data_dir)) as hs:
        await hs.retain("b", "We use PostgreSQL for the order database.", session_id="s", wait=True)  # models loaded
        took, cpu = [], time.process_time()
        for n in range(turns):
            started = time.perf_counter()
            text = f"I decided to move the {rng.choice(WORDS)} {rng.choice(WORDS)} to Friday ({n})"
            await hs.retain("b", text, session_id="s", wait=True)
            took.append(time.perf_counter() - started)
        return took, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data_dir:
        took, cpu = asyncio.run(_run(args.turns, data_dir))
    ms = [t * 1000 for t in took]
    print(
        f"{len(ms)} retains with wait=True: p50 {statistics.median(ms):.0f} ms, mean {statistics.mean(ms):.0f} ms, "
        f"max {max(ms):.0f} ms; CPU {cpu / len(ms) * 1000:.0f} ms a turn (every thread)"
    )


if __name__ == "__main__":
    main()
