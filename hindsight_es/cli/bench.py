"""``bench``: speed measured through the real pipeline, printed as numbers (not timed tests)."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from hindsight_es.cli.common import console, run_async, settings_from
from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings

app = typer.Typer(help="Benchmarks that print numbers.", no_args_is_help=True)

_EN = ["I moved to {city} last {when}.", "We use {db} for the {thing} service.", "My favorite color is {color}.",
       "I'm going to visit {city} next {when} with my sister.", "Please always reply in {lang}.",
       "Yesterday I painted a {color} sunrise by the lake.", "We decided to go with {db} after the outage.",
       "I'm allergic to {food}.", "The {thing} meeting went well, thanks for asking!", "ok thanks"]
_ZH = ["我上个{when_zh}搬到了{city_zh}。", "我们的{thing_zh}用的是 {db}。", "我最喜欢的颜色是{color_zh}。",
       "下周我要去{city_zh}出差。", "我对{food_zh}过敏。", "好的，谢谢", "我们决定下个月换成 {db}。"]
_FILL = {"city": ["Paris", "Berlin", "Tokyo", "Austin", "Lisbon"], "when": ["week", "month", "year"],
         "db": ["PostgreSQL", "MySQL", "SQLite", "MongoDB"], "thing": ["billing", "search", "orders", "auth"],
         "color": ["blue", "green", "red"], "lang": ["English", "Chinese"], "food": ["peanuts", "shellfish"],
         "when_zh": ["月", "星期"], "city_zh": ["上海", "杭州", "深圳"], "thing_zh": ["订单系统", "搜索服务"],
         "color_zh": ["红色", "蓝色"], "food_zh": ["花生", "海鲜"]}


def synthetic_turns(settings: Settings, bank: str, n: int, seed: int = 7) -> list:
    """Deterministic bilingual turns (70% English), 20 turns per session, one minute apart."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    turns = []
    for i in range(n):
        template = rng.choice(_EN if rng.random() < 0.7 else _ZH)
        text = template.format(**{k: rng.choice(v) for k, v in _FILL.items()}) + f" (#{i})"
        turns.append(make_turn(settings, bank, text, session_id=f"s{i // 20}", turn_id=f"t{i}",
                               occurred_at=start + timedelta(minutes=i)))
    return turns


def _pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


@app.command()
def ingest(ctx: typer.Context, turns: Annotated[int, typer.Option(min=10)] = 2000) -> None:
    """Turns/s through log -> bank actor (extract + embed) -> projections, on the configured log."""
    from streams.service import catch_up_all

    settings = settings_from(ctx)

    async def go() -> None:
        async with Hindsight(settings) as hs:
            batch = synthetic_turns(settings, f"bench-ingest-{int(time.time())}", turns)
            t0 = time.perf_counter()
            await hs.publish(batch)
            t1 = time.perf_counter()
            _ = hs.embedder.embed(["warm-up"])
            t2 = time.perf_counter()
            records = await catch_up_all(settings, hs.log, embedder=hs.embedder)
            t3 = time.perf_counter()
            console.print(f"published {turns} turns in {t1 - t0:.2f}s ({turns / (t1 - t0):,.0f} turns/s)")
            console.print(f"pipeline (actor + 3 projections, {records:,} records) in {t3 - t2:.2f}s: "
                          f"[bold]{turns / (t3 - t2):,.0f} turns/s[/bold] end to end")

    run_async(go)


@app.command()
def recall(ctx: typer.Context, turns: Annotated[int, typer.Option(min=10)] = 3000,
           queries: Annotated[int, typer.Option(min=10)] = 200) -> None:
    """Recall latency p50/p95/p99 on a bank built from synthetic turns through the pipeline."""
    from streams.service import catch_up_all

    settings = settings_from(ctx)
    bank = f"bench-recall-{turns}"

    async def go() -> None:
        async with Hindsight(settings) as hs:
            await hs.publish(synthetic_turns(settings, bank, turns))
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            rng = random.Random(3)
            asks = [rng.choice(["where did I move?", "which database do we use?", "我对什么过敏？", "favorite color",
                                "painting by the lake", "下周去哪里出差？"]) for _ in range(queries)]
            await hs.recall(bank, "warm-up")
            times = []
            for q in asks:
                t0 = time.perf_counter()
                await hs.recall(bank, q, limit=10)
                times.append((time.perf_counter() - t0) * 1000)
            n = hs.store.scan("memories", f"bank_id = '{bank}'", ["memory_id"]).num_rows
            console.print(f"recall over {n:,} memories, {queries} queries: p50 {_pct(times, 50):.1f} ms, "
                          f"p95 {_pct(times, 95):.1f} ms, p99 {_pct(times, 99):.1f} ms")

    run_async(go)
