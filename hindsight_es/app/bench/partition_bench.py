"""``bench partition-load``: how long the bank actor takes to hold a partition's state (``streams.partitions``):
folding the whole memory partition, writing a snapshot, loading from it in this process, and loading
from it in a fresh process timed from that process's start (``partition_fresh``: the actor ready after a restart).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path

from hindsight_es.app.bench.bulk import bulk_history, memory_events_per_turn
from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.app.bench.partition_fresh import ACTOR, fullest, snapshots
from hindsight_es.app.cli.common import console, run_async
from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.log import started_log
from streams.partitions import load, save


def measure(settings: Settings, events: int, banks: int, history: str) -> None:
    from hindsight_es.embedding import make_embedder

    dim = make_embedder(settings.embedder).dim

    async def go() -> None:
        async with started_log(settings) as log:
            if not (await fullest(log))[1]:
                per_bank = events // banks
                for b in range(banks):
                    if history == "bulk":
                        turns = math.ceil(per_bank / memory_events_per_turn())
                        entries = bulk_history(f"bank-{b}", turns, dim=dim, embedder_id="synthetic", with_turns=False)
                    else:
                        made = synthetic_history(f"bank-{b}", int(per_bank * 1.6), dim=dim, seed=b)
                        entries = (e for e in made if e.topic == TOPIC_MEMORIES)
                    await write_history(log, entries, chunk=20_000)
            partition, total = await fullest(log)
            t0, c0 = time.perf_counter(), time.process_time()
            full, folded = await load(log, partition, None)
            fold_s, fold_cpu = time.perf_counter() - t0, time.process_time() - c0
            store = snapshots(Path(settings.data_dir))
            t0, c0 = time.perf_counter(), time.process_time()
            save(full, store)
            save_s, save_cpu = time.perf_counter() - t0, time.process_time() - c0
            written = store.objects.list(f"snapshots/{ACTOR}/partition={partition}/")
            newest = max(written, key=lambda kn: (kn[0].rsplit("/", 1)[-1].split(".")[0], kn[0].endswith(".hsnap")))
            size = newest[1]
            t0, c0 = time.perf_counter(), time.process_time()
            again, tail = await load(log, partition, store)
            load_s, load_cpu = time.perf_counter() - t0, time.process_time() - c0
            assert again.banks == full.banks and tail == 0
        memories = sum(len(s.memories) for s in full.banks.values())
        console.print(
            f"partition {partition}: {total:,} memory events, {len(full.banks)} banks, {memories:,} memories:"
        )
        console.print(f"  full fold of the log: {fold_s:.2f}s ({folded / fold_s:,.0f} events/s), CPU {fold_cpu:.2f}s")
        console.print(
            f"  snapshot {newest[0].rsplit('/', 1)[-1]}: written in {save_s:.2f}s (CPU {save_cpu:.2f}s), "
            f"{size / 1e6:.1f} MB; [bold]load from it: {load_s:.2f}s[/bold] (CPU {load_cpu:.2f}s)"
        )

    run_async(go)
    argv = [sys.executable, "-m", "hindsight_es.app.bench.partition_fresh", str(settings.data_dir)]
    started = time.time()
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.time() - started
    fresh = json.loads(out.stdout.strip().splitlines()[-1])
    console.print(
        f"  fresh process (a worker's imports): [bold]state held {fresh['ready_s']:.2f}s after the process "
        f"started[/bold] (imports {fresh['imports_s']:.2f}s, load {fresh['load_s']:.2f}s, CPU "
        f"{fresh['load_cpu_s']:.2f}s), peak RSS {fresh['rss_mb']:.0f} MB; the process's whole run {wall:.2f}s"
    )


__all__ = ["measure"]
