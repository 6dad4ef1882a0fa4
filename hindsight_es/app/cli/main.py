"""``hindsight-es``: run the service, publish turns, recall, inspect.

The groups ``replay``, ``quarantine`` and ``bench`` are imported only when one of their commands runs
(``deferred``), every command imports what it needs in its body: ``--help`` loads no store nor model.
"""

from __future__ import annotations

import json
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from hindsight_es.app.cli import erase, lifecycle, memory_commands, roles
from hindsight_es.app.cli.bank_arg import either_way
from hindsight_es.app.cli.common import (
    EXIT_USAGE,
    Options,
    announce,
    console,
    err_console,
    existing_store,
    fail,
    failed,
    refused_path,
    run_async,
    run_service,
    settings_from,
    to_stderr,
    warm_reads,
    with_reader,
)
from hindsight_es.app.cli.fresh import Fresh, undone_on_failure
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight

# Plain (click-style) help: typer's rich help imports rich's markdown and traceback machinery (~0.2 s).
app = typer.Typer(
    help="hindsight: event-sourced long-term memory for LLM agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# Command groups loaded on use: name -> (module:attribute of its Typer app, one-line help).
DEFERRED = {
    "replay": (
        "hindsight_es.app.cli.replay:app",
        "Replay the log: rebuild, verify, audit, roll back, state as of a time, export/import.",
    ),
    "quarantine": (
        "hindsight_es.app.cli.quarantine:app",
        "Review memories the poisoning guard quarantined (never recalled until released).",
    ),
    "disputes": (
        "hindsight_es.app.cli.disputes:app",
        "Disputes: less trusted memories that contradict the owner's, until the owner accepts or rejects them.",
    ),
    "owners": ("hindsight_es.app.cli.disputes:owners_app", "A bank's owners: whose user turns are the owner's word."),
    "bench": ("hindsight_es.app.bench.cli:app", "Benchmarks that print numbers."),
}


class Deferred(TyperGroup):
    """A command group that imports its Typer app the first time it is run (its help line is known)."""

    def __init__(self, name: str, target: str, help_line: str) -> None:
        super().__init__(name=name, help=help_line, short_help=help_line, rich_markup_mode=None)
        self._target = target
        self._real: Any = None

    def load(self) -> Any:
        if self._real is None:
            module, attribute = self._target.split(":")
            self._real = typer.main.get_command(getattr(import_module(module), attribute))
            self._real.name = self.name
            either_way(self._real)
        return self._real

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        return self.load().make_context(info_name, args, parent=parent, **extra)


def command() -> TyperGroup:
    """The whole command line: the Typer app plus the deferred groups."""
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    either_way(group)  # every command takes its bank as BANK or as --bank
    for name, (target, help_line) in DEFERRED.items():
        group.add_command(Deferred(name, target, help_line))
    return group


GLOBAL_OPTIONS = ("--data-dir", "--broker", "--embedder")


def hoisted(argv: list[str]) -> list[str]:
    """The arguments with the global options moved before the subcommand, so they work anywhere on the
    line (``hindsight-es recall alice q --data-dir D`` as ``hindsight-es --data-dir D recall alice q``)."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            rest += argv[i:]
            break
        name = arg.split("=", 1)[0]
        if name in GLOBAL_OPTIONS:
            if "=" in arg:
                front.append(arg)
                i += 1
            else:
                front += argv[i : i + 2]
                i += 2
            continue
        rest.append(arg)
        i += 1
    return front + rest


def cli() -> None:
    """Entry point of ``hindsight-es``. A ``HindsightError`` a command let through (one raised before or
    after its ``run_async``) is still one line and exit code 1 (2 for a ``ConfigError``), never a traceback."""
    from hindsight_es.errors import HindsightError

    # A validation error an agent or an operator reads (an MCP tool's arguments, the HTTP API) says what is
    # wrong; pydantic's documentation link after every line is noise to them.
    os.environ.setdefault("PYDANTIC_ERRORS_INCLUDE_URL", "0")
    try:
        command()(args=hoisted(sys.argv[1:]), prog_name="hindsight-es")
    except HindsightError as exc:
        sys.exit(failed(exc).exit_code)
    except OSError as exc:
        if (refused := refused_path(exc)) is None:  # not a path this machine refused: a defect, shown as one
            raise
        sys.exit(failed(refused).exit_code)


KINDS = ["episode", "fact", "preference", "plan", "decision", "correction", "constraint", "summary"]


def unit_interval(value: float | None) -> float | None:
    """A number from 0 to 1, or unset (NaN is refused: it is in no range)."""
    if value is not None and not 0 <= value <= 1:
        raise typer.BadParameter(f"must be a number from 0 to 1, got {value}")
    return value


def known_kinds(values: list[str] | None) -> list[str] | None:
    """Refuse a kind recall does not know (an unknown one would match nothing and look like no memory)."""
    for value in values or []:
        if value not in KINDS:
            raise typer.BadParameter(f"{value!r} is not a kind: {', '.join(KINDS)}")
    return values


DataDir = Annotated[Optional[Path], typer.Option("--data-dir", help="Data directory [env HINDSIGHT_DATA_DIR]")]
Broker = Annotated[Optional[str], typer.Option("--broker", help="Kafka bootstrap servers [env HINDSIGHT_BROKER]")]
EmbedderOpt = Annotated[
    Optional[str], typer.Option("--embedder", help="hybrid (default) | minilm | use [env HINDSIGHT_EMBEDDER]")
]


@app.callback()
def main(ctx: typer.Context, data_dir: DataDir = None, broker: Broker = None, embedder: EmbedderOpt = None) -> None:
    ctx.obj = Options(data_dir, broker, embedder)  # Settings are built by the command that needs them


@app.command()
def up(ctx: typer.Context) -> None:
    """Run the service: bank actor and projections (embedded log unless --broker). Ctrl-C stops it."""
    from hindsight_es.client import Hindsight
    from hindsight_es.errors import HindsightError
    from streams.service import ServiceLock, serve

    settings = settings_from(ctx)
    fresh = Fresh(settings)  # before the lock's file creates the data directory
    lock = ServiceLock(settings)
    if not lock.acquire():
        err_console.print(
            f"[red]error:[/red] another `hindsight-es up` is running on {settings.data_dir} "
            "(or a `hindsight-es mcp` that runs the pipeline while no `up` does)"
        )
        raise typer.Exit(1)

    async def go() -> None:
        import asyncio
        import signal

        from hindsight_es.app.observability import lag, tracing
        from hindsight_es.embedding import make_embedder
        from hindsight_es.log import open_log

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        provider = tracing.configure(settings)
        announce(settings, "starting: loading the embedding models and opening the log and the stores…")
        log, embedder = open_log(settings), make_embedder(settings.embedder)
        extra: dict[str, Any] = {
            "lag-sampler": lambda stop: lag.run(settings, log, stop),
            "catch-up-reporter": lambda stop: lag.catching_up(log, stop, lambda line: announce(settings, line)),
        }
        mcp, gateway = "", None
        if settings.mcp_http:
            from hindsight_es.app.gateway.http import url
            from hindsight_es.app.gateway.readers import answered_by, http_tasks

            gateway = Hindsight(settings, log=log, embedder=embedder)
            extra.update(http_tasks(settings, gateway))  # the HTTP server, and its readers (HINDSIGHT_READERS)
            base = url(settings).removesuffix("/mcp")
            mcp = f", MCP at {url(settings)}, API at {base}/v1 (docs {base}/docs, dashboard {base}/ui)"
            mcp += answered_by(settings)
        await log.start()
        # The models load now, not on the first turn: once the banner is out, a retain with wait is answered.
        await asyncio.to_thread(embedder.embed_query, "hindsight")
        if gateway is not None:
            await warm_reads(gateway)
        where = settings.broker or f"embedded log {settings.log_path}"
        announce(settings, f"hindsight up: {where}, data in {settings.data_dir}{mcp} (Ctrl-C to stop)")
        fresh.keep()  # serving: the data directory stays, whatever happens next
        try:
            await serve(settings, log, stop, embedder=embedder, extra=extra)
        except Exception as exc:
            raise HindsightError(f"the service stopped after a failure: {exc!r}") from exc
        finally:
            await log.close()
            if provider is not None:
                provider.shutdown()
        announce(settings, "hindsight stopped cleanly")

    try:
        with undone_on_failure(fresh):  # a failure before serving leaves no data directory it created
            fresh.own()
            run_service(go)
    finally:
        lock.release()


@app.command()
def publish(
    ctx: typer.Context,
    file: Annotated[Optional[Path], typer.Argument(help="JSONL file of turns; '-' or nothing reads stdin")] = None,
    bank: Annotated[Optional[str], typer.Option(help="Bank for lines without bank_id")] = None,
    session: Annotated[str, typer.Option(help="Session for lines without session_id")] = "default",
    text: Annotated[
        Optional[str], typer.Option("--text", help="Publish this one turn instead of reading JSONL")
    ] = None,
    role: Annotated[str, typer.Option(help="With --text: user | assistant | system | tool")] = "user",
    source: Annotated[str, typer.Option(help="With --text: user | assistant | tool | document")] = "user",
    speaker: Annotated[Optional[str], typer.Option(help="With --text: who said it")] = None,
) -> None:
    """Publish turns from JSONL, one object a line: "text" (required), "bank_id", "session_id", "turn_id",
    "role", "speaker", "source", "trust", "occurred_at", "actor", "owner", "scope", "metadata" (as a retain
    takes them); or one turn with --text and --bank."""
    from hindsight_es.app.cli.jsonl import read_turns
    from hindsight_es.client import Hindsight

    settings = settings_from(ctx)
    if text is not None:
        if file is not None or not bank:
            raise fail("--text publishes one turn: give --bank, and no FILE", EXIT_USAGE)
        line = {"text": text, "role": role, "source": source} | ({"speaker": speaker} if speaker else {})
        turns, problems = read_turns(settings, [json.dumps(line).encode()], bank=bank, session=session)
        if problems:
            raise fail(problems[0].removeprefix("line 1: "), EXIT_USAGE)
    else:
        try:
            stream = sys.stdin.buffer if file is None or str(file) == "-" else file.open("rb")
        except OSError as exc:
            raise fail(f"cannot read {file}: {exc.strerror or exc}", EXIT_USAGE) from None
        with stream:
            turns, problems = read_turns(settings, stream, bank=bank, session=session)
    for problem in problems:
        err_console.print(f"[yellow]skipped[/yellow] {problem}")

    async def go() -> None:
        async with Hindsight(settings) as hs:
            await hs.publish(turns)

    if turns:
        run_async(go)
    bad = f", skipped {plural(len(problems), 'bad line')}" if problems else ""
    console.print(f"published {plural(len(turns), 'turn')}{bad}")
    if problems:
        raise typer.Exit(2)


@app.command()
def recall(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    query: Annotated[str, typer.Argument(help="What to recall")],
    limit: Annotated[int, typer.Option(min=1, max=200)] = 10,
    kind: Annotated[
        Optional[list[str]],
        typer.Option(help=f"Only these kinds (repeatable): {', '.join(KINDS)}", callback=known_kinds),
    ] = None,
    agent: Annotated[Optional[str], typer.Option(help="Recall as this agent: its private memories too")] = None,
    shared: Annotated[bool, typer.Option("--shared", help="Also the shared banks (HINDSIGHT_SHARED_BANKS)")] = False,
    include_archived: Annotated[bool, typer.Option("--include-archived", help="Also archived memories")] = False,
    min_relevance: Annotated[
        Optional[float],
        typer.Option(
            help="No hits unless the best is at least this relevant, 0 to 1 (0: every hit; default "
            "HINDSIGHT_MIN_RELEVANCE)",
            callback=unit_interval,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Recall memories of a bank (catches the pipeline up first when no service is running)."""
    from hindsight_es.app.cli.hits import answer

    options: dict[str, Any] = {"limit": limit, "kinds": kind, "agent": agent, "include_shared": shared}
    options |= {"include_archived": include_archived, "min_relevance": min_relevance}
    answer(existing_store(settings_from(ctx)), bank, query, as_json=as_json, **options)


@app.command()
def stats(
    ctx: typer.Context,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print JSON: the banks' counts and the log's positions")
    ] = False,
) -> None:
    """Per-bank memory counts and log positions."""
    from hindsight_es.app.cli.stats import collect, render

    report = with_reader(existing_store(settings_from(ctx)), collect)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2, default=str))
    else:
        render(report)


@app.command()
def mcp(
    ctx: typer.Context,
    bank: Annotated[
        Optional[str], typer.Option(help="Bank the connection is bound to (default for calls) [env HINDSIGHT_MCP_BANK]")
    ] = None,
) -> None:
    """Serve MCP on stdio for desktop clients; runs the pipeline too while no `up` runs on the data directory
    (on the embedded log: with a broker, the workers run it)."""
    import asyncio

    from hindsight_es.app.gateway.stdio import run_stdio
    from streams.service import serve_when_free

    settings = settings_from(ctx)

    async def pipeline(hs: Hindsight, embedder: Any, stop: asyncio.Event) -> None:
        await serve_when_free(settings, hs.log, stop, embedder=embedder, start_log=hs.start)

    # on Kafka the workers own the consumer groups: this process publishes and reads, as `serve` does
    run_service(lambda: run_stdio(settings, bank=bank, pipeline=None if settings.broker else pipeline))


@app.command()
def demo(
    ctx: typer.Context, as_json: Annotated[bool, typer.Option("--json", help="Print the recalls as JSON")] = False
) -> None:
    """Publish a small bilingual sample conversation into bank 'demo' and print a few recalls."""
    from hindsight_es.app.cli.demo import run_demo

    if as_json:
        to_stderr()
    found = run_async(lambda: run_demo(settings_from(ctx), tables=not as_json))
    if as_json:
        print(json.dumps(found, ensure_ascii=False, indent=2))


lifecycle.register(app)  # forget, restore, end-session, promote, janitor
memory_commands.register(app)  # history, correct
erase.register(app)  # erase (crypto-shredding)
roles.register(app)  # worker, serve

if __name__ == "__main__":
    cli()
