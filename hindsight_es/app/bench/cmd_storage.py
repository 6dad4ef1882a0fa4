"""``hindsight-es bench storage``: bytes per memory in the log, the hot store and the archive.

A bank is built through the real pipeline (synthetic bilingual turns, ``synthetic.py``; the rule
extractor, the configured embedder, the bank actor and the three projections), then maintained as a
running service would maintain it over time: indexes built, archive files merged, old LanceDB table
versions dropped. Every figure is divided by the memories retained (``MemoryRetained`` events): each
of them has a row in the hot table (unless archived) and an archive row, whatever its status now.

- log: the records' bytes per topic (what any log holds, Kafka too) and, for the embedded log, the
  SQLite files on disk; the vectors' share of the ``MemoryRetained`` records beside them;
- hot store: the LanceDB ``memories`` table on disk (data and indexes) and ``turns``;
- archive: the Parquet files.
"""

from __future__ import annotations

import asyncio
import base64
import json
import tempfile
import time
import warnings
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hindsight_es.app.bench.synthetic import synthetic_turns
from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr
from hindsight_es.client import Hindsight
from hindsight_es.config import ALL_TOPICS, TOPIC_MEMORIES, Settings


def storage(
    ctx: typer.Context,
    turns: Annotated[int, typer.Option(min=10, help="Synthetic turns to ingest")] = 2000,
    work_dir: Annotated[Optional[Path], typer.Option(help="Data directory (default: a temporary one)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON (progress on stderr)")] = False,
) -> None:
    """Bytes per memory in the log, the hot store and the archive, for a bank built through the pipeline."""
    root = work_dir or Path(tempfile.mkdtemp(prefix="hindsight-bench-storage-"))
    settings = settings_from(ctx).model_copy(update={"data_dir": root})
    if as_json:
        to_stderr()
    result = run_async(lambda: _measure(settings, turns))
    if as_json:
        print(json.dumps(result))
        return
    _report(result, root)


async def _measure(settings: Settings, n: int) -> dict[str, Any]:
    from streams.service import catch_up_all

    async with Hindsight(settings) as hs:
        bank = f"bench-storage-{int(time.time())}"
        console.print(f"ingesting {n:,} synthetic turns into {bank} ...")
        await hs.publish(synthetic_turns(settings, bank, n))
        started = time.perf_counter()
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        console.print(f"  pipeline done in {time.perf_counter() - started:.1f}s; maintaining the stores ...")
        log = await _log_bytes(hs)
    await asyncio.to_thread(_maintain, settings)
    stores = _store_bytes(settings)
    memories = log["memories_retained"]
    per = lambda b: round(b / memories, 1) if memories else 0.0  # noqa: E731
    log_disk = _size(*settings.data_dir.glob("log.sqlite3*")) if not settings.broker else None
    total = (log_disk if log_disk is not None else log["bytes"]) + stores["hot"] + stores["archive"]
    return {
        "turns": n,
        **log,
        "log_disk_bytes": log_disk,
        **stores,
        "per_memory": {
            "log_records": per(log["bytes"]),
            "log_memory_records": per(log["topics"].get(TOPIC_MEMORIES, 0)),
            "retained_vector": per(log["vector_bytes"]),
            "log_disk": None if log_disk is None else per(log_disk),
            "hot": per(stores["hot"]),
            "hot_memories_table": per(stores["hot_memories"]),
            "hot_memories_indexes": per(stores["hot_memories_indexes"]),
            "archive": per(stores["archive"]),
            "all": per(total),
        },
    }


async def _log_bytes(hs: Hindsight) -> dict[str, Any]:
    """Record bytes per topic, memories retained, and the bytes their vectors take in those records."""
    from hindsight_es.events import MemoryRetained, decoded

    topics: Counter[str] = Counter()
    retained = vector_bytes = 0
    for topic in ALL_TOPICS:
        for partition, end in (await hs.log.end_offsets(topic)).items():
            start = 0
            while start < end:
                records = await hs.log.read(topic, partition, start, end, 5000)
                if not records:
                    break
                topics[topic] += sum(len(r.value) for r in records)
                if topic == TOPIC_MEMORIES:
                    for _, event in decoded(records):
                        if isinstance(event, MemoryRetained):
                            retained += 1
                            vector_bytes += len(base64.b64encode(event.vector)) + len('"vector":"",')
                start = records[-1].offset + 1
    return {
        "topics": dict(topics),
        "bytes": sum(topics.values()),
        "memories_retained": retained,
        "vector_bytes": vector_bytes,
    }


def _maintain(settings: Settings) -> None:
    """What a running service does over time: indexes up to date, archive files merged, old table versions
    dropped (``optimize`` with no grace period: nothing else uses this data directory)."""
    from hindsight_es.stores import generations
    from hindsight_es.stores.archive import ArchiveStore
    from hindsight_es.stores.lance import LanceStore

    paths = generations.current(settings.data_dir)
    store = LanceStore(paths["lance"])
    store.ensure_indexes()
    for name in ("memories", "turns"):
        if (table := store.table(name)) is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
    ArchiveStore(paths["archive"]).compact_all(min_files=2)


def _store_bytes(settings: Settings) -> dict[str, int]:
    from hindsight_es.stores import generations

    paths = generations.current(settings.data_dir)
    memories = Path(paths["lance"]) / "memories.lance"
    indexes = _size(memories / "_indices")
    return {
        "hot": _size(Path(paths["lance"])),
        "hot_memories": _size(memories),
        "hot_memories_indexes": indexes,
        "hot_turns": _size(Path(paths["lance"]) / "turns.lance"),
        "archive": _size(Path(paths["archive"])),
    }


def _size(*paths: Path) -> int:
    total = 0
    for path in paths:
        if path.is_file():
            total += path.stat().st_size
        elif path.is_dir():
            total += sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
    return total


def _report(r: dict[str, Any], root: Path) -> None:
    p = r["per_memory"]
    kib = lambda b: f"{b / 1024:,.1f} KiB"  # noqa: E731
    console.print(f"{r['turns']:,} turns -> {r['memories_retained']:,} memories retained; data directory {root}")
    console.print(
        f"log: {kib(r['bytes'])} of records ({p['log_records']:,.0f} B per memory; the memories topic "
        f"{p['log_memory_records']:,.0f} B, of which the vector {p['retained_vector']:,.0f} B)"
        + ("" if r["log_disk_bytes"] is None else f"; on disk {kib(r['log_disk_bytes'])} ({p['log_disk']:,.0f} B)")
    )
    console.print(
        f"hot store: {kib(r['hot'])} ({p['hot']:,.0f} B per memory; the memories table "
        f"{p['hot_memories_table']:,.0f} B, {p['hot_memories_indexes']:,.0f} B of it indexes; "
        f"turns {kib(r['hot_turns'])})"
    )
    console.print(f"archive: {kib(r['archive'])} ({p['archive']:,.0f} B per memory)")
    console.print(f"[bold]all in: {p['all']:,.0f} B per memory[/bold]")
