"""``hindsight-es bench reads``: what recalls write to the log, per recall event vs one tally per interval.

One bank of synthetic facts in a fresh data directory; ``--recalls`` recalls (one interval's worth), then
the actor and the projections. Counted: the records and bytes the recalls added to the embedded log
(commands and memories topics, read from its SQLite file) and to the archive directory, first as logs
written before tallies hold them (a ``RecallServed`` per recall, which the actor answers with a
``MemoriesRecalled``), then as the reader writes them now (one ``RecallsTallied`` for the interval).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

import typer

from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async
from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.events import RecallServed, encode
from hindsight_es.log.embedded import EmbeddedLog

TOOLS = ("PostgreSQL", "Redis", "Kafka", "DuckDB", "Grafana", "Sentry")
AREAS = ("billing", "search", "orders", "payroll", "analytics", "shipping")
QUERIES = ("what do we use for billing?", "which service uses Redis?", "orders database", "analytics tooling")


def _log_bytes(path: Path) -> dict[str, tuple[int, int]]:
    """Records and value bytes per topic in the embedded log's SQLite file."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT topic, COUNT(*), SUM(LENGTH(value)) FROM records GROUP BY topic").fetchall()
    return {topic: (n, size or 0) for topic, n, size in rows}


def _dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


async def _run(per_recall: bool, recalls: int, embedder: Embedder) -> dict[str, Any]:
    from streams.service import catch_up_all

    data = scratch("hindsight-bench-reads-")
    settings = Settings(data_dir=data, partitions=1, recall_tally_s=24 * 3600)  # the run is one interval
    log = EmbeddedLog(settings.log_path, settings.partitions)
    await log.start()
    try:
        async with Hindsight(settings, log=log, embedder=embedder) as hs:
            for i, (tool, area) in enumerate((t, a) for t in TOOLS for a in AREAS):
                await hs.record_turn("bench", f"We use {tool} for the {area} service.", session_id="s", turn_id=f"t{i}")
            await catch_up_all(settings, log, embedder=embedder)
            before, archive = _log_bytes(settings.log_path), _dir_bytes(settings.data_dir / "archive")
            for n in range(recalls):
                hits = await hs.recall("bench", QUERIES[n % len(QUERIES)], limit=5, min_relevance=0.0)
                if per_recall:  # what the reader appended per recall before tallies
                    hs.reader.recorder.tallies.clear()
                    served = RecallServed(bank_id="bench", memory_ids=tuple(UUID(h.memory_id) for h in hits))
                    await log.append(TOPIC_COMMANDS, "bench", [encode(served)])
        await catch_up_all(settings, log, embedder=embedder)
        after = _log_bytes(settings.log_path)
    finally:
        await log.close()
    added = {t: (n - before.get(t, (0, 0))[0], b - before.get(t, (0, 0))[1]) for t, (n, b) in after.items()}
    log_bytes = sum(b for _, b in added.values())
    return {
        "records": {t: n for t, (n, _) in added.items() if n},
        "log_bytes": log_bytes,
        "log_bytes_per_recall": round(log_bytes / recalls, 1),
        "archive_bytes": _dir_bytes(settings.data_dir / "archive") - archive,
    }


def reads(
    recalls: Annotated[int, typer.Option(min=1, max=100_000, help="Recalls within one interval")] = 300,
    rate: Annotated[float, typer.Option(min=0.1, help="Recalls per second for the per-hour figures")] = 30.0,
    interval: Annotated[float, typer.Option(min=1.0, help="HINDSIGHT_RECALL_TALLY_S for the per-hour figures")] = 60.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Log bytes that recalls write: a RecallServed per recall (old logs) vs one RecallsTallied per interval."""
    embedder = make_embedder("minilm")
    old = run_async(lambda: _run(True, recalls, embedder))
    new = run_async(lambda: _run(False, recalls, embedder))
    # per hour, one bank: old logs grow per recall; tallies once per interval (this run is one interval)
    per_hour = {"per_recall": old["log_bytes_per_recall"] * rate * 3600, "tallied": new["log_bytes"] * 3600 / interval}
    result: dict[str, Any] = {
        "recalls": recalls,
        "rate": rate,
        "interval_s": interval,
        "per_recall": old,
        "tallied": new,
    }
    result["log_mb_per_hour"] = {k: round(v / 1e6, 3) for k, v in per_hour.items()}
    if as_json:
        print(json.dumps(result))
        return
    for name, r in (("a RecallServed per recall", old), ("one RecallsTallied", new)):
        console.print(
            f"{name}: {recalls} recalls added {r['records']} records, {r['log_bytes']:,} log bytes "
            f"({r['log_bytes_per_recall']} a recall), archive +{r['archive_bytes']:,} bytes"
        )
    mb = result["log_mb_per_hour"]
    console.print(
        f"one bank at {rate:g} recalls/s: {mb['per_recall']} MB of log an hour per recall, "
        f"{mb['tallied']} MB with a tally every {interval:g} s (while a tally holds under 500 memories)"
    )
