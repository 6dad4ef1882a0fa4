"""``hindsight-es replay``: rebuild, verify, audit, roll back, state as of a time, export and import.

Thin: the work is in ``projections.replay`` (rebuild, switch, verify) and ``hindsight_es.history``
(state, rollback, transfer). Works on the embedded log and on Kafka (``--broker``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeVar
from uuid import UUID

import typer

from hindsight_es.app.cli.common import catch_up_if_idle, console, err_console, run_async, settings_from
from hindsight_es.app.cli.replay_views import (
    Bar,
    bank_summary,
    memory_table,
    show_bank,
    show_lineage,
    show_plan,
    show_session,
    show_verdict,
    to_json,
)
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import InvalidInputError, NotFoundError
from hindsight_es.events import SourceRetracted
from hindsight_es.stores import generations

if TYPE_CHECKING:
    from hindsight_es.events import Event
    from hindsight_es.history import Imported
    from projections.replay import Verdict
    from streams.service import ServiceLock

T = TypeVar("T")
app = typer.Typer(help="Replay the log: rebuild, verify, audit, roll back, state as of a time, export/import.",
                  no_args_is_help=True)

Json = Annotated[bool, typer.Option("--json", help="Print JSON")]
Bank = Annotated[str, typer.Option("--bank", help="Bank id")]
EXIT_PENDING = 3  # half done: built but not switched (a service runs), or requested but not answered yet


def _when(value: str | None, option: str) -> datetime | None:
    """ISO 8601; a time without an offset is UTC."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise typer.BadParameter(f"{value!r} is not an ISO 8601 time", param_hint=option) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _run(settings: Settings, work: Callable[[Hindsight], Awaitable[T]]) -> T:
    async def go() -> T:
        async with Hindsight(settings) as hs:
            return await work(hs)

    return run_async(go)


async def _locked(settings: Settings, wait_s: float) -> ServiceLock:
    """The data directory's ``ServiceLock`` once free (waits up to ``wait_s``); check ``.held``."""
    from streams.service import ServiceLock

    lock = ServiceLock(settings)
    deadline = time.monotonic() + wait_s
    while not lock.acquire() and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return lock


# ------------------------------------------------------------------ rebuild, switch, gc, verify


@app.command()
def rebuild(ctx: typer.Context,
            bank: Annotated[Optional[str], typer.Option(help="Only this bank's rows (LanceDB tables)")] = None,
            projection: Annotated[str, typer.Option(help="vectors (LanceDB: memories, turns) | archive | all")] = "all",
            force: Annotated[bool, typer.Option(help="Switch even while a service runs (see README)")] = False,
            wait: Annotated[float, typer.Option(help="Seconds to wait for the service lock")] = 10.0) -> None:
    """Rebuild projections from the log into a new generation, then switch readers to it atomically.

    Recall keeps answering from the current stores until the new ones are complete. No extractor and
    no embedding model is called. Old generations stay on disk until `replay gc`.
    """
    from projections.replay import STORES_OF
    from projections.replay import rebuild as rebuild_stores

    settings = settings_from(ctx)
    if projection not in STORES_OF:
        raise typer.BadParameter(f"{projection!r}: vectors, archive or all", param_hint="--projection")
    stores = ("lance",) if bank is not None and projection == "all" else STORES_OF[projection]

    async def work(hs: Hindsight) -> bool:
        with Bar("rebuild") as bar:
            built = await rebuild_stores(settings, hs.log, stores=stores, bank=bank, progress=bar)
        console.print(f"replayed {built.events:,} events into generation {built.generation} in "
                      f"{built.replay_seconds:.2f}s ([bold]{built.events / max(built.replay_seconds, 1e-9):,.0f} "
                      f"events/s[/bold]); indexes {built.index_seconds:.2f}s")
        return await _switch(settings, hs, built.generation, built.stores, force=force, wait_s=wait)

    if not _run(settings, work):
        raise typer.Exit(EXIT_PENDING)


async def _switch(settings: Settings, hs: Hindsight, name: str, stores: dict[str, Path], *, force: bool,
                  wait_s: float) -> bool:
    from projections.replay import switch as switch_stores

    lock = await _locked(settings, wait_s)
    try:
        if not lock.held and not force:
            err_console.print(f"[yellow]not switched:[/yellow] a service is running on {settings.data_dir}. Generation "
                              f"{name} is built; stop the service, then run `hindsight-es replay switch {name}` "
                              "(it catches up on what arrived meanwhile), or rebuild with --force.")
            return False
        applied = await switch_stores(settings, hs.log, stores)
        console.print(f"switched: readers now open {', '.join(f'{s} from {p}' for s, p in stores.items())}"
                      f" ({applied:,} more events caught up first)")
        if not lock.held:
            err_console.print("note: the running service moves its projections to the new generation within a "
                              "second, resuming from the new stores' positions (nothing is lost); readers in other "
                              "processes reopen on their next request.")
        return True
    finally:
        lock.release()


@app.command()
def switch(ctx: typer.Context,
           generation: Annotated[str, typer.Argument(help="A generation id (see `replay gc --dry-run`), or 'initial'")],
           force: Annotated[bool, typer.Option(help="Switch even while a service runs")] = False,
           wait: Annotated[float, typer.Option(help="Seconds to wait for the service lock")] = 10.0) -> None:
    """Point readers at an existing generation (catching it up on the log first): finish a rebuild, or go back."""
    settings = settings_from(ctx)
    if generation == "initial":
        stores = {store: settings.data_dir / store for store in generations.STORES}
    else:
        stores = generations.generation_stores(settings.data_dir, generation)
    if not _run(settings, lambda hs: _switch(settings, hs, generation, stores, force=force, wait_s=wait)):
        raise typer.Exit(EXIT_PENDING)


@app.command()
def gc(ctx: typer.Context,
       dry_run: Annotated[bool, typer.Option(help="Only list what would be removed")] = False) -> None:
    """Remove store generations no reader is pointed at, and scratch left by an interrupted verify."""
    settings = settings_from(ctx)
    current = generations.current(settings.data_dir)
    for store, path in current.items():
        console.print(f"current {store}: {path}")
    unused = generations.unused(settings.data_dir)
    for path in unused:
        console.print(f"{'would remove' if dry_run else 'removing'} {path}")
    if dry_run or not unused:
        return
    lock = run_async(lambda: _locked(settings, 0))
    try:
        if not lock.held:
            err_console.print("[red]error:[/red] a service is running: stop it first (it may be moving off "
                              "an old generation after a forced switch)")
            raise typer.Exit(1)
        generations.remove(unused, settings.data_dir)
    finally:
        lock.release()


@app.command()
def verify(ctx: typer.Context, bank: Annotated[Optional[str], typer.Option(help="Only this bank")] = None,
           as_json: Json = False) -> None:
    """Rebuild into a scratch directory and compare per-bank content hashes with the live stores.

    Exits 1 and names the first difference on a mismatch. Records the live stores have not projected
    yet are reported as lag, not as a difference.
    """
    from projections.replay import verify as verify_stores

    settings = settings_from(ctx)

    async def work(hs: Hindsight) -> Verdict:
        if as_json:
            return await verify_stores(settings, hs.log, bank=bank)
        with Bar("verify") as bar:
            return await verify_stores(settings, hs.log, bank=bank, progress=bar)

    verdict = _run(settings, work)
    if as_json:
        print(to_json({"ok": verdict.ok, "difference": verdict.difference, "behind": verdict.behind,
                       "checks": verdict.checks}))
    else:
        show_verdict(verdict)
    if not verdict.ok:
        err_console.print(f"[red]mismatch:[/red] {verdict.difference}")
        raise typer.Exit(1)
    if not as_json:
        console.print("[green]verified:[/green] the live projections equal a rebuild from the log")


# ------------------------------------------------------------------ audit


@app.command()
def audit(ctx: typer.Context,
          memory_id: Annotated[Optional[str], typer.Argument(help="A memory id: its lineage")] = None,
          bank: Annotated[Optional[str], typer.Option(help="A bank: its sessions, or with --session one")] = None,
          session: Annotated[Optional[str], typer.Option(help="A session: its turns and memories")] = None,
          as_json: Json = False) -> None:
    """Where a memory came from and everything that happened to it; or what a bank's sessions produced."""
    settings = settings_from(ctx)
    if memory_id is None and bank is None:
        raise typer.BadParameter("give a MEMORY_ID, or --bank (with --session for one session)")
    if session is not None and bank is None:
        raise typer.BadParameter("--session needs --bank", param_hint="--session")

    async def work(hs: Hindsight) -> dict[str, Any]:
        from hindsight_es.stores.archive import ArchiveStore

        await catch_up_if_idle(hs)
        archive = ArchiveStore(generations.current(settings.data_dir)["archive"])
        if memory_id is not None:
            lineage = await asyncio.to_thread(archive.lineage, bank, _uuid(memory_id))
            if lineage["retained"] is None:
                raise NotFoundError(f"no memory {memory_id}" + (f" in bank {bank!r}" if bank else ""))
            return lineage
        if session is not None:
            turns = await asyncio.to_thread(archive.events, bank, types=["TurnRecorded"], session_id=session)
            return {"bank_id": bank, "session_id": session, "turns": turns,
                    "memories": await asyncio.to_thread(archive.session_memories, bank, session)}
        turns = await asyncio.to_thread(archive.events, bank, types=["TurnRecorded"])
        return {"bank_id": bank, "sessions": bank_summary(turns, await asyncio.to_thread(archive.memories, bank))}

    found = _run(settings, work)
    if as_json:
        print(to_json(found))
    elif memory_id is not None:
        show_lineage(found)
    elif session is not None:
        show_session(found["bank_id"], found["session_id"], found["turns"], found["memories"])
    else:
        show_bank(found["bank_id"], found["sessions"])


def _uuid(value: str) -> UUID:
    try:
        return UUID(value)
    except ValueError as exc:
        raise InvalidInputError(f"{value!r} is not a memory id (a UUID)") from exc


# ------------------------------------------------------------------ rollback, restore, state


@app.command()
def rollback(ctx: typer.Context, bank: Bank,
             session: Annotated[Optional[str], typer.Option(help="Memories from this session's turns")] = None,
             turn: Annotated[Optional[list[str]], typer.Option(help="From these turn ids (repeatable)")] = None,
             source: Annotated[Optional[str], typer.Option(help="From turns of this source (user, tool, …)")] = None,
             actor: Annotated[Optional[str], typer.Option(help="From turns recorded by this actor")] = None,
             since: Annotated[Optional[str], typer.Option(help="From turns at or after this time (ISO 8601)")] = None,
             until: Annotated[Optional[str], typer.Option(help="From turns before this time (ISO 8601)")] = None,
             reason: Annotated[str, typer.Option(help="Why (kept in the log)")] = "",
             dry_run: Annotated[bool, typer.Option(help="Print the plan and change nothing")] = False,
             timeout: Annotated[float, typer.Option(help="Seconds to wait for the bank actor's answer")] = 30.0,
             as_json: Json = False) -> None:
    """Retract every memory derived from the matching turns (criteria are ANDed) and restore what they displaced.

    Publishes a RetractionRequested; the bank actor decides and records a SourceRetracted. Running it
    again changes nothing; `replay restore --retraction ID` undoes it.
    """
    from hindsight_es.history import outcome, plan, request, retraction

    settings = settings_from(ctx)
    command = retraction(bank, session_id=session, turn_ids=tuple(turn or ()), source=source, turn_actor=actor,
                         since=_when(since, "--since"), until=_when(until, "--until"), reason=reason)

    if dry_run:
        planned = _run(settings, lambda hs: plan(hs.log, command))
        if as_json:
            print(to_json({"dry_run": True, "retract": planned.retract, "restore": planned.restore}))
        else:
            show_plan(planned.retract, planned.restore, done=False)
            console.print("dry run: nothing was changed")
        return

    async def work(hs: Hindsight) -> list[Event]:
        await catch_up_if_idle(hs)  # decide pending turns first, so the retraction sees their memories
        await plan(hs.log, command)  # refuses a bank without memories
        since_offset = await request(hs.log, command)
        await catch_up_if_idle(hs)
        return await outcome(hs.log, command, since=since_offset, timeout_s=timeout)

    done = next((e for e in _run(settings, work) if isinstance(e, SourceRetracted)), None)
    if done is None:
        err_console.print(f"[yellow]pending:[/yellow] RetractionRequested {command.event_id} is in the log; no bank "
                          f"actor answered within {timeout:g}s (is the service running?)")
        raise typer.Exit(EXIT_PENDING)
    if as_json:
        print(to_json(done.model_dump(mode="json", exclude={"vector"})))
    else:
        console.print(f"rolled back: {len(done.retracted_memory_ids)} memories retracted, "
                      f"{len(done.restored_memory_ids)} restored (SourceRetracted {done.event_id}); "
                      f"undo with `hindsight-es replay restore --bank {bank} --retraction {done.event_id}`")


@app.command()
def restore(ctx: typer.Context, bank: Bank,
            retraction_id: Annotated[str, typer.Option("--retraction", help="A SourceRetracted (or its request) id")],
            timeout: Annotated[float, typer.Option(help="Seconds to wait for the bank actor's answer")] = 30.0) -> None:
    """Undo a rollback: its memories come back and displace again what it had restored."""
    from hindsight_es.history import memory_events, outcome, request, undo
    from hindsight_es.memory import fold

    settings = settings_from(ctx)
    wanted = _uuid(retraction_id)

    async def work(hs: Hindsight) -> list[Event] | None:
        await catch_up_if_idle(hs)
        events = await memory_events(hs.log, bank)
        found = [e for e in events if isinstance(e, SourceRetracted) and wanted in (e.event_id, e.causation_id)]
        if not found:
            raise NotFoundError(f"no retraction {retraction_id} in bank {bank!r}")
        state = fold(bank, events)
        if all(state.memories[m].status == "active" for m in found[0].retracted_memory_ids):
            return []  # nothing it took away is still gone
        command = undo(found[0])
        since_offset = await request(hs.log, command)
        await catch_up_if_idle(hs)
        return await outcome(hs.log, command, since=since_offset, timeout_s=timeout) or None

    events = _run(settings, work)
    if events is None:
        err_console.print(f"[yellow]pending:[/yellow] the restore is in the log; no bank actor answered within "
                          f"{timeout:g}s (is the service running?)")
        raise typer.Exit(EXIT_PENDING)
    console.print(f"restored: {sum(e.type == 'MemoryRestored' for e in events)} memories back, "
                  f"{sum(e.type == 'MemorySuperseded' for e in events)} displaced again")


@app.command()
def state(ctx: typer.Context, bank: Bank,
          as_of: Annotated[Optional[str], typer.Option("--as-of", help="ISO 8601 time (default: now)")] = None,
          every: Annotated[bool, typer.Option("--all", help="Every memory with its status, not only active")] = False,
          as_json: Json = False) -> None:
    """The bank's memories as they stood at a time, folded from the log (event time, inclusive)."""
    from hindsight_es.history import state_as_of

    settings = settings_from(ctx)
    moment = _when(as_of, "--as-of")
    folded = _run(settings, lambda hs: state_as_of(hs.log, bank, moment))
    memories = sorted((m for m in folded.memories.values() if every or m.status == "active"),
                      key=lambda m: (m.valid_from, str(m.memory_id)))
    if as_json:
        print(to_json({"bank_id": bank, "as_of": moment, "memories": memories}))
        return
    title = f"bank {bank!r} as of {moment.isoformat() if moment else 'now'}: {len(memories)} memories"
    console.print(memory_table(title, memories, status=every))


# ------------------------------------------------------------------ export, import


@app.command("export")
def export(ctx: typer.Context, bank: Bank,
           file: Annotated[Path, typer.Argument(help="Output file: .jsonl or .parquet")],
           fmt: Annotated[Optional[str], typer.Option("--format", help="jsonl | parquet (default: by name)")] = None
           ) -> None:
    """Write a bank's turns, commands and memory events to a file (one event per line or row)."""
    from hindsight_es.history import export_bank

    settings = settings_from(ctx)
    counts = _run(settings, lambda hs: export_bank(hs.log, bank, file, fmt))
    console.print(f"exported bank {bank!r} to {file}: " + ", ".join(f"{n:,} {t}" for t, n in counts.items()))


@app.command("import")
def import_(ctx: typer.Context,
            file: Annotated[Path, typer.Argument(help="A file written by `replay export`")],
            fmt: Annotated[Optional[str], typer.Option("--format", help="jsonl | parquet (default: by name)")] = None
            ) -> None:
    """Append an export to this data directory's log (or --broker), then project it; nothing is decided again.

    Needs the data directory to itself (no running service): its bank actor must fold the imported
    memory events before it meets the imported turns. Events already present are skipped.
    """
    from hindsight_es.history import import_entries, read_export
    from streams.service import catch_up_all

    settings = settings_from(ctx)

    async def work(hs: Hindsight) -> Imported:
        entries = read_export(file, fmt)
        lock = await _locked(settings, 0)
        try:
            if not lock.held:
                raise InvalidInputError(f"a service is running on {settings.data_dir}: stop it before importing")
            result = await import_entries(hs.log, entries)
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            return result
        finally:
            lock.release()

    done = _run(settings, work)
    appended = ", ".join(f"{n:,} {t}" for t, n in done.appended.items())
    console.print(f"imported banks {', '.join(done.banks)}: appended {appended}; "
                  f"{done.present:,} already present")
    if done.undecided:
        err_console.print(f"note: {done.undecided} imported inputs had no decision in the file; "
                          "this bank actor decided them")
