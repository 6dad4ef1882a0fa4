"""``bench``: speed measured through the real pipeline, printed as numbers (not timed tests)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.table import Table

from hindsight_es.app.bench.cmd_banks import banks as bench_banks
from hindsight_es.app.bench.cmd_chaos import chaos as bench_chaos
from hindsight_es.app.bench.cmd_extraction import extraction as bench_extraction
from hindsight_es.app.bench.cmd_filler import filler as bench_filler
from hindsight_es.app.bench.cmd_ingest import ingest as bench_ingest
from hindsight_es.app.bench.cmd_lifecycle import lifecycle as bench_lifecycle
from hindsight_es.app.bench.cmd_mcp import mcp as bench_mcp
from hindsight_es.app.bench.cmd_poisoning import poisoning as bench_poisoning
from hindsight_es.app.bench.cmd_reads import reads as bench_reads
from hindsight_es.app.bench.cmd_recall import recall as bench_recall
from hindsight_es.app.bench.cmd_recall import recall_serve as bench_recall_serve
from hindsight_es.app.bench.cmd_replay import replay as bench_replay
from hindsight_es.app.bench.cmd_scale import partition_load as bench_partition_load
from hindsight_es.app.bench.cmd_scale import rebalance as bench_rebalance
from hindsight_es.app.bench.cmd_startup import startup as bench_startup
from hindsight_es.app.bench.cmd_storage import storage as bench_storage
from hindsight_es.app.bench.offtopic import (
    FloorOption,
    best_relevance,
    off_topic_report,
    print_cross_fit,
    print_off_topic,
)
from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

app = typer.Typer(help="Benchmarks that print numbers.", no_args_is_help=True, rich_markup_mode=None)
WorkDir = Annotated[
    Optional[Path], typer.Option(help="Data directory for the run (default: a temporary one, removed at exit)")
]
PerQuestion = Annotated[Optional[Path], typer.Option(help="Write per-question JSONL (rankings and metrics) here")]
app.command("replay")(bench_replay)
app.command("lifecycle")(bench_lifecycle)
app.command("poisoning")(bench_poisoning)
app.command("ingest")(bench_ingest)
app.command("mcp")(bench_mcp)
app.command("startup")(bench_startup)
app.command("reads")(bench_reads)
app.command("rebalance")(bench_rebalance)
app.command("partition-load")(bench_partition_load)
app.command("chaos")(bench_chaos)
app.command("extraction")(bench_extraction)
app.command("filler")(bench_filler)
app.command("banks")(bench_banks)
app.command("storage")(bench_storage)
app.command("recall")(bench_recall)
app.command("recall-serve", hidden=True)(bench_recall_serve)


def _bench_settings(settings: Settings, work_dir: Path | None) -> Settings:
    """A fresh data directory per run (a temporary one unless --work-dir is given)."""
    directory = work_dir or scratch("hindsight-bench-")
    return settings.model_copy(update={"data_dir": directory})


def _run_writing(
    go: Callable[[Callable[[dict], None] | None], Coroutine[Any, Any, dict]], per_question: Path | None
) -> dict:
    """Run a quality benchmark, writing one JSON line per question to ``per_question`` when given."""
    if per_question is None:
        return run_async(lambda: go(None))
    with per_question.open("w", encoding="utf-8") as sink:

        def write(row: dict) -> None:
            sink.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")

        return run_async(lambda: go(write))


def _print_quality(title: str, results: dict[str, dict[str, float]], metrics: list[str], as_json: bool = False) -> None:
    if as_json:
        print(json.dumps({"title": title, "results": results}, ensure_ascii=False))
        return
    table = Table(title=title, title_justify="left")
    table.add_column("category")
    table.add_column("n", justify="right")
    for m in metrics:
        table.add_column(m, justify="right")
    for name, row in sorted(results.items(), key=lambda kv: (kv[0] == "overall", kv[0])):
        table.add_row(name, str(row["n"]), *(f"{row[m]:.3f}" for m in metrics))
    console.print(table)


@app.command()
def locomo(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option(exists=True, dir_okay=False)],
    work_dir: WorkDir = None,
    include_adversarial: bool = False,
    per_question: PerQuestion = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON (progress on stderr)")] = False,
    off_topic: Annotated[
        bool,
        typer.Option(
            "--off-topic",
            help="Also ask each conversation's questions in another one's bank: the share with no long-term "
            "memory in get_context, beside in-bank recall, with the relevance floor on and off",
        ),
    ] = False,
    min_relevance: FloorOption = None,
) -> None:
    """LoCoMo evidence recall@5/10/20, NDCG@10, Full@10 per category, through the real pipeline."""
    if as_json:
        to_stderr()
    from hindsight_es.app.bench import locomo as bench
    from streams.service import catch_up_all

    settings = _bench_settings(settings_from(ctx), work_dir)
    conversations = bench.load(data)

    async def go(write: Callable[[dict], None] | None) -> dict:
        async with Hindsight(settings) as hs:
            t0 = time.perf_counter()
            for conversation in conversations:
                await bench.ingest(hs, conversation)
            records = await catch_up_all(settings, hs.log, embedder=hs.embedder)
            t1 = time.perf_counter()
            turns = sum(len(c["turns"]) for c in conversations)
            console.print(
                f"ingested {len(conversations)} conversations, {turns} turns ({records} records) "
                f"through the pipeline in {t1 - t0:.1f}s"
            )
            floor = settings.min_relevance if min_relevance is None else min_relevance
            results = await bench.evaluate(
                hs, conversations, include_adversarial=include_adversarial, min_relevance=floor, on_question=write
            )
            n = results["overall"]["n"]
            console.print(
                f"{n} questions in {time.perf_counter() - t1:.1f}s "
                f"({(time.perf_counter() - t1) * 1000 / max(n, 1):.1f} ms per recall)"
            )
            if off_topic:
                answered: list[dict] = []
                off = await bench.evaluate(
                    hs,
                    conversations,
                    include_adversarial=include_adversarial,
                    min_relevance=0.0,
                    on_question=answered.append,
                )
                probes = bench.off_topic_probes(conversations)
                floors = {"off": (0.0, off), f"on ({floor:g})": (floor, results)}
                reports["off-topic"] = await off_topic_report(hs, [(b, q) for _, b, q in probes], floors)
                bests = await best_relevance(hs, [(b, q) for _, b, q in probes])
                for c in conversations:
                    mine = [r for r in answered if r["qid"].split("#")[0] == c["id"]]
                    fits[c["id"]] = (mine, [x for (s, _, _), x in zip(probes, bests, strict=True) if s == c["id"]])
            return results

    reports: dict[str, list[dict]] = {}
    fits: dict[str, tuple[list[dict], list[float]]] = {}
    results = _run_writing(go, per_question)
    _print_quality(
        f"LoCoMo {data.name} (embedder {settings.embedder})",
        results,
        ["R@5", "R@10", "R@20", "NDCG@10", "Full@10"],
        as_json,
    )
    if "off-topic" in reports:
        print_off_topic(f"LoCoMo {data.name}: relevance floor", reports["off-topic"], as_json)
        if not as_json:
            default = settings.min_relevance if min_relevance is None else min_relevance
            print_cross_fit("floor fitted on one conversation, measured on each", fits, default)


@app.command()
def madial(
    ctx: typer.Context,
    data: Annotated[Path, typer.Option(exists=True, file_okay=False)],
    language: Annotated[str, typer.Option(help="zh | en: the dialogues (queries)")] = "zh",
    memory_language: Annotated[
        str | None,
        typer.Option(
            help="zh | en | mixed: the memories (default: --language); differing, it measures cross-lingual "
            "recall; mixed: each user's memories half in each language (alternating by id)"
        ),
    ] = None,
    work_dir: WorkDir = None,
    per_question: PerQuestion = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON (progress on stderr)")] = False,
) -> None:
    """MADial-Bench memory recall@1/3/5/10 (one bank per user), through the real pipeline."""
    if as_json:
        to_stderr()
    from hindsight_es.app.bench import madial as bench
    from streams.service import catch_up_all

    settings = _bench_settings(settings_from(ctx), work_dir)
    # the two languages' files share memory ids and users: any dialogues go with any memories
    memories = (
        bench.mixed_memories(data)
        if memory_language == "mixed"
        else bench.load_memories(data, memory_language or language)
    )
    dialogues = bench.load_dialogues(data, language)

    async def go(write: Callable[[dict], None] | None) -> dict:
        async with Hindsight(settings) as hs:
            await bench.ingest(hs, memories)
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            return await bench.evaluate(hs, dialogues, on_question=write)

    results = _run_writing(go, per_question)
    languages = language if memory_language in (None, language) else f"{language} queries, {memory_language} memories"
    _print_quality(
        f"MADial-Bench {languages} (embedder {settings.embedder})",
        results,
        ["R@1", "R@3", "R@5", "R@10", "Hit@1", "Hit@5", "Hit@10", "NDCG@10"],
        as_json,
    )
