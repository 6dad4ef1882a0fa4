"""``bench lifecycle``: archive and restore throughput, and hot vs cold store sizes, for one large bank.

A synthetic history of ``--memories`` memories (the replay benchmark's: real ``decide``/``evolve``,
random 384-d vectors, no model) is written to the log and projected. Then, through the real bank actor
and projections: one janitor tick late enough that the episodes have faded (archive), and a restore of
``--restores`` archived memories (each read back from the log by offset). Sizes are bytes on disk.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import warnings
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import numpy as np
import typer
from rich.table import Table

from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import JanitorTick, MemoryRetained, RestoreRequested, encode
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import EventLog, open_log
from hindsight_es.stores import generations
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore
from projections.replay import open_projections
from projections.runner import catch_up, replay_into
from streams.bank_actor import GROUP, BankActor

if TYPE_CHECKING:
    from hindsight_es.embedding import CrossScript

BANK = "bench-lifecycle"


class _NoModel:
    """The actor never embeds here (ticks and restores carry no text); a stand-in that says so."""

    id, dim = "synthetic-384", 384
    compatible: tuple[str, ...] = ()
    cross_script: CrossScript | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise AssertionError("the lifecycle benchmark embeds nothing")

    def embed_query(self, text: str) -> np.ndarray:
        raise AssertionError("the lifecycle benchmark embeds nothing")


def du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


async def _write(log: EventLog, memories: int) -> tuple[int, Any]:
    """The history up to the input after which the bank holds ``memories`` memories; (events, last time)."""
    retained, last = 0, None

    def entries():
        nonlocal retained, last
        for entry in synthetic_history(BANK, 10 * memories):
            if retained >= memories and entry.topic != TOPIC_MEMORIES:
                return
            retained += isinstance(entry.event, MemoryRetained)
            last = entry.event.occurred_at
            yield entry

    return await write_history(log, entries()), last


async def _drain(actor: BankActor, log: EventLog) -> float:
    """Seconds the actor takes to decide every input waiting for it."""
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    started = time.perf_counter()
    try:
        while records := await consumer.poll(500, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
    finally:
        await consumer.close()
    return time.perf_counter() - started


async def _project(settings: Settings, log: EventLog) -> dict[str, float]:
    """Seconds each projection takes to catch up (vectors and archive), then their maintenance."""
    out: dict[str, float] = {}
    for projection in open_projections(generations.current(settings.data_dir), settings.max_text_chars):
        started = time.perf_counter()
        await catch_up(log, projection)
        await projection.maintain()
        out[projection.name] = time.perf_counter() - started
    return out


def _compact(settings: Settings) -> None:
    """Fold deletions into new files and drop old table versions (what a week of ``optimize`` does)."""
    table = LanceStore(generations.current(settings.data_dir)["lance"]).table("memories")
    if table is not None:
        with warnings.catch_warnings():  # no other process uses this data directory
            warnings.simplefilter("ignore", UserWarning)
            table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)


def lifecycle(
    ctx: typer.Context,
    memories: Annotated[int, typer.Option(min=100, help="Memories in the bank")] = 100_000,
    restores: Annotated[int, typer.Option(min=1, help="Archived memories to restore")] = 2_000,
    after_days: Annotated[float, typer.Option(help="Days after the last turn the tick happens")] = 60.0,
    work_dir: Annotated[
        Optional[Path], typer.Option(help="Data directory (default: a temporary one, removed at exit)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON (progress on stderr)")] = False,
) -> None:
    """Archive and restore throughput through the bank actor and projections; hot vs cold store sizes."""
    if as_json:
        to_stderr()
    settings = settings_from(ctx).model_copy(
        update={"data_dir": work_dir or scratch("hindsight-bench-lifecycle-"), "partitions": 1}
    )
    rows: list[tuple[str, str]] = []

    async def go() -> None:
        log = open_log(settings)
        await log.start()
        try:
            t0 = time.perf_counter()
            written, last = await _write(log, memories)
            rows.append(("history written", f"{written:,} events in {time.perf_counter() - t0:.1f}s"))
            t0 = time.perf_counter()
            projections = open_projections(generations.current(settings.data_dir), settings.max_text_chars)
            await replay_into(log, projections, batch_size=20_000)
            for projection in projections:
                await projection.maintain()
            rows.append(("projected (rebuild path)", f"{time.perf_counter() - t0:.1f}s"))
            await _skip_inputs(log)
            actor = BankActor(log, RuleExtractor(), _NoModel(), settings)
            t0 = time.perf_counter()
            folded = await actor.load()
            rows.append(
                (
                    "bank actor start-up (fold of the memory log)",
                    f"{folded:,} events in {time.perf_counter() - t0:.1f}s",
                )
            )
            state = actor.state(BANK)
            active = len(state.active())
            _compact(settings)  # sizes of the current table version, not of the versions the rebuild left
            hot0, cold0 = (
                du(generations.current(settings.data_dir)["lance"]),
                du(generations.current(settings.data_dir)["archive"]),
            )
            rows.append(("before: memories / active", f"{len(state.memories):,} / {active:,}"))
            rows.append(("before: hot (LanceDB) / cold (Parquet)", f"{mb(hot0)} / {mb(cold0)}"))

            # archive: one tick, late enough that the episodes have faded
            await log.append(
                TOPIC_COMMANDS,
                BANK,
                [encode(JanitorTick(bank_id=BANK, actor="janitor", occurred_at=last + timedelta(days=after_days)))],
            )
            decide_s = await _drain(actor, log)
            archived = sum(1 for m in state.memories.values() if m.cold)
            spent = await _project(settings, log)
            total = decide_s + spent["vectors"] + spent["archive"]
            rows.append(("archived", f"{archived:,} memories ({archived / max(active, 1):.0%} of the active)"))
            rows.append(("archive: actor (decide + append)", f"{decide_s:.2f}s, {archived / decide_s:,.0f} memories/s"))
            rows.append(
                (
                    "archive: vectors projection (delete from LanceDB)",
                    f"{spent['vectors']:.2f}s, {archived / spent['vectors']:,.0f} memories/s",
                )
            )
            rows.append(("archive: archive projection (Parquet)", f"{spent['archive']:.2f}s"))
            rows.append(
                ("[bold]archive throughput, end to end[/bold]", f"[bold]{archived / total:,.0f} memories/s[/bold]")
            )
            hot1, cold1 = (
                du(generations.current(settings.data_dir)["lance"]),
                du(generations.current(settings.data_dir)["archive"]),
            )
            _compact(settings)
            hot2 = du(generations.current(settings.data_dir)["lance"])
            hot_rows = LanceStore(generations.current(settings.data_dir)["lance"]).count(
                "memories", MemoryFilter(BANK, statuses=None)
            )
            rows.append(("after: hot rows / cold memories", f"{hot_rows:,} / {archived:,}"))
            rows.append(("after: hot as written / compacted, cold", f"{mb(hot1)} / {mb(hot2)}, {mb(cold1)}"))

            # include_archived: a vector search of the cold memories with DuckDB
            archive, rng = ArchiveStore(generations.current(settings.data_dir)["archive"]), np.random.default_rng(5)
            times = []
            for _ in range(5):
                q = rng.standard_normal(384).astype(np.float32)
                t0 = time.perf_counter()
                archive.search_cold(BANK, q / np.linalg.norm(q), 10)
                times.append(time.perf_counter() - t0)
            rows.append(
                (
                    "include_archived search over the cold memories (DuckDB)",
                    f"median {statistics.median(times) * 1000:,.0f} ms",
                )
            )

            # restore: one command naming N archived memories, each read back from the log
            chosen = [m for m, info in state.memories.items() if info.cold and info.status == "archived"][:restores]
            await log.append(TOPIC_COMMANDS, BANK, [encode(RestoreRequested(bank_id=BANK, memory_ids=tuple(chosen)))])
            decide_s = await _drain(actor, log)
            spent = await _project(settings, log)
            back = sum(1 for m in chosen if not state.memories[m].cold)
            total = decide_s + spent["vectors"] + spent["archive"]
            rows.append(("restored", f"{back:,} memories"))
            rows.append(
                (
                    "restore: actor (fetch from the log + decide + append)",
                    f"{decide_s:.2f}s, {back / decide_s:,.0f} memories/s",
                )
            )
            rows.append(
                (
                    "restore: vectors projection (insert into LanceDB)",
                    f"{spent['vectors']:.2f}s, {back / spent['vectors']:,.0f} memories/s",
                )
            )
            rows.append(("[bold]restore throughput, end to end[/bold]", f"[bold]{back / total:,.0f} memories/s[/bold]"))
            rows.append(("data directory", str(settings.data_dir)))
        finally:
            await log.close()

    run_async(go)
    if as_json:
        print(json.dumps({re.sub(r"\[/?bold\]", "", what): result for what, result in rows}, ensure_ascii=False))
        return
    table = Table(title=f"lifecycle, one bank of {memories:,} memories", title_justify="left")
    table.add_column("what")
    table.add_column("result", justify="right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


async def _skip_inputs(log: EventLog) -> None:
    """The history's inputs were decided when it was written: start the actor's group past them."""
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    try:
        ends = {(t, p): e for t in (TOPIC_TURNS, TOPIC_COMMANDS) for p, e in (await log.end_offsets(t)).items()}
        await consumer.commit(ends)
    finally:
        await consumer.close()


__all__ = ["lifecycle"]
