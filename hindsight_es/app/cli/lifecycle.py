"""``forget``, ``restore``, ``end-session``, ``promote``, ``janitor``: the forgetting lifecycle from the shell.

Each publishes one command for the bank actor (the only writer of memory events) and prints what the
actor decided. Without a running service the command runs the pipeline in this process first and
after (like ``recall``); with one, it waits ``--timeout`` seconds for the actor's answer.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Optional, get_args
from uuid import UUID

import typer

from hindsight_es.app.cli.common import (
    EXIT_USAGE,
    catch_up_if_idle,
    console,
    existing_store,
    fail,
    run_async,
    settings_from,
    settled,
    shown,
)
from hindsight_es.app.cli.decisions import decided, report
from hindsight_es.app.cli.memory_ids import ids_help, whole_ids
from hindsight_es.app.cli.times import HELP as LOCAL_TIME
from hindsight_es.app.cli.times import parse_past, parse_when
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import Event

Bank = Annotated[str, typer.Argument(help="Bank id")]
Ids = Annotated[Optional[list[str]], typer.Argument(help=ids_help())]
Reason = Annotated[str, typer.Option(help="Why (kept in the memories' history)")]
Timeout = Annotated[float, typer.Option(help="Seconds to wait for a running service's bank actor")]
AsJson = Annotated[
    bool, typer.Option("--json", help="Print JSON: the HTTP API's result for one memory named, else the events")
]
EndJson = Annotated[bool, typer.Option("--json", help="Print JSON: the bank, the session and the events decided")]
PromoteJson = Annotated[bool, typer.Option("--json", help="Print JSON: the bank, the scope and the events decided")]
TickJson = Annotated[bool, typer.Option("--json", help="Print JSON: the banks ticked and the events decided")]
FORGET_SHARE = 0.5  # forget --query: a hit is a match when its relevance is at least this share of the best's


def register(app: typer.Typer) -> None:
    for name, command in (
        ("forget", forget),
        ("restore", restore),
        ("end-session", end_session),
        ("promote", promote),
        ("janitor", janitor),
    ):
        app.command(name)(command)


async def _held(hs: Hindsight, bank: str, named: list[str] | None, session: str | None = None) -> tuple[UUID, ...]:
    """The ids ``named`` (whole, or unique prefixes), each one the bank holds: ``NotFoundError`` for an unknown
    bank or an id the bank does not hold, and a usage error (exit 2, as erase's) for a session it never had: a
    mistyped name is an error, not "nothing changed"."""
    if named or session is not None:
        await catch_up_if_idle(hs)
        await hs.conn.read(hs.reader.require_bank, bank)
    ids = await whole_ids(hs, named or [], bank)
    for memory_id in ids:
        await hs.memory(bank, memory_id)
    if session is not None and not await hs.browser.has_session(bank, session):
        raise fail(f"no session {session!r} in bank {bank!r}: check the session id and the bank", EXIT_USAGE)
    return ids


def forget(
    ctx: typer.Context,
    bank: Bank,
    memory_ids: Ids = None,
    session: Annotated[Optional[str], typer.Option(help="Every memory of this session")] = None,
    since: Annotated[
        Optional[str], typer.Option(help=f"Memories valid from this time on (ISO 8601; {LOCAL_TIME})")
    ] = None,
    until: Annotated[Optional[str], typer.Option(help="Memories valid from before this time (as --since)")] = None,
    query: Annotated[
        Optional[str],
        typer.Option(help="The memories recall returns for this query that match about as well as the best"),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=200, help="Most memories --query forgets")] = 10,
    agent: Annotated[Optional[str], typer.Option(help="Recall --query as this agent")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before forgetting by --query")] = False,
    reason: Reason = "",
    timeout: Timeout = 30.0,
    as_json: AsJson = False,
) -> None:
    """Soft-forget memories (hidden from recall, kept for audit): by id, by --session, by --since/--until
    (ANDed with --session), or by --query after showing what it matches and asking."""
    from rich.table import Table

    from hindsight_es.client import Hindsight, build
    from hindsight_es.events import ForgetRequested

    settings = existing_store(settings_from(ctx))
    start, end = parse_when(since, "--since"), parse_when(until, "--until")
    if query is not None and (session or start or end):
        raise typer.BadParameter("--query selects memories on its own; run another forget for a session or range")
    if not (memory_ids or session or start or end or query):
        raise typer.BadParameter("name memory ids, --session, --since/--until or --query")
    if start and end and start >= end:
        raise typer.BadParameter("--since must be before --until")

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            ids = await _held(hs, bank, memory_ids, session)
            chosen = ids
            if query is not None:
                await catch_up_if_idle(hs)
                # Only the hits that match nearly as well as the best (relevance at least half the best's, and
                # the floor): recall keeps a whole answer once its best hit reaches the floor, and its tail
                # ("Alice's name" for "my passport", a budget sheet for "quarterly report") is no match to forget.
                found = await hs.recall(bank, query, limit=limit, agent=agent)
                bar = max(settings.min_relevance, max((h.relevance for h in found), default=0.0) * FORGET_SHARE)
                hits = [h for h in found if h.relevance >= bar]
                weaker = plural(len(found) - len(hits), "weaker match", "weaker matches")
                weak = f"{weaker}, relevance below {bar:.2f}, left out"
                if not hits:  # a forget that forgets nothing is refused, whatever selected it
                    raise fail(
                        f"nothing to forget: no memory of bank {bank!r} matches {query!r}"
                        + (f" ({weak})" if found else "")
                    )
                table = Table(title=f"memories of {bank!r} matching {query!r}")
                table.add_column("id", no_wrap=True, min_width=36)
                for column in ("kind", "text", "valid from", "relevance"):
                    table.add_column(column, overflow="fold")
                for h in hits:
                    table.add_row(h.memory_id, h.kind, h.text, shown(h.valid_from), f"{h.relevance:.2f}")
                console.print(table)
                if len(hits) < len(found):
                    console.print(weak)
                ask = "forget this memory" if len(hits) == 1 else f"forget these {len(hits)} memories"
                ask += " (an episode that says only what it says goes with it)?"
                if not yes and not typer.confirm(ask, default=False):
                    console.print("nothing forgotten")
                    raise typer.Exit(1)
                chosen = ids + tuple(UUID(h.memory_id) for h in hits)
            command = build(
                ForgetRequested,
                bank_id=bank,
                memory_ids=chosen,
                session_id=session,
                since=start,
                until=end,
                reason=reason,
                actor="user",
            )
            events = await decided(hs, [command], timeout)
            if as_json and events is not None and len(ids) == 1 and chosen == ids and not (session or start or end):
                from hindsight_es.remote.models import ForgetResult  # as POST /memories/{id}/forget answers

                ready = await settled(hs, bank, ids[:1], "forgotten", timeout)
                answer["result"] = ForgetResult(bank_id=bank, memory_id=str(ids[0]), ready=ready)
            return events

    answer: dict[str, Any] = {}
    nothing = _nothing_to_forget(bank, session, start, end, query) if not memory_ids else None
    events = run_async(go)
    report(events, as_json, "forgot", timeout, result=answer.get("result"), nothing=nothing, refuse=True, bank_id=bank)


def _nothing_to_forget(
    bank: str, session: str | None, start: datetime | None, end: datetime | None, query: str | None
) -> str:
    """Why a forget by session, time window or query changed nothing, in the words of what was asked (the bank
    actor's reason speaks of named memories). Its times are shown as the tables show them."""
    from hindsight_es.app.cli.replay_views import when

    if query is not None:
        return f"the memories of bank {bank!r} that matched {query!r} are forgotten already"
    asked = [f"in session {session!r}"] if session else []
    if start and end:
        asked.append(f"valid from a time between {when(start)} and {when(end)}")
    elif start or end:
        asked.append(f"valid from {when(start)} or later" if start else f"valid from before {when(end)}")
    return f"nothing to forget: bank {bank!r} has no memory {', '.join(asked)}, that is not forgotten already"


def restore(
    ctx: typer.Context,
    bank: Bank,
    memory_ids: Ids = None,
    reason: Reason = "",
    timeout: Timeout = 30.0,
    as_json: AsJson = False,
) -> None:
    """Bring memories back: archived (from the cold archive), forgotten, superseded or rolled-back ones."""
    from hindsight_es.client import Hindsight, build
    from hindsight_es.errors import ConflictError
    from hindsight_es.events import RestoreRequested

    settings = existing_store(settings_from(ctx))
    if not memory_ids:
        raise typer.BadParameter("name the memories to restore")

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            await catch_up_if_idle(hs)
            ids = await whole_ids(hs, memory_ids, bank)
            gone = [m for m in ids if (await hs.memory(bank, m)).status != "active"]  # unknown ids are errors
            active = ", ".join(str(m) for m in ids if m not in gone)
            if not gone:  # as the HTTP API's 409: a restore with nothing to restore is refused (exit 1)
                named = f"memory {active} is" if len(ids) == 1 else f"memories {active} are"
                raise ConflictError(f"nothing to restore: {named} active already")
            if active:
                console.print(f"active already: {active}")
            command = build(RestoreRequested, bank_id=bank, memory_ids=tuple(gone), reason=reason, actor="user")
            events = await decided(hs, [command], timeout)
            if as_json and events is not None and len(ids) == 1:
                from hindsight_es.remote.models import RestoreResult  # as POST /memories/{id}/restore answers

                ready = await settled(hs, bank, ids[:1], "active", timeout)
                answer["result"] = RestoreResult(bank_id=bank, memory_id=str(ids[0]), ready=ready)
            return events

    answer: dict[str, Any] = {}
    report(run_async(go), as_json, "restored", timeout, result=answer.get("result"), refuse=True, bank_id=bank)


def end_session(
    ctx: typer.Context,
    bank: Bank,
    session: Annotated[str, typer.Argument(help="Session id")],
    reason: Reason = "",
    timeout: Timeout = 30.0,
    as_json: EndJson = False,
) -> None:
    """End a session: its session-scoped memories expire (are archived) unless promoted."""
    from hindsight_es.client import Hindsight, build
    from hindsight_es.events import SessionEnded

    settings = existing_store(settings_from(ctx))

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            await _held(hs, bank, None, session)
            command = build(SessionEnded, bank_id=bank, session_id=session, reason=reason, actor="user")
            return await decided(hs, [command], timeout, may_do_nothing=True)

    report(run_async(go), as_json, f"session {session} ended", timeout, bank_id=bank, session_id=session)


def promote(
    ctx: typer.Context,
    bank: Bank,
    memory_ids: Ids = None,
    scope: Annotated[str, typer.Option(help="global | task | session")] = "global",
    reason: Reason = "",
    timeout: Timeout = 30.0,
    as_json: PromoteJson = False,
) -> None:
    """Keep memories beyond their session (a wider scope); an expired one comes back."""
    from hindsight_es.client import Hindsight, build
    from hindsight_es.events import PromoteRequested

    settings = existing_store(settings_from(ctx))
    from hindsight_es.types import Scope

    if not memory_ids or scope not in get_args(Scope):
        raise typer.BadParameter("name the memories, and a scope of global, task or session")

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            ids = await _held(hs, bank, memory_ids)
            command = build(PromoteRequested, bank_id=bank, memory_ids=ids, scope=scope, reason=reason, actor="user")
            return await decided(hs, [command], timeout)

    report(run_async(go), as_json, "promoted", timeout, refuse=True, bank_id=bank, scope=scope)


def janitor(
    ctx: typer.Context,
    bank: Annotated[Optional[list[str]], typer.Option(help="Banks to tick (repeatable; default: all)")] = None,
    at: Annotated[
        Optional[str], typer.Option(help=f"The tick's time, ISO 8601 ({LOCAL_TIME}; default: now; not later than now)")
    ] = None,
    timeout: Timeout = 30.0,
    as_json: TickJson = False,
) -> None:
    """Tick the janitor now: archive what has faded (and what exceeds capacity) under the configured policy."""
    from hindsight_es.client import Hindsight, build
    from hindsight_es.events import JanitorTick
    from streams.janitor import policy_for

    settings = existing_store(settings_from(ctx))
    when = parse_past(at, "--at")

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            await catch_up_if_idle(hs)  # so every bank with memories is listed
            for named in bank or []:  # a mistyped bank is an error, not a tick of nothing
                await hs.conn.read(hs.reader.require_bank, named)
            banks = bank or await hs.list_banks()
            extra = {"occurred_at": when} if when is not None else {}
            ticks: list[Event] = [
                build(JanitorTick, bank_id=b, actor="janitor", policy=policy_for(settings, b), reason="manual", **extra)
                for b in banks
            ]
            ticked.extend(banks)
            return await decided(hs, ticks, timeout, may_do_nothing=True) if ticks else []

    ticked: list[str] = []
    events = run_async(go)
    report(events, as_json, "janitor", timeout, bank_ids=ticked)
    changed = Counter((e.bank_id, e.type) for e in events or [] if e.type != "CommandIgnored")
    for bank_id in [] if as_json else sorted({b for b, _ in changed}):  # which banks it changed, and how
        console.print(f"  {bank_id}: " + ", ".join(f"{n} {t}" for (b, t), n in sorted(changed.items()) if b == bank_id))


__all__ = ["register"]
