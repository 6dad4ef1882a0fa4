"""Scale-out benchmarks: ingest through N worker processes, decisions through kills, partition loading.

- ``ingest_workers`` (``bench ingest --workers 1,2 [--pin]``): for each count, start that many
  ``hindsight-es worker`` processes (each pinned to its own core with ``--pin``), then publish
  ``--turns`` turns at once over 16 banks (evenly over the partitions) and time them until
  recallable (turns/s), then publish ``--rate`` turns/s for ``--seconds`` and measure freshness
  (publish -> recallable, p50/p95).
- ``rebalance``: ``--turns`` turns with supersession chains over 60 banks through ``--workers``
  processes, one killed (-9) and restarted ``--kills`` times while the turns flow; the memory events
  are compared with one in-process actor's over the same inputs on the embedded log.
- ``partition_load``: a partition of ``--events`` memory events, folded whole and loaded from a snapshot.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Optional

import typer

from hindsight_es.app.bench.synthetic import synthetic_turns
from hindsight_es.app.bench.watcher import Watcher, now, percentile
from hindsight_es.app.bench.workers import Workers
from hindsight_es.app.cli.common import console, run_async, settings_from
from hindsight_es.client import make_turn
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.errors import ConfigError
from hindsight_es.events import Event, TurnRecorded, decoded, encode
from hindsight_es.log import EventLog, partition_for, replay, started_log

TEMPLATES = [
    ("From now on we use {} for shipping.", ["FedEx", "UPS", "DHL", "USPS"]),
    ("I live in {}.", ["Paris", "Berlin", "Madrid", "Rome"]),
    ("My favorite color is {}.", ["blue", "green", "red", "black"]),
    ("我们用的是 {}", ["MySQL", "PostgreSQL", "SQLite"]),
    ("{}", ["thanks", "ok", "好的"]),
]


def _shared(settings: Settings) -> Settings:
    """The settings the workers run with: shared stores (a temporary directory unless configured)."""
    if not settings.broker:
        raise ConfigError("the scale-out benchmarks need a broker: hindsight-es --broker HOST:PORT bench …")
    if settings.stores_uri is None:
        settings = settings.model_copy(update={"stores_uri": tempfile.mkdtemp(prefix="hindsight-bench-stores-")})
    return settings


# ------------------------------------------------------------------ ingest with workers


Key = tuple[str, str]  # (bank, turn id): turn ids repeat across banks


def _keys(turns: Sequence[TurnRecorded]) -> set[Key]:
    return {(t.bank_id, t.turn_id) for t in turns}


def _balanced(prefix: str, count: int, partitions: int) -> list[str]:
    """``count`` bank names spread evenly over the partitions: a bank's partition is its name's hash, and
    16 hashed names fall unevenly (a 62/38 split of the work between two workers was seen), which would
    measure the hash's luck, not what a second worker adds. Real deployments have many banks per
    partition, where the hash evens out."""
    names: list[str] = []
    per: defaultdict[int, int] = defaultdict(int)
    b = 0
    while len(names) < count:
        name, b = f"{prefix}-{b}", b + 1
        if per[p := partition_for(name, partitions)] < -(-count // partitions):
            per[p] += 1
            names.append(name)
    return names


def _watchers(settings: Settings, banks: Sequence[str]) -> list[Watcher]:
    """One watcher per partition of ``banks`` (``Watcher``'s ``also``)."""
    by: dict[int, list[str]] = defaultdict(list)
    for bank in banks:
        by[partition_for(bank, settings.partitions)].append(bank)
    return [Watcher(settings, first, also=rest) for first, *rest in by.values()]


async def _watch_until(watchers: list[Watcher], ids: set[Key], deadline: float, every_s: float) -> dict[Key, float]:
    """Poll every bank's watcher until every (bank, turn) is recallable or ``deadline`` (perf_counter)."""
    seen: dict[Key, float] = {}
    while time.perf_counter() < deadline:
        # every bank at once: one after another, a round over S3 took ~0.5 s for 8 banks, and a turn
        # would wait for its bank's turn in the round
        await asyncio.gather(*(asyncio.to_thread(watcher.poll) for watcher in watchers))
        for watcher in watchers:
            seen.update(watcher.seen_in)
        if ids <= set(seen):
            break
        await asyncio.sleep(every_s)
    return seen


async def _one_count(
    settings: Settings, log: EventLog, n: int, pin: bool, turns: int, rate: float, seconds: float
) -> None:
    root = Path(tempfile.mkdtemp(prefix=f"hindsight-bench-workers{n}-"))
    workers = Workers(settings, root, pin=pin)
    stamp = int(time.time())
    try:
        for i in range(n):
            workers.start(i)
        warm = [f"bench-w{n}-{stamp}-warm-{b}" for b in range(8)]
        batch = [now(t) for b in warm for t in synthetic_turns(settings, b, 3, seed=1)]
        t0 = time.perf_counter()
        await _publish(log, batch)
        seen = await _watch_until(_watchers(settings, warm), _keys(batch), t0 + 180, 0.2)
        console.print(
            f"{n} worker(s){' pinned' if pin else ''}: warm ({len(seen)}/{len(batch)}) "
            f"in {time.perf_counter() - t0:.1f}s"
        )

        banks = _balanced(f"bench-w{n}-{stamp}", 16, settings.partitions)
        batch = [now(t) for b, bank in enumerate(banks) for t in synthetic_turns(settings, bank, turns // 16, seed=b)]
        turns = len(batch)
        cpu0, own0 = workers.cpu_s(), time.process_time()
        t0 = time.perf_counter()
        await _publish(log, batch)
        seen = await _watch_until(_watchers(settings, banks), _keys(batch), t0 + 600, 0.1)
        took = max(seen.values(), default=t0) - t0
        cpu = {i: s - cpu0.get(i, 0.0) for i, s in workers.cpu_s().items()}
        console.print(
            f"  throughput: {len(seen)}/{turns} turns recallable in {took:.1f}s: "
            f"[bold]{len(seen) / max(took, 1e-9):,.1f} turns/s[/bold]"
        )
        # The broker, the object store and this process share the machine's cores with the workers; the
        # workers' own CPU time says whether adding one adds capacity (no work repeated) apart from them.
        busiest, total = max(cpu.values(), default=0.0), sum(cpu.values())
        each = ", ".join(f"{c:.1f}s" for c in cpu.values())
        console.print(
            f"  worker CPU: {total:.1f}s in all ({1000 * total / max(len(seen), 1):.1f} ms/turn; per worker {each});"
            f" this process {time.process_time() - own0:.1f}s; CPU-bound capacity (turns / busiest worker's CPU"
            f" seconds): {len(seen) / max(busiest, 1e-9):,.1f} turns/s"
        )

        banks = _balanced(f"bench-w{n}-{stamp}-fresh", 8, settings.partitions)
        count = max(1, round(rate * seconds))
        fresh = [
            t for b, bank in enumerate(banks) for t in synthetic_turns(settings, bank, max(1, count // 8), seed=10 + b)
        ]
        fresh.sort(key=lambda t: (t.turn_id, t.bank_id))  # the banks interleaved
        count = len(fresh)
        watchers = _watchers(settings, banks)
        sent: dict[Key, float] = {}
        start = time.perf_counter()
        # every 0.1 s: finer would measure the watcher's own load on the broker's and store's cores
        watching = asyncio.create_task(_watch_until(watchers, _keys(fresh), start + seconds + 60, 0.1))
        # Open loop: each turn is due at start + i / rate and its lag counts from then, so a publish slower
        # than the schedule (sealing makes key objects first) shows in the figures instead of lowering the
        # rate. One producer per bank, side by side: a conversation's turns stay in order, as a
        # service's would; one producer for all banks managed 25 turns/s on object storage.
        due: dict[str, list[tuple[float, TurnRecorded]]] = defaultdict(list)
        for i, t in enumerate(fresh):
            due[t.bank_id].append((start + i / rate, t))

        async def produce(turns: list[tuple[float, TurnRecorded]]) -> None:
            for at, t in turns:
                await asyncio.sleep(max(0.0, at - time.perf_counter()))
                sent[(t.bank_id, t.turn_id)] = at
                await log.append(TOPIC_TURNS, t.bank_id, [encode(now(t))])

        await asyncio.gather(*map(produce, due.values()))
        published = time.perf_counter() - start
        seen = await watching
        lags = sorted((seen[k] - v) * 1000 for k, v in sent.items() if k in seen)
        console.print(f"  published {count} turns in {published:.1f}s ({count / published:.1f} turns/s, due {rate:g})")
        if lags:
            console.print(
                f"  freshness at {rate:g} turns/s over {len(lags)}/{count} turns: p50 {percentile(lags, 50):.0f} ms, "
                f"p95 {percentile(lags, 95):.0f} ms, max {lags[-1]:.0f} ms"
            )
        console.print("  RSS per worker: " + ", ".join(f"{mb:.0f} MB" for mb in workers.rss_mb().values()))
    finally:
        workers.stop()


async def _publish(log: EventLog, events: Sequence[Event]) -> None:
    by_bank: dict[tuple[str, str], list[bytes]] = defaultdict(list)
    for event in events:
        by_bank[(TOPIC_TURNS if isinstance(event, TurnRecorded) else TOPIC_COMMANDS, event.bank_id)].append(
            encode(event)
        )
    for (topic, bank), values in by_bank.items():
        await log.append(topic, bank, values)


def ingest_workers(settings: Settings, counts: list[int], pin: bool, turns: int, rate: float, seconds: float) -> None:
    settings = _shared(settings)
    console.print(f"stores: {settings.stores_uri}; broker {settings.broker}; embedder {settings.embedder}")

    async def go() -> None:
        async with started_log(settings) as log:
            for n in counts:
                await _one_count(settings, log, n, pin, turns, rate, seconds)

    run_async(go)


# ------------------------------------------------------------------ rebalance


def chain_inputs(settings: Settings, turns: int, banks: int, stamp: int) -> list[TurnRecorded]:
    rng = random.Random(7)
    names = [f"rebalance-{stamp}-{b:02d}" for b in range(banks)]
    t0 = datetime(2026, 3, 1, tzinfo=UTC)
    out = []
    for i in range(turns):
        bank = names[i % banks]
        template, values = TEMPLATES[rng.randrange(len(TEMPLATES))]
        text = template.format(rng.choice(values))
        out.append(
            make_turn(
                settings,
                bank,
                text,
                session_id=f"s{i // (banks * 10)}",
                turn_id=f"t{i}",
                occurred_at=t0 + timedelta(seconds=i),
            )
        )
    return out


def waves(inputs: list[TurnRecorded], count: int) -> list[list[TurnRecorded]]:
    """``inputs`` (in time order) cut into ``count`` consecutive waves: every bank's turns stay in the
    order the reference decides them, whatever the bank count."""
    size = -(-len(inputs) // count)
    return [inputs[i : i + size] for i in range(0, len(inputs), size)]


async def decisions(log: EventLog, banks: set[str]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    async for records in replay(log, TOPIC_MEMORIES):
        for _, event in decoded(records):
            if event.bank_id in banks:
                out[event.bank_id].append((event.type, str(event.event_id)))
    return out


async def reference_decisions(settings: Settings, inputs: list[TurnRecorded]) -> dict[str, list[tuple[str, str]]]:
    from hindsight_es.embedding import make_embedder
    from hindsight_es.extraction import RuleExtractor
    from hindsight_es.log.embedded import EmbeddedLog
    from streams.bank_actor import BankActor

    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-reference-"))  # scratch: the decisions are returned
    local = settings.model_copy(update={"broker": None, "data_dir": root, "stores_uri": None})
    log = EmbeddedLog(local.log_path, settings.partitions)
    await log.start()
    try:
        await _publish(log, list(inputs))
        actor = BankActor(log, RuleExtractor(), make_embedder(settings.embedder), local)
        consumer = await log.consumer("reference", [TOPIC_TURNS, TOPIC_COMMANDS])
        while records := await consumer.poll(500, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
        await consumer.close()
        return await decisions(log, {t.bank_id for t in inputs})
    finally:
        await log.close()
        shutil.rmtree(root, ignore_errors=True)


def rebalance(
    ctx: typer.Context,
    turns: Annotated[int, typer.Option(min=100, help="Turns published")] = 10_000,
    kills: Annotated[int, typer.Option(min=0, help="Workers killed (-9) and restarted while the turns flow")] = 3,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes")] = 3,
    banks: Annotated[int, typer.Option(min=4, help="Banks (spread over every partition)")] = 60,
) -> None:
    """Decisions through kills: 0 lost, 0 duplicated, identical to one worker (needs --broker)."""
    settings = _shared(settings_from(ctx))
    stamp = int(time.time())
    inputs = chain_inputs(settings, turns, banks, stamp)

    async def go() -> None:
        t0 = time.perf_counter()
        expected = await reference_decisions(settings, inputs)
        console.print(
            f"reference (one actor, embedded log): {sum(map(len, expected.values())):,} memory events "
            f"in {time.perf_counter() - t0:.1f}s"
        )
        root = Path(tempfile.mkdtemp(prefix="hindsight-bench-rebalance-"))
        pool = Workers(settings, root)
        rng = random.Random(stamp)
        async with started_log(settings) as log:
            try:
                for i in range(workers):
                    pool.start(i)
                chunks = waves(inputs, kills + 1)
                for k, chunk in enumerate(chunks):
                    await _publish(log, list(chunk))
                    if k < kills:
                        await asyncio.sleep(4)
                        victim = rng.choice(pool.alive())
                        pool.kill(victim)
                        console.print(f"killed worker {victim} (-9) at {time.perf_counter() - t0:.0f}s")
                        await asyncio.sleep(3)
                        pool.start(victim)
                deadline = time.monotonic() + max(300, turns / 5)
                while True:
                    found = await decisions(log, set(expected))
                    if all(len(found.get(b, [])) >= len(v) for b, v in expected.items()) or time.monotonic() > deadline:
                        break
                    await asyncio.sleep(5)
                await asyncio.sleep(5)
                found = await decisions(log, set(expected))
            finally:
                pool.stop()
        compare_decisions(inputs, expected, found)

    run_async(go)


def compare_decisions(
    inputs: list[TurnRecorded],
    expected: dict[str, list[tuple[str, str]]],
    found: dict[str, list[tuple[str, str]]],
    *,
    show: bool = True,
) -> dict[str, int]:
    """Memory events found against a reference's: lost, duplicated, not in it, banks that differ (printed
    unless ``show`` is false)."""
    want = {e for v in expected.values() for e in v}
    got = Counter(e for v in found.values() for e in v)
    lost = len(want - set(got))
    duplicated = sum(n - 1 for n in got.values() if n > 1)
    extra = len(set(got) - want)
    differing = sum(1 for b in expected if expected[b] != found.get(b, []))
    counts = {"lost": lost, "duplicated": duplicated, "extra": extra, "differing_banks": differing}
    if not show:
        return counts
    console.print(
        f"turns {len(inputs):,}; memory events expected {len(want):,}, found {sum(got.values()):,}: "
        f"[bold]lost {lost}, duplicated {duplicated}, not in the reference {extra}, "
        f"banks whose decisions differ {differing}[/bold]"
    )
    return counts


# ------------------------------------------------------------------ partition load


def partition_load(
    ctx: typer.Context,
    events: Annotated[int, typer.Option(min=1000, help="Memory events in the partition")] = 100_000,
    banks: Annotated[int, typer.Option(min=1, help="Banks on the partition")] = 20,
    history: Annotated[
        str, typer.Option(help="decided: the bank actor's decisions (slow to write); bulk: written directly")
    ] = "decided",
    work_dir: Annotated[
        Optional[Path], typer.Option(help="Data directory (default: a new one); a log in it is reused as it is")
    ] = None,
) -> None:
    """Load time of one partition's bank states: a full fold of its memory events vs a snapshot + tail,
    and the snapshot load in a fresh process, timed from the process's start (imports included).

    A log already in ``--work-dir`` (a ``bench recall --history bulk`` store, say) is used as it is: its
    partition with the most memory events is loaded."""
    from hindsight_es.app.bench.partition_bench import measure

    base = settings_from(ctx)
    root = work_dir or Path(tempfile.mkdtemp(prefix="hindsight-bench-partition-"))
    update: dict[str, object] = {"data_dir": root, "broker": None, "stores_uri": None}
    if not (root / "log.sqlite3").exists():
        update["partitions"] = 1
    settings = base.model_copy(update=update)
    if history not in ("decided", "bulk"):
        raise typer.BadParameter("decided or bulk", param_hint="--history")
    measure(settings, events, banks, history)
