"""Shared CLI plumbing: settings from options, running coroutines, reporting errors as exit codes.

Importing this module stays cheap (``hindsight-es --help`` must not pay for pydantic-settings, rich,
LanceDB or the models): everything heavy is imported where it is used.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypedDict, TypeVar

import typer

from hindsight_es.app.cli.consoles import console as console
from hindsight_es.app.cli.consoles import consoles as consoles
from hindsight_es.app.cli.consoles import err_console as err_console
from hindsight_es.app.cli.consoles import to_stderr as to_stderr

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.config import Settings
    from hindsight_es.errors import HindsightError
    from streams.service import ServiceLock

T = TypeVar("T")
Json = Annotated[bool, typer.Option("--json", help="Print JSON")]
Bank = Annotated[str, typer.Option("--bank", help="Bank id")]
EXIT_PENDING = 3  # half done: built but not switched (a service runs), or requested but not answered yet
EXIT_ERROR = 1  # the command failed (a store, the log, a request the memory's state refuses)
EXIT_USAGE = 2  # bad configuration, arguments or input: nothing was done
#: The commands that only read the data directory: on one this process may not write (``Settings.read_only``:
#: a backup, a read-only mount) they answer from the stores as they stand, and every other command is refused
#: before it does anything (``settings_from``). Each must stay free of writes there: no catch-up, no lock, no
#: recall tallies, a verify's scratch outside it (tests/e2e/test_read_only.py runs them all on one).
READS = (
    "stats",
    "recall",
    "history",
    "replay audit",
    "replay state",
    "replay export",
    "replay verify",
    "quarantine list",
    "disputes list",
    "owners show",
)


@dataclass(slots=True)
class Options:
    """The global options as given; ``Settings`` is built from them on first use (``settings_from``)."""

    data_dir: Path | None = None
    broker: str | None = None
    embedder: str | None = None
    settings: Settings | None = None


class _Overrides(TypedDict, total=False):
    """The global options given on the command line, as ``Settings`` keyword arguments."""

    data_dir: Path
    broker: str
    embedder: str


def with_client(settings: Settings, work: Callable[[Hindsight], Awaitable[T]]) -> T:
    """Run ``work`` with a client over ``settings`` (started and closed around it), as ``run_async`` does."""

    async def go() -> T:
        from hindsight_es.client import Hindsight

        async with Hindsight(settings) as hs:
            return await work(hs)

    return run_async(go)


@asynccontextmanager
async def reading(settings: Settings) -> AsyncIterator[Hindsight]:
    """A client for a command that only reads the stores (recall, stats, history, the review lists, audit).
    On Kafka its log is not started: the stores answer with the broker down, and what must reach the log
    (what recall served, stats' log ends) starts it when it gets there. The embedded log is local and
    started, so that ``catch_up_if_idle`` can drain it when no service runs."""
    from hindsight_es.client import Hindsight

    hs = Hindsight(settings)
    try:
        if not settings.broker:
            await hs.start()
        yield hs
    finally:
        await hs.close()


def with_reader(settings: Settings, work: Callable[[Hindsight], Awaitable[T]]) -> T:
    """``with_client`` for a command that only reads the stores (``reading``)."""

    async def go() -> T:
        async with reading(settings) as hs:
            return await work(hs)

    return run_async(go)


async def record_served(hs: Hindsight) -> None:
    """Append what this process's recalls served (``RecallsTallied``) now, starting the log for it. A log
    that cannot be reached leaves the answer as it was: one line on stderr says what it served was not
    recorded (recall counts only shape retention, ``client.recording``), and why."""
    from hindsight_es.errors import HindsightError

    if not hs.reader.recorder.tallies:
        return
    if hs.settings.read_only:  # a backup is inspected as it stands: what it served there shapes nothing
        hs.reader.recorder.discard()
        return
    try:
        await hs.start()
    except HindsightError as exc:
        from hindsight_es.text import plural

        served = plural(hs.reader.recorder.discard(), "memory", "memories")
        err_console.print(f"note: what recall served ({served}) was not recorded for retention: {exc}", highlight=False)
        return
    await hs.reader.recorder.flush()


def announce(settings: Settings, message: str) -> None:
    """A line for the operator on stderr: a log record in JSON mode (every line is then JSON), else text."""
    if settings.log_format == "json":
        import logging

        logging.getLogger("hindsight.service").info(message)
    else:
        err_console.print(message, highlight=False)


def fail(message: str, code: int = EXIT_ERROR) -> typer.Exit:
    """Print ``error: message`` on stderr; returns the ``typer.Exit`` to raise."""
    from rich.markup import escape

    err_console.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    return typer.Exit(code)


def existing_store(settings: Settings) -> Settings:
    """``settings``, if its data directory holds a log; else one line and exit 2. A command that reads or
    changes what is stored must not create an empty store at a mistyped ``--data-dir`` and report on it
    ("verified", "nothing to erase"). Writers (publish, up, demo, mcp, import) create one; Kafka keeps the log."""
    if settings.broker is None and not settings.log_path.exists():
        raise fail(
            f"no hindsight data in {settings.data_dir} (no log at {settings.log_path}): check --data-dir or "
            "HINDSIGHT_DATA_DIR, or write to it first (publish, up, demo)",
            EXIT_USAGE,
        )
    return settings


def settings_from(ctx: typer.Context) -> Settings:
    """The settings of this invocation, built once from the environment and the global options; a bad
    value is one line on stderr and exit code 2, never a traceback."""
    options: Options = ctx.find_root().obj
    if options.settings is None:
        from pydantic import ValidationError

        from hindsight_es.config import Settings
        from hindsight_es.logs import configure as configure_logging
        from hindsight_es.text import first_error

        overrides: _Overrides = {}
        if options.data_dir is not None:
            overrides["data_dir"] = options.data_dir
        if options.broker is not None:
            overrides["broker"] = options.broker
        if options.embedder is not None:
            overrides["embedder"] = options.embedder
        from pydantic_settings import SettingsError

        try:
            options.settings = Settings(**overrides)
        except ValidationError as exc:
            # A value given as an option is named as the option, else as its environment variable.
            def named(where: str) -> str:
                return f"--{where.replace('_', '-')}" if where in overrides else f"HINDSIGHT_{where.upper()}"

            raise fail(f"bad configuration: {first_error(exc, named)}", EXIT_USAGE) from None
        except SettingsError as exc:  # a value that is not even JSON (a dict or list setting)
            raise fail(f"bad configuration: {_settings_problem(exc)}", EXIT_USAGE) from None
        configure_logging(options.settings)  # text or JSON lines (HINDSIGHT_LOG_FORMAT)
        refuse_writes(ctx, options.settings)
    return options.settings


def refuse_writes(ctx: typer.Context, settings: Settings) -> None:
    """On a read-only data directory, a command not in ``READS`` stops here: one line naming the directory
    and the commands that work on it, exit code 2, nothing written."""
    name = ctx.command_path.partition(" ")[2]  # without the program's name
    if settings.read_only and name not in READS:
        from hindsight_es.errors import ReadOnlyError

        reads = ", ".join(READS)
        raise failed(ReadOnlyError(settings.data_dir, f"run `{name}`, which writes to it (these only read: {reads})"))


def _settings_problem(exc: Exception) -> str:
    import re

    found = re.search(r'field "(\w+)"', str(exc))
    name = f"HINDSIGHT_{found.group(1).upper()}" if found else "a HINDSIGHT_* setting"
    return f"{name} is not valid JSON"


def shown(value: datetime | None) -> str:
    """A time in this machine's zone, with the zone's name, to the minute (stored times are UTC)."""
    if value is None:
        return "-"
    moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M %Z")


def print_json(value: Any) -> None:
    """``--json``: a result model of ``hindsight_es.remote.models`` (or a list of them) as the HTTP API and the MCP
    tools answer it, so a tool reads one vocabulary at every door."""
    import json

    from pydantic_core import to_jsonable_python

    print(json.dumps(to_jsonable_python(value), ensure_ascii=False, indent=2))


def failed(exc: HindsightError) -> typer.Exit:
    """A ``HindsightError`` as a one-line message (``fail``) and its exit code: 2 for bad configuration or input
    (a ``ConfigError``, an ``InvalidInputError`` such as a range that ends before it starts), as click's own
    usage errors; 1 for the rest, a ``ConflictError`` among them (a valid request the memory's state refuses)."""
    from hindsight_es.errors import ConfigError, ConflictError, InvalidInputError

    usage = isinstance(exc, ConfigError) or (isinstance(exc, InvalidInputError) and not isinstance(exc, ConflictError))
    return fail(str(exc), EXIT_USAGE if usage else EXIT_ERROR)


def refused_path(exc: OSError) -> HindsightError | None:
    """A data directory or store path that is a file, not writable, or on a read-only file system, as one
    line naming it and the settings to check; None for an ``OSError`` about no path."""
    from hindsight_es.errors import ConfigError

    if exc.filename is None:
        return None
    where = f"{exc.filename} -> {exc.filename2}" if exc.filename2 else str(exc.filename)
    return ConfigError(  # exit code 2, as every setting that cannot be used
        f"cannot use {where}: {exc.strerror or exc} (check --data-dir, HINDSIGHT_DATA_DIR and HINDSIGHT_STORES_URI)"
    )


# The cyclic collector's thresholds in a process that serves (up, serve, worker, mcp): a young collection
# after 50,000 allocations rather than 700, an older one after 50 of those, a full one after 100 of those.
# A serving process holds tens of thousands of long-lived objects (the row and term caches: a dict a memory)
# and a recall allocates thousands more (its hit lists), so at Python's default the collector ran every few
# recalls, holding the GIL every thread of the process shares, and a full collection traversed the caches
# whole: a pause every request in flight waited out. ``bench recall --concurrency 20`` on the 10k layout, four
# alternated pairs: p95 545 -> 450 ms, p99 755 -> 523 ms on average, recalls/s the same (docs/benchmarks.md).
# Almost everything a recall allocates is freed by reference counting; cycles wait longer, bounded by these.
SERVING_GC = (50_000, 50, 100)


def run_service(fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``run_async`` for a process that serves until stopped: the collector set to ``SERVING_GC`` first."""
    import gc

    gc.set_threshold(*SERVING_GC)
    return run_async(fn)


def run_async(fn: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine; a ``HindsightError`` becomes ``failed``'s one line and exit code."""
    import asyncio

    from hindsight_es.errors import HindsightError

    try:
        return asyncio.run(fn())
    except HindsightError as exc:
        raise failed(exc) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


async def service_lock(settings: Settings, wait_s: float) -> ServiceLock:
    """The data directory's ``ServiceLock`` once free (waits up to ``wait_s``); check ``.held``."""
    import asyncio
    import time

    from streams.service import ServiceLock

    lock = ServiceLock(settings)
    deadline = time.monotonic() + wait_s
    while not lock.acquire() and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return lock


def runs_pipeline(settings: Settings, lock: ServiceLock) -> bool:
    """Whether this command runs the bank actor and the projections itself: on the embedded log, when it
    takes the data directory's lock (no service runs on it). With a broker, never: the workers own the
    consumer groups, and a command that joined one would force a rebalance on them, or be refused by the
    broker (its consumer's assignor is not theirs); the command publishes and waits for their answer."""
    return not settings.broker and lock.acquire()


async def catch_up_if_idle(hs: Hindsight, *, loading: str | None = None) -> None:
    """Without a running service on the embedded log, drain the log through the actor and projections in
    this process. With a broker configured, nothing: the workers own the consumer groups, and a read command
    that joined one would force a rebalance on them. On a read-only data directory, nothing either: no lock
    nor projection can be written there, so the stores answer as they stand. ``loading``: a query whose
    models load meanwhile (about a second in a fresh process); an error loading them is the recall's to raise."""
    if loading is not None:
        import asyncio

        models = asyncio.create_task(asyncio.to_thread(hs.embedder.embed_query, loading))
        try:
            return await catch_up_if_idle(hs)
        finally:
            await asyncio.gather(models, return_exceptions=True)
    from streams.service import ServiceLock, catch_up_all

    if hs.settings.broker or hs.settings.read_only:  # read-only: the stores answer as they stand
        return
    lock = ServiceLock(hs.settings)
    if lock.acquire():
        try:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        finally:
            lock.release()
    else:
        lock.release()


async def warm_reads(hs: Hindsight) -> None:
    """Open the hot store and load its indexes before serving (``Reader.warm``), so the first recall after a
    start answers in its usual time. A failure is logged: the first recall reports it to its caller."""
    import logging

    from hindsight_es.errors import HindsightError

    try:
        await hs.reader.warm()
    except HindsightError as exc:
        logging.getLogger("hindsight.cli").warning("could not warm the stores before serving: %s", exc)


async def settled(hs: Hindsight, bank: str, memory_ids: Sequence[object], wanted: str, timeout: float) -> bool:
    """Whether every one of the memories' rows reads ``wanted`` within ``timeout``: a command's ``ready``, as the
    HTTP API's (recall reflects it). The decision is in; a running service's projection may take a moment longer."""
    deadline = time.monotonic() + timeout
    while not all([(await hs.memory(bank, str(m))).status == wanted for m in memory_ids]):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.2)
    return True
