"""``erase --bank B (--session S | --turn T | --memory M | --all) --reason R``: erase content for good.

Crypto-shredding (``client.erasure``, the same path as HTTP and MCP): the data keys of the session's
turns and memories (or of one turn and the memories from it, or of one memory) are destroyed, an
``ErasureRequested`` / ``ContentErased`` pair records who erased what and when, and each projection drops
what it derived when it applies the ``ContentErased``. Without a running service the bank actor and the
projections run in this process, as for ``forget``; with ``up`` running on the data directory, or with a
broker (the workers), their projections do it and this waits for them (``--timeout``). ``--all`` erases
everything the bank holds, an erasure per session (``client.erasure.erase_bank``), each announced on stderr.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from hindsight_es.app.cli.common import (
    EXIT_USAGE,
    catch_up_if_idle,
    err_console,
    existing_store,
    fail,
    print_json,
    run_async,
    runs_pipeline,
    settings_from,
)
from hindsight_es.app.cli.memory_ids import whole_id
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.client.erasure import Erasure  # imported where used: the CLI starts without the client

Opt = Optional[str]


def erase(
    ctx: typer.Context,
    bank: Annotated[str, typer.Option("--bank", help="The bank")],
    reason: Annotated[str, typer.Option(help="Why (kept: the fact of the erasure, never the content)")],
    session: Annotated[Opt, typer.Option("--session", help="Erase a whole session (conversation)")] = None,
    turn: Annotated[Opt, typer.Option("--turn", help="Erase one turn and the memories from it")] = None,
    memory: Annotated[
        Opt, typer.Option("--memory", help="Erase one memory (its id, or a unique prefix of 8+ characters)")
    ] = None,
    whole: Annotated[
        bool, typer.Option("--all", help="Erase everything the bank holds: every session (an erasure each)")
    ] = False,
    by: Annotated[str, typer.Option("--by", help="Who erases (recorded as the event's actor)")] = "operator",
    timeout: Annotated[float, typer.Option(help="Seconds to wait until every projection has applied it")] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Erase a session, a turn, a memory or the whole bank for good: keys destroyed, rows dropped, placeholders
    in the log."""
    if sum(x is not None for x in (session, turn, memory)) + whole != 1:
        raise fail("give exactly one of --session, --turn, --memory, --all", 2)
    if not reason.strip():
        raise fail("--reason must say why (it is kept with the erasure)", 2)
    settings = existing_store(settings_from(ctx))
    if not settings.seal_content:
        raise fail("content is not sealed here (HINDSIGHT_SEAL_CONTENT off), so it cannot be erased for good", 2)
    from hindsight_es.client import Hindsight

    async def go() -> dict[str, Any]:
        from hindsight_es.errors import NotFoundError

        async with Hindsight(settings) as hs:
            try:
                if memory is not None:  # a prefix names a memory of the archive, once the log is drained
                    await catch_up_if_idle(hs)
                    named.append(str(await whole_id(hs, memory, bank)))
                return await _erase(hs, bank, session, turn, next(iter(named), None), reason, by, timeout, whole)
            except NotFoundError as exc:  # an id the bank never held: a bad argument, nothing was recorded
                raise fail(str(exc), EXIT_USAGE) from None

    named: list[str] = []  # the memory --memory names (a prefix resolved)
    found = run_async(go)
    if as_json:  # the ErasureResult of the HTTP API and the MCP tool; what only the CLI did goes to stderr
        from hindsight_es.remote.erasure import ErasureResult

        if whole:  # each erasure as the HTTP API and the MCP tool answer one
            print_json({"bank_id": bank, "erasures": found["steps"]})
        else:
            print_json(ErasureResult(**{name: found[name] for name in ErasureResult.model_fields}))
        if found["generations"]:
            err_console.print(f"removed {found['generations']} store directories of older generations", highlight=False)
        if "note" in found:
            err_console.print(f"note: {found['note']}", highlight=False)
    elif found["units"]:
        print((f"bank {bank!r}, {plural(len(found['steps']), 'erasure')}: " if whole else "") + _erased_now(found))
    else:  # nothing to destroy: say so, and why if the key store knows (a mistyped id must not read as done)
        scope = f"session {session!r}" if session else f"turn {turn!r}" if turn else f"memory {named[0]}"
        print(_nothing_left(found, scope))


def _nothing_left(found: dict[str, Any], scope: str) -> str:
    """A repeated erase: when, by whom and why it was erased the first time (the key store's tombstone, else
    the bank actor's answer); else the bank holds it without a key (written before sealing was on)."""
    if tomb := found.get("erased_before"):
        return (
            f"nothing left to erase: the keys of the {scope} were destroyed before, "
            f"at {tomb['at']} by {tomb['by']} ({tomb['reason']!r})"
        )
    from hindsight_es.memory.commands import ERASED_BEFORE

    if (found["ignored"] or "").startswith(ERASED_BEFORE):  # every memory it names was erased before
        return f"{found['ignored']} (the {scope})"
    return (
        f"nothing to erase for good: no key of the {scope} in bank {found['bank_id']!r} (written before sealing was "
        "on: its content stays in the log)"
    )


def _erased_now(found: dict[str, Any]) -> str:
    line = f"erased {plural(len(found['units']), 'key')}"
    if found["ready"]:
        line += (
            f": {plural(len(found['memory_ids']), 'memory', 'memories')} and {plural(len(found['turn_ids']), 'turn')}, "
            f"at {found['erased_at']}; "
            "every store has dropped them"
        )
    if found["generations"]:
        line += f" ({found['generations']} store directories of older generations removed)"
    return line + (f"; {found['note']}" if "note" in found else "")


async def _erase(
    hs: Hindsight,
    bank: str,
    session: str | None,
    turn: str | None,
    memory: str | None,
    reason: str,
    by: str,
    wait: float,
    whole: bool = False,
) -> dict[str, Any]:
    from hindsight_es.stores import generations
    from streams.service import ServiceLock, catch_up_all

    lock = ServiceLock(hs.settings)
    here = runs_pipeline(hs.settings, lock)  # else a service or the workers run the actor and projections
    try:

        async def drive() -> None:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)

        if here:  # every turn decided first: the memories from the erased turns have their keys by now
            await drive()
        steps: list[Erasure] = []
        if whole:
            steps = await hs.operator.erase_bank(
                bank, reason=reason, actor=by, timeout_s=wait, drive=drive if here else None, done=_announce
            )
            done = _summed(bank, steps)
        else:
            done = await hs.operator.erase(
                bank,
                session_id=session,
                turn_id=turn,
                memory_id=memory,
                reason=reason,
                actor=by,
                timeout_s=wait,
                drive=drive if here else None,
            )
        out: dict[str, Any] = {"units": done.units, "memory_ids": done.memory_ids, "turn_ids": done.turn_ids}
        out["steps"] = [step.result() for step in steps]
        out |= {"bank_id": bank, "ignored": done.ignored or None}
        if not done.units and not done.ignored:  # erased before, or never keyed: the first tombstone, if any
            out["erased_before"] = await asyncio.to_thread(_first_tombstone, hs, bank, done.memory_ids, done.turn_ids)
        out |= {"ready": bool(done.ready), "erased_at": done.erased_at, "request_id": done.request_id}
        out["generations"] = 0
        if not done.ready:
            out["note"] = (
                "the keys are destroyed and the erasure recorded; the service has not applied it everywhere yet "
                "(`hindsight-es stats` shows what each projection has applied of the log)"
            )
        # Generations no reader is pointed at (older rebuilds) still hold the content: gone with it.
        # With a service running they wait for `replay gc` (the service may still be moving off one).
        old = generations.unused(hs.settings.data_dir)
        if here:
            generations.remove(old, hs.settings.data_dir)
            out["generations"] = len(old)
        elif old:
            out["note"] = (
                f"{len(old)} store directories no reader uses (older generations) still hold it: run `replay gc` "
                "with the service stopped"
            )
        return out
    finally:
        lock.release()


def _announce(scope: str, step: Erasure, n: int, of: int) -> None:
    """``--all``'s progress, on stderr: one line an erasure."""
    err_console.print(f"erased {scope} ({n} of {of}): {plural(len(step.units), 'key')}", highlight=False)


def _summed(bank: str, steps: list[Erasure]) -> Erasure:
    """The erasures of ``--all`` as one: every key, memory and turn; ready when each is; the last one's time."""
    from hindsight_es.client.erasure import Erasure

    times = [s.erased_at for s in steps if s.erased_at]
    return Erasure(
        bank,
        steps[0].request_id,
        [u for s in steps for u in s.units],
        all(s.ready for s in steps),
        [m for s in steps for m in s.memory_ids],
        [t for s in steps for t in s.turn_ids],
        max(times) if times else None,
    )


def _first_tombstone(hs: Hindsight, bank: str, memory_ids: list[str], turn_ids: list[str]) -> dict[str, str] | None:
    """The earliest tombstone among the units' keys (who erased them, when, why), if the key store has one."""
    from hindsight_es.log.keys import Erased

    sealer = getattr(hs.log, "sealer", None)
    if sealer is None:
        return None
    units = [f"memory:{m}" for m in memory_ids] + [f"turn:{t}" for t in turn_ids]
    tombs = [key for key in sealer.keys.lookup(bank, units).values() if isinstance(key, Erased)]
    if not tombs:
        return None
    first = min(tombs, key=lambda tomb: tomb.at)
    return {"at": first.at, "by": first.by, "reason": first.reason}


def register(app: typer.Typer) -> None:
    app.command("erase")(erase)


__all__ = ["register"]
