"""``hindsight-es``: run the service, publish turns, recall, inspect."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.cli.bench import app as bench_app
from hindsight_es.cli.common import build_settings, console, err_console, run_async, settings_from
from hindsight_es.cli.jsonl import read_turns
from hindsight_es.client import Hindsight
from hindsight_es.errors import HindsightError

app = typer.Typer(help="hindsight: event-sourced long-term memory for LLM agents.", no_args_is_help=True,
                  pretty_exceptions_enable=False)
app.add_typer(bench_app, name="bench")

DataDir = Annotated[Optional[Path], typer.Option("--data-dir", help="Data directory [env HINDSIGHT_DATA_DIR]")]
Broker = Annotated[Optional[str], typer.Option("--broker", help="Kafka bootstrap servers [env HINDSIGHT_BROKER]")]
EmbedderOpt = Annotated[Optional[str], typer.Option("--embedder", help="minilm | use [env HINDSIGHT_EMBEDDER]")]


@app.callback()
def main(ctx: typer.Context, data_dir: DataDir = None, broker: Broker = None, embedder: EmbedderOpt = None) -> None:
    ctx.obj = build_settings(data_dir, broker, embedder)


@app.command()
def up(ctx: typer.Context) -> None:
    """Run the service: bank actor and projections (embedded log unless --broker). Ctrl-C stops it."""
    from streams.service import ServiceLock, serve

    settings = settings_from(ctx)
    lock = ServiceLock(settings)
    if not lock.acquire():
        err_console.print(f"[red]error:[/red] another `hindsight-es up` is running on {settings.data_dir}")
        raise typer.Exit(1)

    async def go() -> None:
        from hindsight_es.log import open_log

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        log = open_log(settings)
        await log.start()
        where = settings.broker or f"embedded log {settings.log_path}"
        err_console.print(f"hindsight up: {where}, data in {settings.data_dir} (Ctrl-C to stop)")
        try:
            await serve(settings, log, stop)
        except Exception as exc:
            raise HindsightError(f"the service stopped after a failure: {exc!r}") from exc
        finally:
            await log.close()
        err_console.print("hindsight stopped cleanly")

    try:
        run_async(go)
    finally:
        lock.release()


@app.command()
def publish(
    ctx: typer.Context,
    file: Annotated[Optional[Path], typer.Argument(help="JSONL file of turns; '-' or nothing reads stdin")] = None,
    bank: Annotated[Optional[str], typer.Option(help="Bank for lines without bank_id")] = None,
    session: Annotated[str, typer.Option(help="Session for lines without session_id")] = "default",
) -> None:
    """Publish turns from JSONL: {"bank_id", "session_id", "text", "role", "speaker", "source", "occurred_at"}."""
    settings = settings_from(ctx)
    try:
        stream = sys.stdin.buffer if file is None or str(file) == "-" else file.open("rb")
    except OSError as exc:
        err_console.print(f"[red]error:[/red] cannot read {file}: {exc.strerror or exc}")
        raise typer.Exit(1) from None
    with stream:
        turns, problems = read_turns(settings, stream, bank=bank, session=session)
    for problem in problems:
        err_console.print(f"[yellow]skipped[/yellow] {problem}")

    async def go() -> None:
        async with Hindsight(settings) as hs:
            await hs.publish(turns)

    if turns:
        run_async(go)
    console.print(f"published {len(turns)} turns" + (f", skipped {len(problems)} bad lines" if problems else ""))
    if problems:
        raise typer.Exit(2)


@app.command()
def recall(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    query: Annotated[str, typer.Argument(help="What to recall")],
    limit: Annotated[int, typer.Option(min=1, max=200)] = 10,
    kind: Annotated[Optional[list[str]], typer.Option(help="Only these kinds (repeatable)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Recall memories of a bank (catches the pipeline up first when no service is running)."""
    settings = settings_from(ctx)

    async def go():  # type: ignore[no-untyped-def]
        async with Hindsight(settings) as hs:
            await _catch_up_if_idle(hs)
            return await hs.recall(bank, query, limit=limit, kinds=kind)

    hits = run_async(go)
    if as_json:
        print(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False, indent=2))
        return
    table = Table(title=f"recall {bank!r}: {query}")
    for column in ("score", "kind", "text", "turns", "valid from"):
        table.add_column(column)
    for h in hits:
        table.add_row(f"{h.score:.4f}", h.kind, h.text, ",".join(h.source_turn_ids), h.valid_from.strftime("%Y-%m-%d %H:%M"))
    console.print(table)


async def _catch_up_if_idle(hs: Hindsight) -> None:
    """Without a running service, drain the log through the actor and projections in this process."""
    from streams.service import ServiceLock, catch_up_all

    lock = ServiceLock(hs.settings)
    if lock.acquire():
        try:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        finally:
            lock.release()
    else:
        lock.release()


@app.command()
def stats(ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """Per-bank memory counts and log positions."""
    from hindsight_es.cli.stats import collect, render

    settings = settings_from(ctx)

    async def go():  # type: ignore[no-untyped-def]
        async with Hindsight(settings) as hs:
            await _catch_up_if_idle(hs)
            return await collect(hs)

    report = run_async(go)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2, default=str))
    else:
        render(report)


@app.command()
def demo(ctx: typer.Context) -> None:
    """Publish a small bilingual sample conversation into bank 'demo' and print a few recalls."""
    from hindsight_es.cli.demo import run_demo

    run_async(lambda: run_demo(settings_from(ctx)))


if __name__ == "__main__":
    app()
