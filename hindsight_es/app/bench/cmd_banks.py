"""``bench banks``: small single-topic banks, the product beside the raw baseline (R@1/3/5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.app.bench.offtopic import (
    FloorOption,
    best_relevance,
    off_topic_report,
    print_cross_fit,
    print_off_topic,
)
from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async, settings_from

SHIPPED = ("zh_banks_dev.jsonl",)
MEMORYBANK_EVIDENCE = "memorybank_evidence_cn.jsonl"
METRICS = ("R@1", "R@3", "R@5", "R@10")


def banks(
    ctx: typer.Context,
    data: Annotated[
        Optional[list[Path]],
        typer.Option(exists=True, dir_okay=False, help="Bank sets, JSONL (repeatable; default: the shipped ones)"),
    ] = None,
    memorybank: Annotated[
        Optional[Path],
        typer.Option(
            exists=True,
            dir_okay=False,
            help="Also MemoryBank's Chinese history JSON (memory_bank_cn.json), with the shipped evidence labels",
        ),
    ] = None,
    work_dir: Annotated[
        Optional[Path], typer.Option(help="Data directory (default: a temporary one, removed at exit)")
    ] = None,
    per_question: Annotated[Optional[Path], typer.Option(help="Write one JSON line per question here")] = None,
    off_topic: Annotated[
        bool,
        typer.Option(
            "--off-topic",
            help="Also ask each bank's questions in the next bank of its set: the share with no long-term memory "
            "in get_context, beside in-bank recall, with the relevance floor on and off",
        ),
    ] = False,
    min_relevance: FloorOption = None,
    traditional: Annotated[
        bool,
        typer.Option(
            "--traditional",
            help="Ask the questions in Traditional Chinese (opencc s2t), the memories as written: a user who "
            "writes one script asking about memories in the other",
        ),
    ] = False,
) -> None:
    """Evidence recall on small single-topic banks (one attribute per question), through the real pipeline,
    beside char-bigram BM25 + USE RRF over the same raw messages; per question type too, where a set's
    questions name one (simple, update, past, …)."""
    from hindsight_es.app.bench import banks as bench
    from hindsight_es.client import Hindsight
    from hindsight_es.embedding import make_embedder
    from streams.service import catch_up_all

    base = settings_from(ctx)
    settings = base.model_copy(update={"data_dir": work_dir or scratch("hindsight-banks-")})
    paths = data or [Path(__file__).parent / "data" / name for name in SHIPPED]
    sets = {path.name: bench.load(path) for path in paths}
    if memorybank is not None:
        sets[memorybank.name] = bench.memorybank(memorybank, Path(__file__).parent / "data" / MEMORYBANK_EVIDENCE)
    if traditional:
        sets = {name: bench.in_traditional(found) for name, found in sets.items()}
    rows: list[dict] = []
    floor = settings.min_relevance if min_relevance is None else min_relevance
    reports: dict[str, list[dict]] = {}
    fits: dict[str, tuple[list[dict], list[float]]] = {}
    revised: dict[str, dict[str, float]] = {}

    async def go() -> dict[str, dict]:
        async with Hindsight(settings) as hs:
            for found in sets.values():
                await bench.ingest(hs, found)
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            out = {}
            for name, found in sets.items():
                out[name] = await bench.evaluate(hs, found, min_relevance=floor, on_question=rows.append)
                if (fixed := await bench.corrections(hs, found))["n"]:
                    revised[name] = fixed
                if off_topic:
                    answered: list[dict] = []
                    off = await bench.evaluate(hs, found, min_relevance=0.0, on_question=answered.append)
                    floors = {"off": (0.0, off), f"on ({floor:g})": (floor, out[name])}
                    probes = bench.off_topic_probes(found)
                    reports[name] = await off_topic_report(hs, probes, floors)
                    fits[name] = (answered, await best_relevance(hs, probes))
            return out

    product = run_async(go)
    use = make_embedder("use")
    raw = {name: bench.raw_baseline(use, found) for name, found in sets.items()}
    table = Table(title=f"small banks (embedder {settings.embedder})", title_justify="left")
    for column in ("set", "system", "n", *METRICS):
        table.add_column(column, justify="left" if column in ("set", "system") else "right")
    for name in sets:
        ours, theirs = product[name]["overall"], raw[name]["overall"]
        table.add_row(name, "hindsight", str(ours["n"]), *(f"{ours[m]:.3f}" for m in METRICS))
        table.add_row("", "raw bigram BM25 + USE", str(theirs["n"]), *(f"{theirs[m]:.3f}" for m in METRICS))
        table.add_row("", "difference", "", *(f"{ours[m] - theirs[m]:+.3f}" for m in METRICS))
    console.print(table)
    print_types(product, raw)
    if revised:
        fixes = Table(title="questions on a correction and what it corrects", title_justify="left")
        for column in ("set", "n", "stale@3", "current@1"):
            fixes.add_column(column, justify="left" if column == "set" else "right")
        for name, fixed in revised.items():
            fixes.add_row(name, str(fixed["n"]), f"{fixed['stale@3']:.3f}", f"{fixed['current@1']:.3f}")
        console.print(fixes)
    for name, report in reports.items():
        print_off_topic(f"{name}: relevance floor", report)
    if len(fits) > 1:
        print_cross_fit("floor fitted on one set, measured on each", fits, floor)
    if per_question is not None:
        per_question.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def print_types(product: dict[str, dict], raw: dict[str, dict]) -> None:
    """R@k per question type of the sets that name two types or more, the raw baseline's R@1 and R@5 beside."""
    typed = {name: [t for t in found if t != "overall"] for name, found in product.items()}
    typed = {name: sorted(types) for name, types in typed.items() if len(types) > 1}
    if not typed:
        return
    table = Table(title="by question type", title_justify="left")
    for column in ("set", "type", "n", *METRICS, "raw R@1", "raw R@5"):
        table.add_column(column, justify="left" if column in ("set", "type") else "right")
    for name, types in typed.items():
        for i, kind in enumerate(types):
            ours, theirs = product[name][kind], raw[name][kind]
            table.add_row(
                name if i == 0 else "",
                kind,
                str(ours["n"]),
                *(f"{ours[m]:.3f}" for m in METRICS),
                f"{theirs['R@1']:.3f}",
                f"{theirs['R@5']:.3f}",
            )
    console.print(table)
