"""Publish commands for the bank actor (the only writer of memory events) and print what it decided.

Without a running service the pipeline runs in this process before and after; with one, ``decided`` waits
for the actor's answer and ``report`` says "pending" (exit 3) when none came in time.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import typer

from hindsight_es.app.cli.common import console, err_console, fail, print_json, runs_pipeline
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import Event

EXIT_PENDING = 3
QUIET_S = 3.0


async def decided(
    hs: Hindsight, commands: list[Event], timeout: float, *, may_do_nothing: bool = False
) -> list[Event] | None:
    """Publish ``commands`` and return the memory events they caused; None when a running service did not
    answer within ``timeout``. A command that ``may_do_nothing`` (a tick, a session end) is given at most
    a few seconds by a running service: no answer then means nothing to do."""
    from hindsight_es.history import outcome, request
    from streams.service import ServiceLock, catch_up_all

    lock = ServiceLock(hs.settings)
    here = runs_pipeline(hs.settings, lock)
    try:
        if here:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        starts = [await request(hs.log, command) for command in commands]
        if here:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        found: list[Event] = []
        for command, start in zip(commands, starts, strict=True):
            wait = 0 if here else min(timeout, QUIET_S) if may_do_nothing else timeout
            events = await outcome(hs.log, command, since=start, timeout_s=wait)
            if not events and not here and not may_do_nothing:
                return None
            found += events
        return found
    finally:
        lock.release()


def report(
    events: list[Event] | None,
    as_json: bool,
    what: str,
    timeout: float,
    *,
    result: Any = None,
    nothing: str | None = None,
    refuse: bool = False,
    **fields: Any,
) -> None:
    """Print what the bank actor decided. ``--json``: ``result`` when the command did what an HTTP operation
    does (a ``ForgetResult``, a ``RestoreResult``), else an object of ``fields`` and the decided ``events``.
    ``nothing``: why nothing changed, in the words of what was asked (else the bank actor's reason). ``refuse``:
    a command that changed nothing is an error (exit 1), as the HTTP API's 409 for forgetting a forgotten memory."""
    if events is None:
        err_console.print(
            f"[yellow]pending:[/yellow] the request is in the log; no bank actor answered within "
            f"{timeout:g}s (is the service running?)"
        )
        raise typer.Exit(EXIT_PENDING)
    from hindsight_es.events import CommandIgnored

    ignored = [e for e in events if isinstance(e, CommandIgnored)]
    why = nothing or (ignored[0].reason if ignored else "nothing to do")
    if refuse and len(ignored) == len(events):  # every command answered "nothing to do", or none was sent
        raise fail(why)
    if as_json:
        events_json = [e.model_dump(mode="json", exclude={"revived"}) for e in events]
        return print_json(result if result is not None else {**fields, "events": events_json})
    if ignored and len(ignored) == len(events):  # the bank actor's why, not its event's name
        console.print(f"{what}: nothing changed ({why})")
        return
    from hindsight_es.events import MemoryRetained

    # An episode that says nothing but what the named memory said goes with it (``memory.episodes``): counted
    # apart, so the line does not claim more memories were named than the prompt showed.
    named = [e for e in events if getattr(e, "along_with", None) is None]
    counts = Counter(e.type for e in named)
    line = ", ".join(f"{n} {t}" for t, n in sorted(counts.items())) or "nothing changed"
    if along := len(events) - len(named):
        line += f"; with them {plural(along, 'episode')} of their turns, which said nothing else"
    console.print(f"{what}: {line}")
    for event in events:
        if isinstance(event, MemoryRetained):  # the id to recall, correct or look up next
            console.print(f"  new memory {event.memory_id}: {event.text}")


__all__ = ["EXIT_PENDING", "decided", "report"]
