"""``history ID`` and ``correct ID TEXT``: one memory's lineage, and its correction, from the shell.

A memory id names its bank (ids are unique across banks), so ``--bank`` is only needed to check it.
Without a running service the pipeline runs in this process first (like ``recall``); ``correct`` then
waits for the bank actor's answer as the lifecycle commands do. ``--json`` prints the ``HistoryResult`` and the
``CorrectResult`` the HTTP API and the MCP tools answer.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Annotated, Any, Optional
from uuid import UUID

import typer

from hindsight_es.app.cli.common import catch_up_if_idle, existing_store, print_json, run_async, settings_from
from hindsight_es.app.cli.memory_ids import ID_HELP, whole_id

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import Event
    from hindsight_es.remote.models import CorrectResult

MemoryId = Annotated[str, typer.Argument(help=ID_HELP)]
BankOpt = Annotated[Optional[str], typer.Option("--bank", help="The memory's bank (checked if given)")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON")]


async def lineage_of(hs: Hindsight, memory_id: str, bank: str | None) -> dict[str, Any]:
    from hindsight_es.errors import NotFoundError

    mid = await whole_id(hs, memory_id, bank)
    found: dict[str, Any] = await hs.conn.read(lambda: hs.stores().archive.lineage(bank, mid))
    if found["retained"] is None:
        raise NotFoundError(f"no memory {mid}" + (f" in bank {bank!r}" if bank else ""))
    return found


def history(ctx: typer.Context, memory_id: MemoryId, bank: BankOpt = None, as_json: AsJson = False) -> None:
    """Where a memory came from and everything that happened to it: source turns, events with who and why."""
    from hindsight_es.app.cli.common import with_reader
    from hindsight_es.app.cli.replay_views import show_lineage
    from hindsight_es.remote.models import HistoryResult

    async def work(hs: Hindsight) -> dict[str, Any]:
        await catch_up_if_idle(hs)
        return await lineage_of(hs, memory_id, bank)

    found = with_reader(existing_store(settings_from(ctx)), work)  # the archive's lineage: no log
    if as_json:
        print_json(HistoryResult.of(found))  # as the HTTP API and the MCP history tool answer it
    else:
        show_lineage(found)


def correct(
    ctx: typer.Context,
    memory_id: MemoryId,
    text: Annotated[str, typer.Argument(help="The corrected memory, as a full statement")],
    bank: BankOpt = None,
    reason: Annotated[str, typer.Option(help="Why (kept in the memory's history)")] = "",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for a running service's bank actor")] = 30.0,
    as_json: AsJson = False,
) -> None:
    """Replace an active memory by a corrected statement; the old one is superseded and kept in its history."""

    from hindsight_es.app.cli.decisions import decided, report
    from hindsight_es.client import Hindsight, build, check_text
    from hindsight_es.errors import ConflictError
    from hindsight_es.events import CorrectionRequested

    settings = existing_store(settings_from(ctx))
    answer: dict[str, Any] = {}

    async def go() -> list[Event] | None:
        async with Hindsight(settings) as hs:
            await catch_up_if_idle(hs)
            found = await lineage_of(hs, memory_id, bank)
            current = await hs.memory(found["bank_id"], found["memory_id"])
            if current.status != "active":
                raise ConflictError(
                    f"memory {current.memory_id} is {current.status}; only an active one can be corrected"
                    + _successor(found)
                )
            check_text(settings, text)
            command = build(
                CorrectionRequested,
                bank_id=found["bank_id"],
                memory_id=UUID(current.memory_id),
                text=text,
                reason=reason,
                actor="user",
            )
            events = await decided(hs, [command], timeout)
            if as_json and events is not None:
                answer["result"] = await _corrected(hs, found["bank_id"], current.memory_id, events, timeout)
            return events

    events = run_async(go)
    if "result" in answer:
        print_json(answer["result"])
        return
    report(events, False, "corrected", timeout)


def register(app: typer.Typer) -> None:
    app.command("history")(history)
    app.command("correct")(correct)


__all__ = ["register"]


async def _corrected(hs: Hindsight, bank: str, corrected: str, events: list[Event], timeout: float) -> CorrectResult:
    """``correct --json``: the ``CorrectResult`` the HTTP API and the MCP tool answer, its memory read as they read
    it (the hot store's row, once the projection has it; ``ready`` false if not within ``timeout``)."""
    from hindsight_es.app.gateway.models import memory_of
    from hindsight_es.errors import NotFoundError
    from hindsight_es.events import MemoryRetained
    from hindsight_es.remote.models import CorrectResult

    new = next((str(e.memory_id) for e in events if isinstance(e, MemoryRetained)), None)
    deadline = time.monotonic() + timeout
    while new is not None:
        try:
            row = await hs.memory(bank, new)
            return CorrectResult(bank_id=bank, corrected_id=corrected, ready=True, memory=memory_of(row))
        except NotFoundError:
            if time.monotonic() >= deadline:
                break
            await asyncio.sleep(0.2)
    return CorrectResult(bank_id=bank, corrected_id=corrected, ready=False, memory=None)


def _successor(lineage: dict[str, Any]) -> str:
    """Where a superseded memory's content went: the active memory that replaced it, to correct instead."""
    active = [m for m in lineage.get("superseded_by") or [] if m.get("status") == "active"]
    if not active:
        return ""
    m = active[-1]
    return f" (superseded by {m['memory_id']}, {m['text']!r}: correct that one)"
