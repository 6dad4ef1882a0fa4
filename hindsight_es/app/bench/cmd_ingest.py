"""``bench ingest``: sustained turns/s through the whole pipeline, and freshness (publish -> recallable).

Two modes, both on the configured log (the embedded default, or Kafka with the global ``--broker``):

- throughput (no ``--rate``): publish ``--turns`` synthetic turns at once, then drain them through the
  bank actor and every projection in this process; prints turns/s end to end.
- freshness (``--rate R``): run the real service (``streams.service.serve``) in this process, publish
  one turn at a time at R turns/s for ``--seconds`` (scheduled by the wall clock, so a slow publish
  does not drift the rate), and watch the LanceDB ``memories`` table: a turn is recallable once a
  memory row whose ``source_turn_ids`` holds its id is there. Freshness is the time from the call to
  publish the turn to the first poll that sees such a row (an upper bound, to within ``WATCH_S``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from hindsight_es.app.bench.synthetic import synthetic_turns
from hindsight_es.app.bench.watcher import WATCH_S, Watcher, now, percentile
from hindsight_es.app.cli.common import console, run_async, settings_from
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError

WARM_UP_TURNS = 5
WARM_UP_TIMEOUT_S = 120.0  # a Kafka consumer group may take a while to join


def ingest(
    ctx: typer.Context,
    turns: Annotated[int, typer.Option(min=10, help="Throughput mode: turns published at once, then drained")] = 2000,
    rate: Annotated[
        Optional[float],
        typer.Option(min=0.1, help="Freshness mode: publish this many turns/s, one by one, to the running pipeline"),
    ] = None,
    seconds: Annotated[float, typer.Option(min=0.5, help="Freshness mode: how long to publish")] = 20.0,
    timeout: Annotated[
        float, typer.Option(min=1, help="Freshness mode: seconds after the last publish to wait for the stragglers")
    ] = 30.0,
    workers: Annotated[
        Optional[str],
        typer.Option(help="Worker processes instead of this process, e.g. 1,2: each count in turn (needs --broker)"),
    ] = None,
    pin: Annotated[bool, typer.Option(help="With --workers: pin each worker to its own core")] = False,
) -> None:
    """Ingest speed through log -> bank actor (extract + embed) -> projections, on the configured log.

    Without --rate: sustained turns/s (publish --turns, then drain them). With --rate R: freshness, the
    time from publishing a turn until a memory from it is in the LanceDB memories table (p50/p95/p99/max),
    while R turns/s arrive for --seconds. Embedded log by default; on Kafka with the global option:
    hindsight-es --broker HOST:PORT bench ingest --rate 50. With --workers 1,2 [--pin]: through that many
    `hindsight-es worker` processes, both figures per count (the rate defaults to 50 turns/s).
    """
    settings = settings_from(ctx)
    bank = f"bench-ingest-{int(time.time())}"
    if workers is not None:
        from hindsight_es.app.bench.cmd_scale import ingest_workers

        counts = [int(n) for n in workers.split(",")]
        ingest_workers(settings, counts, pin, turns, rate or 50.0, seconds)
        return
    if rate is None:
        run_async(lambda: _throughput(settings, bank, turns))
    else:
        run_async(lambda: _freshness(settings, bank, rate, seconds, timeout))


async def _throughput(settings: Settings, bank: str, n: int) -> None:
    from streams.service import catch_up_all

    async with Hindsight(settings) as hs:
        batch = synthetic_turns(settings, bank, n)
        t0 = time.perf_counter()
        await hs.publish(batch)
        t1 = time.perf_counter()
        _ = hs.embedder.embed(["warm-up"])
        t2 = time.perf_counter()
        records = await catch_up_all(settings, hs.log, embedder=hs.embedder)
        t3 = time.perf_counter()
    console.print(f"published {n} turns in {t1 - t0:.2f}s ({n / (t1 - t0):,.0f} turns/s)")
    console.print(
        f"pipeline (actor + 3 projections, {records:,} records) in {t3 - t2:.2f}s: "
        f"[bold]{n / (t3 - t2):,.0f} turns/s[/bold] end to end"
    )


async def _freshness(settings: Settings, bank: str, rate: float, seconds: float, timeout: float) -> None:
    from hindsight_es.log import open_log
    from streams.service import ServiceLock, serve

    lock = ServiceLock(settings)
    if not lock.acquire():
        lock.release()
        raise HindsightError(
            f"a service (`hindsight-es up` or `mcp`) runs on {settings.data_dir}; "
            "stop it or bench on another --data-dir"
        )
    log = open_log(settings)
    try:
        async with Hindsight(settings, log=log) as hs:
            await log.start()
            _ = hs.embedder.embed(["warm-up", "预热"])  # model load before anything is timed
            stop = asyncio.Event()
            service = asyncio.create_task(serve(settings, log, stop, embedder=hs.embedder), name="service")
            try:
                await _warm_up(hs, Watcher(settings, f"{bank}-warm-up"), service)
                if not service.done():
                    await _timed(hs, Watcher(settings, bank), rate, seconds, timeout, service)
            finally:
                stop.set()
                await asyncio.gather(service, return_exceptions=True)
            if (exc := service.exception()) is not None:
                raise HindsightError(f"the pipeline failed: {exc!r}") from exc
    finally:
        await log.close()
        lock.release()


async def _warm_up(hs: Hindsight, watcher: Watcher, service: asyncio.Task[None]) -> None:
    """A few turns in a bank of their own: consumer groups joined, tables and indexes created."""
    turns = [now(t) for t in synthetic_turns(hs.settings, watcher.bank, WARM_UP_TURNS, seed=1)]
    t0 = time.perf_counter()
    await hs.publish(turns)
    async with watcher.watching():
        with console.status("warming up the pipeline (consumer groups, tables)"):
            done = await watcher.until([t.turn_id for t in turns], t0 + WARM_UP_TIMEOUT_S, service)
    if done < len(turns) and not service.done():
        raise HindsightError(f"the pipeline did not make the warm-up turns recallable within {WARM_UP_TIMEOUT_S:g}s")
    console.print(f"pipeline warm: {done} warm-up turns recallable in {time.perf_counter() - t0:.2f}s")


async def _timed(
    hs: Hindsight, watcher: Watcher, rate: float, seconds: float, timeout: float, service: asyncio.Task[None]
) -> None:
    n = max(1, round(rate * seconds))
    turns = synthetic_turns(hs.settings, watcher.bank, n)
    sent: dict[str, float] = {}
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
    )
    async with watcher.watching():
        with Progress(*columns, console=console.real, transient=True) as progress:
            published = progress.add_task("published", total=n)
            recallable = progress.add_task("recallable", total=n)
            start = time.perf_counter()
            for i, turn in enumerate(turns):
                if service.done():
                    return
                await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))  # wall-clock schedule
                sent[turn.turn_id] = time.perf_counter()
                await hs.publish([now(turn)])
                progress.update(published, completed=i + 1)
                progress.update(recallable, completed=len(watcher.seen))
            end = time.perf_counter()
            await watcher.until(
                list(sent), end + timeout, service, lambda done: progress.update(recallable, completed=done)
            )
    _report(sent, watcher.seen, end - start, rate, timeout)
    console.print(
        f"watcher: version checked every {WATCH_S * 1000:.0f} ms, {watcher.scans} scans of new rows, "
        f"{watcher.scan_s * 1000 / max(watcher.scans, 1):.1f} ms each"
    )


def _report(sent: dict[str, float], seen: dict[str, float], elapsed: float, rate: float, timeout: float) -> None:
    n = len(sent)
    lags = sorted((seen[t] - at) * 1000 for t, at in sent.items() if t in seen)
    achieved = (n - 1) / elapsed if n > 1 and elapsed > 0 else float(n)
    console.print(f"published {n} turns in {elapsed:.2f}s: {achieved:.1f} turns/s (target {rate:g})")
    if lags:
        console.print(
            f"freshness (publish -> recallable) over {len(lags)} turns: p50 {percentile(lags, 50):.1f} ms, "
            f"p95 {percentile(lags, 95):.1f} ms, p99 {percentile(lags, 99):.1f} ms, max {lags[-1]:.1f} ms"
        )
    console.print(f"recallable: {len(lags)}/{n} turns; {n - len(lags)} not within {timeout:g}s after the last publish")
