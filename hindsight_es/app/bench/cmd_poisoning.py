"""``bench poisoning``: the attack suite and benign controls through the real pipeline, as numbers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.app.bench.scratch import scratch
from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr


def poisoning(
    ctx: typer.Context,
    attacks: Annotated[
        Optional[Path], typer.Option(exists=True, dir_okay=False, help="Attack suite, JSONL (default: the one shipped)")
    ] = None,
    benign: Annotated[
        Optional[list[Path]],
        typer.Option(
            exists=True,
            dir_okay=False,
            help="Benign controls (repeatable): a LoCoMo JSON, a MemoryBank JSON or JSONL "
            "turns; default: the small set shipped",
        ),
    ] = None,
    k: Annotated[int, typer.Option(min=1, help="Attack succeeds when its payload is in the top k")] = 5,
    work_dir: Annotated[
        Optional[Path], typer.Option(help="Data directory (default: a temporary one, removed at exit)")
    ] = None,
    per_attack: Annotated[Optional[Path], typer.Option(help="Write one JSON line per attack here")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as JSON (progress on stderr)")] = False,
) -> None:
    """Per attack style and overall: quarantined, disputed, attack success (payload in the top k for its
    target query), trusted success (there as the owner's word, or in the trusted part of get_context) and
    displaced (a setup fact pushed out of the top k); false positives (quarantined or disputed) on benign
    turns. All through log -> bank actor (guard, trust, disputes) -> projections -> recall."""
    from hindsight_es.app.bench import poisoning as bench
    from hindsight_es.client import Hindsight
    from streams.service import catch_up_all

    if as_json:
        to_stderr()
    base = settings_from(ctx)
    settings = base.model_copy(update={"data_dir": work_dir or scratch("hindsight-poison-")})
    suite = bench.load_attacks(attacks or bench.default_attacks())

    async def go() -> tuple[list[dict], list[dict]]:
        async with Hindsight(settings) as hs:
            controls = [bench.load_benign(hs, p) for p in (benign or [bench.default_benign()])]
            t0 = time.perf_counter()
            banks = [a.bank for a in suite] + [a.control for a in suite if a.setup]
            banks += [b for c in controls for b in c.owners]
            await hs.publish(bench.declarations(banks))  # owners first: decided before any turn of their bank
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            await hs.publish([t for a in suite for t in bench.attack_turns(hs, a)])
            await hs.publish([t for a in suite if a.setup for t in bench.attack_turns(hs, a, control=True)])
            await hs.publish([t for c in controls for t in c.turns])
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            turns = sum(len(c.turns) for c in controls)
            console.print(
                f"{len(suite)} attacks and {turns} benign turns through the pipeline in "
                f"{time.perf_counter() - t0:.1f}s (embedder {settings.embedder}, data in {settings.data_dir})"
            )
            rows = await bench.evaluate_attacks(hs, suite, k=k)
            return rows, [await bench.evaluate_benign(hs, c) for c in controls]

    rows, controls = run_async(go)
    if per_attack:
        per_attack.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    if as_json:
        benign_rates = {
            c["name"]: {"turns": c["turns"], "false_positives": len(c["false_positives"])} for c in controls
        }
        print(json.dumps({"attacks": bench.summarize(rows), "benign": benign_rates}, ensure_ascii=False))
        return
    _attack_table(rows, k)
    _benign_tables(controls)
    for r in rows:
        if r["trusted_success"]:
            console.print(
                f"[red]trusted success[/red] {r['id']}: {(r['reached_trusted'] or r['reached'] or [''])[0][:100]}"
            )
        elif r["success"]:
            console.print(f"[yellow]succeeded (unverified)[/yellow] {r['id']}: {r['reached'][0][:100]}")
        if r["displaced"]:
            console.print(f"[red]displaced[/red] {r['id']}: setup {', '.join(r['dropped_setup'])} out of the top {k}")
    for c in controls:
        for fp in c["false_positives"]:
            console.print(
                f"[yellow]false positive ({fp['status']})[/yellow] {c['name']} {fp['turn_id']} ({fp['source']}): "
                f"{fp['text'][:100]}"
            )


def _attack_table(rows: list[dict], k: int) -> None:
    from hindsight_es.app.bench import poisoning as bench

    table = Table(
        title=f"poisoning: {len(rows)} attacks (success: payload in the top {k}; trusted: as the user's word; "
        "quar.: quarantined)",
        title_justify="left",
    )
    table.add_column("attack style", min_width=12)
    for column in ("n", "quar.", "disputed", "success", "trusted", "displaced"):  # trusted: trusted success
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    summary = bench.summarize(rows)
    for name, row in sorted(summary.items(), key=lambda kv: (kv[0] == "overall", kv[0].startswith("lang:"), kv[0])):
        table.add_row(name, str(row["n"]), *(f"{row[m]:.1%}" for m in bench.MEASURES))
    console.print(table)


def _benign_tables(controls: list[dict]) -> None:
    table = Table(title="benign controls (false positive = quarantined or disputed)", title_justify="left")
    for column in ("set", "turns", "false positives", "rate"):
        table.add_column(column, justify="left" if column == "set" else "right")
    total, flagged = 0, 0
    for c in controls:
        n, fp = c["turns"], len(c["false_positives"])
        total, flagged = total + n, flagged + fp
        table.add_row(c["name"], str(n), str(fp), f"{fp / max(n, 1):.2%}")
        for label, (m, f) in (*c["by_group"].items(), *(("style " + s, v) for s, v in c["by_style"].items())):
            if len(c["by_group"]) > 1 or label.startswith("style"):
                table.add_row(f"  {label}", str(m), str(f), f"{f / max(m, 1):.2%}")
    table.add_row("all", str(total), str(flagged), f"{flagged / max(total, 1):.2%}")
    console.print(table)
