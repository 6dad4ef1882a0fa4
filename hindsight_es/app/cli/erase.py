"""``erase --bank B (--session S | --turn T | --memory M) --reason R``: erase content for good.

Crypto-shredding: the data keys of the session's turns and memories (or of one turn and the memories
from it, or of one memory) are destroyed, an ``ErasureRequested`` / ``ContentErased`` pair records who
erased what and when, and the stores drop what they derived (``projections.erasure``). Without a
running service the bank actor and the projections run in this process first, as for ``forget``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from hindsight_es.app.cli.common import fail, run_async, settings_from

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import ContentErased

Opt = Optional[str]


def erase(
    ctx: typer.Context,
    bank: Annotated[str, typer.Option("--bank", help="The bank")],
    reason: Annotated[str, typer.Option(help="Why (kept: the fact of the erasure, never the content)")],
    session: Annotated[Opt, typer.Option("--session", help="Erase a whole session (conversation)")] = None,
    turn: Annotated[Opt, typer.Option("--turn", help="Erase one turn and the memories from it")] = None,
    memory: Annotated[Opt, typer.Option("--memory", help="Erase one memory")] = None,
    by: Annotated[str, typer.Option("--by", help="Who erases (recorded as the event's actor)")] = "operator",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for a running service's bank actor")] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Erase a session, a turn or a memory for good: keys destroyed, rows dropped, placeholders in the log."""
    if sum(x is not None for x in (session, turn, memory)) != 1:
        raise fail("give exactly one of --session, --turn, --memory", 2)
    if not reason.strip():
        raise fail("--reason must say why (it is kept with the erasure)", 2)
    settings = settings_from(ctx)
    if not settings.seal_content or settings.keys_path is None:
        raise fail(
            "content is not sealed here (HINDSIGHT_SEAL_CONTENT off, or stores on object storage, which has no "
            "key store yet), so it cannot be erased for good",
            2,
        )
    from hindsight_es.client import Hindsight

    async def go() -> dict[str, Any]:
        async with Hindsight(settings) as hs:
            return await _erase(hs, bank, session, turn, memory, reason, by, timeout)

    found = run_async(go)
    if as_json:
        print(json.dumps(found, ensure_ascii=False))
        return
    print(
        f"erased {len(found['units'])} keys: {len(found['memory_ids'])} memories, {len(found['turn_ids'])} turns "
        f"({found['hot_rows']} hot rows, {found['turn_rows']} turn rows, {found['archive_files']} archive files "
        f"rewritten, {found['snapshots']} snapshots and {found['generations']} old generations dropped)"
        + (f"; {found['note']}" if "note" in found else "")
    )


async def _erase(
    hs: Hindsight,
    bank: str,
    session: str | None,
    turn: str | None,
    memory: str | None,
    reason: str,
    by: str,
    wait: float,
) -> dict[str, Any]:
    from uuid import UUID

    from hindsight_es.client import build
    from hindsight_es.events import ErasureRequested
    from hindsight_es.history import request
    from hindsight_es.log import sealer_for
    from hindsight_es.stores import generations, location
    from streams.bank_actor import SNAPSHOTS
    from streams.service import ServiceLock, catch_up_all

    sealer = sealer_for(hs.settings)
    assert sealer is not None
    lock = ServiceLock(hs.settings)
    here = lock.acquire()
    try:
        if here:  # every turn decided first: the memories from the erased turns have their keys by now
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        units = sealer.keys.select(bank, session_id=session, turn_id=turn, memory_id=memory)
        command = build(
            ErasureRequested,
            bank_id=bank,
            session_id=session,
            turn_id=turn,
            memory_id=UUID(memory) if memory else None,
            units=tuple(units),
            reason=reason,
            actor=by,
        )
        since = await request(hs.log, command)  # recorded before anything is destroyed
        sealer.keys.destroy(bank, units, by=by, reason=reason, at=command.occurred_at)
        sealer.forget_cached()
        if here:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        found = await _content_erased(hs, bank, command.event_id, since, 0 if here else wait)
        out: dict[str, Any] = {"units": units, "memory_ids": [], "turn_ids": [], "recorded": found is not None}
        out |= {"hot_rows": 0, "turn_rows": 0, "archive_files": 0, "snapshots": 0, "generations": 0}
        if found is None:
            out["note"] = "the bank actor has not answered yet: run the same erase again once it has (keys are gone)"
            return out
        from projections.erasure import purge

        erased, partition, offset = found
        stores = hs.stores()
        snapshots = location.snapshots(hs.settings, SNAPSHOTS)
        done = await purge(hs.log, stores.lance, stores.archive, snapshots, erased, partition=partition, offset=offset)
        out |= {"memory_ids": [str(m) for m in erased.memory_ids], "turn_ids": list(erased.turn_ids)}
        out |= {"hot_rows": done.hot_rows, "turn_rows": done.turn_rows, "archive_files": done.archive_files}
        out["snapshots"] = done.snapshots
        # Generations no reader is pointed at (older rebuilds) still hold the content: gone with it.
        # With a service running they wait for `replay gc` (the service may still be moving off one).
        old = generations.unused(hs.settings.data_dir)
        if here:
            generations.remove(old, hs.settings.data_dir)
            out["generations"] = len(old)
        elif old:
            out["note"] = f"{len(old)} unused store generations still hold it: run `replay gc` with the service stopped"
        return out
    finally:
        lock.release()


async def _content_erased(
    hs: Hindsight, bank: str, cause: Any, since: int, wait: float
) -> tuple[ContentErased, int, int] | None:
    """The ``ContentErased`` the bank actor decided for ``cause``, with its partition and offset."""
    import asyncio
    import time

    from hindsight_es.client.outcome import memory_partition_end
    from hindsight_es.config import TOPIC_MEMORIES
    from hindsight_es.events import ContentErased, decoded

    deadline = time.monotonic() + wait
    while True:
        partition, end = await memory_partition_end(hs.log, bank)
        for record, event in decoded(await hs.log.read(TOPIC_MEMORIES, partition, since, end, 100_000)):
            if isinstance(event, ContentErased) and event.causation_id == cause:
                return event, partition, record.offset
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(0.2)


def register(app: typer.Typer) -> None:
    app.command("erase")(erase)


__all__ = ["register"]
