"""The fresh process of ``bench partition-load``: a bank actor's restart, timed from the process's start.

It imports what a worker process imports before it can hold a partition (the CLI every role starts
through, and ``streams.service`` with the actors, projections and stores), not the bench commands (their
MCP client and HTTP stack cost another second that no worker pays), then loads the partition with the most
memory events from its snapshot and the log's tail, and prints one JSON line:
``{"imports_s", "load_s", "load_cpu_s", "ready_s", "rss_mb"}``. The snapshots are the bench's own
(``ACTOR``), never the service's.

    python -m hindsight_es.app.bench.partition_fresh DATA_DIR
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from hindsight_es.app.bench.procstat import peak_rss_mb, process_age_s
from hindsight_es.app.cli.common import run_async
from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.log import EventLog, started_log
from hindsight_es.stores.objects import LocalObjects
from hindsight_es.stores.snapshots import Snapshots
from streams.partitions import load

ACTOR = "bench-partition-load"  # its own snapshots: never the service's own


def snapshots(data_dir: Path) -> Snapshots:
    return Snapshots(LocalObjects(data_dir / "stores"), ACTOR)


async def fullest(log: EventLog) -> tuple[int, int]:
    """(partition, memory events) of the memory partition holding the most events."""
    ends = await log.end_offsets(TOPIC_MEMORIES)
    partition = max(ends, key=lambda p: ends[p])
    return partition, ends[partition]


def main(data_dir: Path) -> dict[str, float]:
    imports_s = process_age_s()
    settings = Settings(data_dir=data_dir, broker=None, stores_uri=None)

    async def go() -> tuple[float, float]:
        async with started_log(settings) as log:
            partition, _ = await fullest(log)
            t0, c0 = time.perf_counter(), time.process_time()
            owned, _ = await load(log, partition, snapshots(data_dir))
            assert owned.covered > 0, "no snapshot was loaded"
            return time.perf_counter() - t0, time.process_time() - c0

    load_s, load_cpu = run_async(go)
    ready_s = process_age_s()
    return {
        "imports_s": imports_s,
        "load_s": load_s,
        "load_cpu_s": load_cpu,
        "ready_s": ready_s,
        "rss_mb": peak_rss_mb(),
    }


if __name__ == "__main__":
    import hindsight_es.app.cli.main  # noqa: F401  (what every `hindsight-es worker` imports first)
    import streams.service  # noqa: F401  (and what it imports to run the actors)

    print(json.dumps(main(Path(sys.argv[1]))))
