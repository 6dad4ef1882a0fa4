"""``hindsight-es replay`` history commands: audit, roll back (and undo it), state as of a time, export, import.

Thin: the work is in ``hindsight_es.history`` (state, rollback, transfer); registered on the ``replay``
group by ``replay.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional
from uuid import UUID

import typer

from hindsight_es.app.cli.common import (
    EXIT_PENDING,
    Bank,
    Json,
    catch_up_if_idle,
    console,
    err_console,
    existing_store,
    print_json,
    service_lock,
    settings_from,
    with_client,
    with_reader,
)
from hindsight_es.app.cli.memory_ids import ID_HELP, PREFIX, whole_id
from hindsight_es.app.cli.replay_views import (
    bank_summary,
    memory_table,
    show_bank,
    show_lineage,
    show_plan,
    show_session,
    when,
)
from hindsight_es.app.cli.times import HELP as LOCAL_TIME
from hindsight_es.app.cli.times import parse_when
from hindsight_es.errors import InvalidInputError, NotFoundError
from hindsight_es.events import SourceRetracted
from hindsight_es.stores import location
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import Event
    from hindsight_es.history import Imported
    from hindsight_es.memory import BankState


def audit(
    ctx: typer.Context,
    memory_id: Annotated[Optional[str], typer.Argument(help=f"{ID_HELP}: its lineage")] = None,
    bank: Annotated[Optional[str], typer.Option(help="A bank: its sessions, or with --session one")] = None,
    session: Annotated[Optional[str], typer.Option(help="A session: its turns and memories")] = None,
    as_json: Json = False,
) -> None:
    """Where a memory came from and everything that happened to it; or what a bank's sessions produced."""
    settings = existing_store(settings_from(ctx))
    if memory_id is None and bank is None:
        raise typer.BadParameter("give a MEMORY_ID, or --bank (with --session for one session)")
    if session is not None and bank is None:
        raise typer.BadParameter("--session needs --bank", param_hint="--session")

    async def work(hs: Hindsight) -> dict[str, Any]:
        from hindsight_es.stores.archive import ArchiveStore

        await catch_up_if_idle(hs)
        archive = ArchiveStore(location.current(settings)["archive"], location.s3_options(settings))
        if memory_id is not None:
            lineage = await asyncio.to_thread(archive.lineage, bank, await whole_id(hs, memory_id, bank))
            if lineage["retained"] is None:
                raise NotFoundError(f"no memory {memory_id}" + (f" in bank {bank!r}" if bank else ""))
            return lineage
        assert bank is not None  # without a memory id there is a bank (checked above)
        if session is not None:
            turns = await asyncio.to_thread(archive.events, bank, types=["TurnRecorded"], session_id=session)
            memories = await asyncio.to_thread(archive.session_memories, bank, session)
            if not turns and not memories:  # a usage error, as forget's and rollback's unknown session
                raise InvalidInputError(f"no session {session!r} in bank {bank!r}: check the session id and the bank")
            if not as_json:
                return {"bank_id": bank, "session_id": session, "turns": turns, "memories": memories}
        if as_json:  # as GET /v1/banks/{bank}/sessions[/{session}] reads them
            return await _sessions_json(hs, bank, session)
        turns = await asyncio.to_thread(archive.events, bank, types=["TurnRecorded"])
        memories = await asyncio.to_thread(archive.memories, bank)
        if not turns and not memories and not await asyncio.to_thread(archive.events, bank, limit=1):
            raise NotFoundError(f"unknown bank {bank!r}: the archive holds nothing of it (a typo, or not archived yet)")
        return {"bank_id": bank, "sessions": bank_summary(turns, memories)}

    found = with_reader(settings, work)  # the archive only: on Kafka, the broker may be down
    if as_json:
        from hindsight_es.remote.models import HistoryResult

        print_json(HistoryResult.of(found) if memory_id is not None else found)
    elif memory_id is not None:
        show_lineage(found)
    elif session is not None:
        show_session(found["bank_id"], found["session_id"], found["turns"], found["memories"])
    else:
        show_bank(found["bank_id"], found["sessions"])


async def _sessions_json(hs: Hindsight, bank: str, session: str | None) -> Any:
    """``audit --bank [--session] --json``: a session's ``SessionTimeline``, or the bank's ``SessionSummary``
    list under ``sessions`` (the HTTP API answers a bare list; a command's JSON is an object)."""
    from hindsight_es.app.gateway.models import linked_of, turn_ref_of
    from hindsight_es.remote.models import SessionSummary, SessionTimeline

    if session is None:
        return {"bank_id": bank, "sessions": [SessionSummary(**s) for s in await hs.browser.sessions(bank)]}
    turns, memories = await hs.browser.session(bank, session)
    turned = [turn_ref_of(t) for t in turns]
    return SessionTimeline(bank_id=bank, session_id=session, turns=turned, memories=[linked_of(m) for m in memories])


def _retraction_prefix(value: str) -> str:
    """A retraction id as the shell gives it, whole or its first 8+ characters (as memory ids are taken)."""
    wanted = value.strip().lower()
    if not PREFIX.fullmatch(wanted):
        raise InvalidInputError(
            f"{value!r} is not a retraction id: give the SourceRetracted id rollback printed, or 8 or more "
            "characters of it"
        )
    return wanted


def _retraction(events: list[Event], wanted: str, shown: str, bank: str) -> SourceRetracted:
    """The rollback whose SourceRetracted (or request) id starts with ``wanted``; one, or an error naming why."""
    found = {
        e.event_id: e
        for e in events
        if isinstance(e, SourceRetracted)
        and any(str(i).startswith(wanted) for i in (e.event_id, e.causation_id) if i is not None)
    }
    if not found:
        raise NotFoundError(f"no retraction {shown} in bank {bank!r}")
    if len(found) > 1:
        raise InvalidInputError(f"{shown!r} starts more than one retraction id in bank {bank!r}: give more of it")
    return next(iter(found.values()))


# ------------------------------------------------------------------ rollback, restore, state


def rollback(
    ctx: typer.Context,
    bank: Bank,
    session: Annotated[Optional[str], typer.Option(help="Memories from this session's turns")] = None,
    turn: Annotated[Optional[list[str]], typer.Option(help="From these turn ids (repeatable)")] = None,
    source: Annotated[Optional[str], typer.Option(help="From turns of this source (user, tool, …)")] = None,
    actor: Annotated[Optional[str], typer.Option(help="From turns recorded by this actor")] = None,
    since: Annotated[
        Optional[str], typer.Option(help=f"From turns at or after this time (ISO 8601; {LOCAL_TIME})")
    ] = None,
    until: Annotated[Optional[str], typer.Option(help="From turns before this time (as --since)")] = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the log)")] = "",
    dry_run: Annotated[bool, typer.Option(help="Print the plan and change nothing")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the bank actor's answer")] = 30.0,
    as_json: Json = False,
) -> None:
    """Retract every memory derived from the matching turns (criteria are ANDed) and restore what they displaced.

    Publishes a RetractionRequested; the bank actor decides and records a SourceRetracted. Running it
    again changes nothing; `replay undo-rollback --retraction ID` undoes it.
    """
    from hindsight_es.history import outcome, request, retraction

    settings = existing_store(settings_from(ctx))
    command = retraction(
        bank,
        session_id=session,
        turn_ids=tuple(turn or ()),
        source=source,
        turn_actor=actor,
        since=parse_when(since, "--since"),
        until=parse_when(until, "--until"),
        reason=reason,
    )

    if dry_run:
        planned = with_client(settings, lambda hs: hs.operator.rollback_plan(command))
        if as_json:  # as POST /v1/banks/{bank}/rollback/plan answers
            from hindsight_es.app.gateway.models import planned_of
            from hindsight_es.remote.models import RollbackPlan

            retract, restore = [planned_of(m) for m in planned.retract], [planned_of(m) for m in planned.restore]
            print_json(RollbackPlan(bank_id=bank, retract=retract, restore=restore))
        else:
            show_plan(planned.retract, planned.restore, done=False)
            console.print("dry run: nothing was changed")
        return

    async def work(hs: Hindsight) -> list[Event]:
        await catch_up_if_idle(hs)  # decide pending turns first, so the retraction sees their memories
        await hs.operator.rollback_plan(command)  # refuses an unknown bank, or a session it never had
        since_offset = await request(hs.log, command)
        await catch_up_if_idle(hs)
        return await outcome(hs.log, command, since=since_offset, timeout_s=timeout)

    done = next((e for e in with_client(settings, work) if isinstance(e, SourceRetracted)), None)
    if done is None:
        err_console.print(
            f"[yellow]pending:[/yellow] RetractionRequested {command.event_id} is in the log; no bank "
            f"actor answered within {timeout:g}s (is the service running?)"
        )
        raise typer.Exit(EXIT_PENDING)
    if as_json:  # as POST /v1/banks/{bank}/rollback answers
        from hindsight_es.remote.models import RollbackResult

        result = RollbackResult(
            bank_id=bank,
            retraction_id=str(done.event_id),
            retracted=[str(m) for m in done.retracted_memory_ids],
            restored=[str(m) for m in done.restored_memory_ids],
            ready=True,  # decided: a pending one exited 3 above
        )
        print_json(result)
    elif not done.retracted_memory_ids and not done.restored_memory_ids:  # a mistyped id must not read as done
        given = {"session": session, "turn": ",".join(turn or ()), "source": source, "actor": actor}
        given |= {"since": since, "until": until}
        criteria = ", ".join(f"{name} {value!r}" for name, value in given.items() if value)
        console.print(
            f"nothing to roll back: bank {bank!r} has no memory left to retract from turns matching {criteria} "
            f"(recorded as SourceRetracted {done.event_id}; nothing to undo)"
        )
    else:
        console.print(
            f"rolled back: {plural(len(done.retracted_memory_ids), 'memory', 'memories')} retracted, "
            f"{len(done.restored_memory_ids)} restored (SourceRetracted {done.event_id}); "
            f"undo with `hindsight-es replay undo-rollback --bank {bank} --retraction {done.event_id}`",
            soft_wrap=True,  # the command stays whole, to copy into a shell
        )


def undo_rollback(
    ctx: typer.Context,
    bank: Bank,
    retraction_id: Annotated[
        str, typer.Option("--retraction", help="A SourceRetracted (or its request) id, or a unique prefix of 8+")
    ],
    reason: Annotated[str, typer.Option(help="Why (kept in the log; default: the rollback it undoes)")] = "",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for the bank actor's answer")] = 30.0,
    as_json: Json = False,
) -> None:
    """Undo a rollback: its memories come back and displace again what it had restored."""
    from hindsight_es.history import memory_events, outcome, request, undo
    from hindsight_es.memory import fold

    settings = existing_store(settings_from(ctx))
    wanted = _retraction_prefix(retraction_id)

    async def work(hs: Hindsight) -> tuple[SourceRetracted, tuple[UUID, ...], list[Event] | None]:
        """The rollback, what the undo names, and the bank actor's answer: ``[]`` when none of those is still
        out of use (nothing is published), ``None`` when it did not answer in time."""
        await catch_up_if_idle(hs)
        events = await memory_events(hs.log, bank)
        found = _retraction(events, wanted, retraction_id, bank)
        state, command = fold(bank, events), undo(found, events, reason=reason)
        if all(state.memories[m].status == "active" for m in command.memory_ids):
            return found, command.memory_ids, []  # nothing it took out of use is still out
        since_offset = await request(hs.log, command)
        await catch_up_if_idle(hs)
        answer = await outcome(hs.log, command, since=since_offset, timeout_s=timeout)
        return found, command.memory_ids, answer or None

    done, named, events = with_client(settings, work)
    if events is None:
        err_console.print(
            f"[yellow]pending:[/yellow] the restore is in the log; no bank actor answered within "
            f"{timeout:g}s (is the service running?)"
        )
        raise typer.Exit(EXIT_PENDING)
    if as_json:  # as POST /v1/banks/{bank}/rollback/{id}/undo answers: what the rollback took out of use
        from hindsight_es.remote.models import UndoResult

        restored = [str(m) for m in named]
        ready = True  # decided, or nothing left to undo: a pending one exited 3 above
        return print_json(UndoResult(bank_id=bank, retraction_id=str(done.event_id), restored=restored, ready=ready))
    if events == []:  # nothing was asked of the bank actor: say why, not "0 memories back"
        them = "the memory" if len(named) == 1 else f"the {len(named)} memories"
        console.print(
            f"nothing to undo: {them} rollback {retraction_id} took out of use "
            f"{'is' if len(named) == 1 else 'are'} active again (undone already)"
            if named
            else f"nothing to undo: rollback {retraction_id} took no memory out of use that an undo brings back"
        )
        return
    console.print(
        f"restored: {plural(sum(e.type == 'MemoryRestored' for e in events), 'memory', 'memories')} back, "
        f"{sum(e.type == 'MemorySuperseded' for e in events)} displaced again"
    )


def state(
    ctx: typer.Context,
    bank: Bank,
    as_of: Annotated[Optional[str], typer.Option("--as-of", help=f"ISO 8601 time ({LOCAL_TIME}; default: now)")] = None,
    every: Annotated[bool, typer.Option("--all", help="Every memory with its status, not only active")] = False,
    as_json: Json = False,
) -> None:
    """The bank's memories as they stood at a time, folded from the log (event time, inclusive)."""
    settings = existing_store(settings_from(ctx))
    moment = parse_when(as_of, "--as-of")

    async def fold(hs: Hindsight) -> BankState:
        """Turns published but not yet decided are decided first (as audit and recall do); a bank with no
        memory in the log is unknown (exit 1), as GET /v1/banks/{bank}/state answers 404."""
        await catch_up_if_idle(hs)
        return await hs.operator.state_as_of(bank, moment)

    folded = with_client(settings, fold)
    memories = sorted(
        (m for m in folded.memories.values() if every or m.status == "active"),
        key=lambda m: (m.valid_from, str(m.memory_id)),
    )
    if as_json:  # as GET /v1/banks/{bank}/state answers
        from hindsight_es.app.gateway.models import planned_of
        from hindsight_es.remote.models import StateAsOf

        return print_json(StateAsOf(bank_id=bank, as_of=moment, memories=[planned_of(m) for m in memories]))
    title = f"bank {bank!r} as of {when(moment) if moment else 'now'}: {plural(len(memories), 'memory', 'memories')}"
    console.print(memory_table(title, memories, status=every))


# ------------------------------------------------------------------ export, import


def export(
    ctx: typer.Context,
    bank: Bank,
    file: Annotated[Path, typer.Argument(help="Output file: .jsonl or .parquet")],
    fmt: Annotated[Optional[str], typer.Option("--format", help="jsonl | parquet (default: by name)")] = None,
) -> None:
    """Write a bank's turns, commands and memory events to a file (one event per line or row)."""
    from hindsight_es.history import export_bank

    settings = existing_store(settings_from(ctx))

    async def write(hs: Hindsight) -> dict[str, int]:
        """The bank's turns with their decisions (as audit, drained first); an unknown bank writes no file."""
        await catch_up_if_idle(hs)
        await hs.conn.read(hs.reader.require_bank, bank)
        return await export_bank(hs.log, bank, file, fmt)

    counts = with_client(settings, write)
    console.print(f"exported bank {bank!r} to {file}: " + ", ".join(f"{n:,} {t}" for t, n in counts.items()))


def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A file written by `replay export`")],
    fmt: Annotated[Optional[str], typer.Option("--format", help="jsonl | parquet (default: by name)")] = None,
) -> None:
    """Append an export to this data directory's log (or --broker), then project it; nothing is decided again.

    Needs the data directory to itself (no running service): its bank actor must fold the imported
    memory events before it meets the imported turns. Events already present are skipped.
    """
    from hindsight_es.history import import_entries, read_export
    from streams.service import catch_up_all

    settings = settings_from(ctx)
    if not file.is_file():  # pyarrow's error for a missing file is its bare path
        raise InvalidInputError(f"cannot read {file}: {'not a file' if file.exists() else 'no such file'}")
    entries = read_export(file, fmt)  # before the data directory is touched: a bad file leaves it as it was

    async def work(hs: Hindsight) -> Imported:
        lock = await service_lock(settings, 0)
        try:
            if not lock.held:
                raise InvalidInputError(f"a service is running on {settings.data_dir}: stop it before importing")
            result = await import_entries(hs.log, entries)
            if not settings.broker:  # on Kafka the workers own the consumer groups: they project it
                await catch_up_all(settings, hs.log, embedder=hs.embedder)
            return result
        finally:
            lock.release()

    done = with_client(settings, work)
    appended = ", ".join(f"{n:,} {t}" for t, n in done.appended.items())
    console.print(f"imported banks {', '.join(done.banks)}: appended {appended}; {done.present:,} already present")
    if done.undecided:
        err_console.print(
            f"note: {done.undecided} imported inputs had no decision in the file; "
            + ("the workers' bank actor decides them" if settings.broker else "this bank actor decided them")
        )
