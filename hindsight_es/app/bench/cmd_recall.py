"""``bench recall``: recall latency, the first recall after a start and the serving RSS, at bank sizes up
to a million memories and at many small banks in one table.

A store is built once per layout under ``--work-dir`` and reused: the events are written to the log
(``--history decided``: the bank actor's own decisions, ``bench replay``'s history; ``bulk``: written
directly, ``bench.bulk``, the way to a million), then projected (``decided``: caught up live; ``bulk``:
the projections' rebuild into a new generation, switched to). A fresh process (``recall-serve``) then
loads the query embedder, warms the store as ``up`` does, and times its first recall and ``--queries``
more, so its peak RSS is the serving footprint.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from hindsight_es.app.bench import cmd_load
from hindsight_es.app.bench.bulk_build import Built, build_bulk
from hindsight_es.app.bench.procstat import peak_rss_mb
from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async, settings_from, warm_reads
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


def recall(
    ctx: typer.Context,
    sizes: Annotated[str, typer.Option(help="Bank sizes (active memories), comma-separated")] = "1000,10000,100000",
    queries: Annotated[int, typer.Option(min=10)] = 300,
    work_dir: Annotated[
        Optional[Path], typer.Option(help="Data directory for the run (default: a temporary one, removed at exit)")
    ] = None,
    history: Annotated[
        str,
        typer.Option(help="decided: the bank actor's decisions (slow past 100k); bulk: written directly, then rebuilt"),
    ] = "decided",
    banks: Annotated[
        int, typer.Option(min=0, help="Instead of --sizes: this many banks of --per-bank memories in one table (bulk)")
    ] = 0,
    per_bank: Annotated[int, typer.Option(min=1, help="With --banks: active memories per bank")] = 100,
    concurrency: Annotated[
        int, typer.Option(min=0, help="Clients (one process each) against a real `up`; 0: one client in process")
    ] = 0,
    seconds: Annotated[float, typer.Option(min=1, help="With --concurrency: how long the clients run")] = 30,
    ingest_rate: Annotated[
        float, typer.Option(min=0, help="With --concurrency: turns/s retained into the bank meanwhile")
    ] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print each size's figures as one JSON line")] = False,
) -> None:
    """Recall latency p50/p95/p99, first recall after start and peak RSS at several bank sizes (generated
    memories), or over ``--banks`` banks of ``--per-bank`` memories; with --concurrency, recalls/s and
    latency under that many concurrent clients.

    ``--history decided`` writes each bank with the bank actor's decisions (synthetic texts, random unit
    vectors of the configured embedder's size under its id, no model) until it holds ``size`` active
    memories beside about as many superseded, forgotten and retracted ones, and projects it. ``bulk``
    writes the events directly (two memories a turn, about 0.9 of them active) and fills the stores
    through the projections' rebuild: the build prints its write and rebuild rates. A layout already in
    ``--work-dir`` is reused. Then a fresh process loads the query embedder, times its first recall and
    answers the queries through ``Hindsight.recall`` (over random banks of a ``--banks`` layout).
    """
    if history not in ("decided", "bulk"):
        raise typer.BadParameter("decided or bulk", param_hint="--history")
    if banks and history != "bulk":
        raise typer.BadParameter("a --banks layout is written in bulk: add --history bulk", param_hint="--banks")
    base = settings_from(ctx)
    root = work_dir or scratch("hindsight-bench-recall-")
    layouts = [(f"b{banks}x{per_bank}", banks, per_bank)] if banks else [(f"n{s}", 1, s) for s in _sizes(sizes)]
    for name, count, size in layouts:
        settings = base.model_copy(update={"data_dir": root / (name if history == "decided" else f"{name}-bulk")})
        bank = f"bench-recall-{size}" if count == 1 else f"bench-banks-{size}-"
        built = run_async(_builder(history, settings, bank, count, size, progress=not as_json))
        os.sync()  # the build's writes reach the disk now, not while the server is being timed
        head = f"{built.active:>7,} active memories in {count:,} bank(s), {built.rows:,} rows"
        if built.seconds:
            head += f" (built in {built.seconds:.0f}s"
            if built.events:
                head += (
                    f": {built.events:,} events written at {built.events / built.write_s:,.0f}/s, rebuilt at "
                    f"{built.events / built.rebuild_s:,.0f} events/s, indexes {built.index_s:.0f}s"
                )
            head += ")"
        figures: dict[str, Any] = {"layout": name, "banks": count, **asdict(built)}
        if concurrency:
            if count != 1:
                raise typer.BadParameter("--concurrency serves one bank: use --sizes", param_hint="--concurrency")
            cmd_load.check_free(settings)
            report = cmd_load.run_load(settings, bank, concurrency, seconds, ingest_rate)
            if as_json:
                print(json.dumps({**figures, **report}))
            else:
                console.print(head + ":")
                cmd_load.print_load(report)
            continue
        result = _serve(settings, base.embedder, bank, count, queries, history)
        if as_json:
            print(json.dumps({**figures, **result}))
            continue
        console.print(
            f"{head}: store warm-up at start {result['warm']:.0f} ms, first recall {result['first']:.1f} ms; "
            f"recall p50 {result['p50']:.1f} ms, p95 {result['p95']:.1f} ms, p99 {result['p99']:.1f} ms; "
            f"peak RSS {result['rss_mb']:.0f} MB"
        )


def _builder(
    history: str, settings: Settings, bank: str, count: int, size: int, *, progress: bool
) -> Callable[[], Coroutine[Any, Any, Built]]:
    if history == "bulk":
        return lambda: build_bulk(settings, bank, count, size, progress=progress)
    return lambda: _build_decided(settings, bank, size)


def _sizes(sizes: str) -> list[int]:
    try:
        return [int(x) for x in sizes.split(",")]
    except ValueError:
        raise typer.BadParameter(f"comma-separated integers, not {sizes!r}", param_hint="--sizes") from None


async def _build_decided(settings: Settings, bank: str, size: int) -> Built:
    from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
    from hindsight_es.embedding import make_embedder
    from hindsight_es.log import started_log
    from hindsight_es.stores import generations
    from hindsight_es.stores.filters import MemoryFilter
    from hindsight_es.stores.lance import LanceStore
    from projections.runner import catch_up
    from projections.vectors import VectorsProjection

    embedder = make_embedder(settings.embedder)
    async with started_log(settings) as log:
        t0 = time.perf_counter()
        store = LanceStore(generations.current(settings.data_dir)["lance"])
        if store.table("memories") is not None and (built := store.count("memories", MemoryFilter(bank))):
            return Built(built, store.count("memories", MemoryFilter(bank, statuses=None)), 0.0)
        entries = synthetic_history(bank, 0, dim=embedder.dim, min_active=size, embedder_id=embedder.id)
        await write_history(log, entries)
        await catch_up(log, VectorsProjection(store))
        store.ensure_indexes(("memories",))
        active = store.count("memories", MemoryFilter(bank))
        return Built(active, store.count("memories", MemoryFilter(bank, statuses=None)), time.perf_counter() - t0)


def _serve(settings: Settings, embedder: str, bank: str, count: int, queries: int, words: str) -> dict[str, Any]:
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--data-dir", str(settings.data_dir)]
    argv += ["--embedder", embedder, "bench", "recall-serve", "--bank", bank, "--queries", str(queries)]
    argv += ["--words", words]
    if count != 1:
        argv += ["--bank-count", str(count)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def recall_serve(
    ctx: typer.Context,
    bank: Annotated[str, typer.Option()],
    queries: Annotated[int, typer.Option(min=10)] = 300,
    bank_count: Annotated[
        int, typer.Option(min=1, help="Banks named BANK0..BANK{n-1}: each query asks a random one")
    ] = 1,
    words: Annotated[
        str, typer.Option(help="Query words: decided (the decided history's) or bulk (the bulk history's Zipf words)")
    ] = "decided",
) -> None:
    """(used by ``bench recall``) Answer queries against an existing bank; print latencies as JSON."""
    settings = settings_from(ctx)
    from hindsight_es.app.bench import bulk, load_client

    if words not in ("decided", "bulk"):
        raise typer.BadParameter("decided or bulk", param_hint="--words")
    # Queries in the bank's own words: the bulk history's texts share none with the decided one's, and
    # queries matching no text would leave the full-text searches nothing to do
    asks = (bulk.queries if words == "bulk" else load_client.queries)(queries, 5)
    rng = random.Random(5)
    names = [bank] if bank_count == 1 else [f"{bank}{rng.randrange(bank_count)}" for _ in range(len(asks) + 1)]

    async def go() -> tuple[float, float, list[float]]:
        async with Hindsight(settings) as hs:
            hs.embedder.embed_query("warm up")  # the models load here, not in the first recall
            t0 = time.perf_counter()
            await warm_reads(hs)  # as `up` and `serve` do before they serve
            warmed = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            await hs.recall(names[-1], "what did we decide about the security audit?", limit=10)
            first = (time.perf_counter() - t0) * 1000
            times = []
            for i, q in enumerate(asks):
                t0 = time.perf_counter()
                await hs.recall(names[i % len(names)], q, limit=10)
                times.append((time.perf_counter() - t0) * 1000)
            return warmed, first, times

    warmed, first, times = run_async(go)
    figures = {"warm": warmed, "first": first, "p50": pct(times, 50), "p95": pct(times, 95), "p99": pct(times, 99)}
    print(json.dumps({**figures, "rss_mb": peak_rss_mb()}))


__all__ = ["Built", "pct", "recall", "recall_serve"]
