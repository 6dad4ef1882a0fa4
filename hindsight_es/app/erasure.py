"""Erase for good (crypto-shredding), the one implementation behind ``hindsight-es erase``, the HTTP
route and the MCP tool: the data keys of a session's turns and memories (or of one turn and the memories
from it, or of one memory) are destroyed, an ``ErasureRequested`` / ``ContentErased`` pair records who
erased what and when, and the stores drop what they derived (``projections.erasure``). Without a running
service the bank actor and the projections run in this process first, as for ``forget``.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from uuid import UUID

from hindsight_es.client.inputs import memory_uuid
from hindsight_es.errors import ConfigError, InvalidInputError
from hindsight_es.remote.erasure import EraseResult

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight
    from hindsight_es.events import ContentErased

__all__ = ["NOT_SEALED", "check", "erase"]

NOT_SEALED = (
    "content is not sealed here (HINDSIGHT_SEAL_CONTENT off, or stores on object storage, which has no key "
    "store yet), so it cannot be erased for good"
)


def check(session: str | None, turn: str | None, memory: str | None, reason: str) -> None:
    """Refuse an erase request that cannot be done (the same refusals on every surface)."""
    if sum(x is not None for x in (session, turn, memory)) != 1:
        raise InvalidInputError("give exactly one of session, turn, memory")
    if not reason.strip():
        raise InvalidInputError("the reason must say why (it is kept with the erasure)")
    if memory is not None:
        memory_uuid(memory)


async def erase(
    hs: Hindsight,
    bank: str,
    *,
    session: str | None = None,
    turn: str | None = None,
    memory: str | None = None,
    reason: str,
    by: str,
    wait: float = 30.0,
) -> EraseResult:
    """Erase the scope; ``wait``: seconds to wait for a running service's bank actor to answer."""
    from hindsight_es.client import build
    from hindsight_es.events import ErasureRequested
    from hindsight_es.history import request
    from hindsight_es.stores import generations, location
    from projections.erasure import purge
    from streams.bank_actor import SNAPSHOTS
    from streams.service import ServiceLock, catch_up_all

    check(session, turn, memory, reason)
    sealer = getattr(hs.log, "sealer", None)  # the client's sealed log (``open_log``)
    if sealer is None:
        raise ConfigError(NOT_SEALED)
    lock = ServiceLock(hs.settings)
    here = lock.acquire()
    try:
        if here:  # every turn decided first: the memories from the erased turns have their keys by now
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        units = await asyncio.to_thread(sealer.keys.select, bank, session_id=session, turn_id=turn, memory_id=memory)
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
        await asyncio.to_thread(sealer.keys.destroy, bank, units, by=by, reason=reason, at=command.occurred_at)
        sealer.forget_cached()
        if here:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        found = await _content_erased(hs, bank, command.event_id, since, 0 if here else wait)
        out: dict[str, Any] = {"bank_id": bank, "units": units, "memory_ids": [], "turn_ids": [], "recorded": False}
        if found is None:
            note = "the bank actor has not answered yet: run the same erase again once it has (keys are gone)"
            return EraseResult(**out, note=note)
        erased, partition, offset = found
        stores = hs.stores()
        snapshots = location.snapshots(hs.settings, SNAPSHOTS)
        done = await purge(hs.log, stores.lance, stores.archive, snapshots, erased, partition=partition, offset=offset)
        out |= {"recorded": True, "memory_ids": [str(m) for m in erased.memory_ids], "turn_ids": list(erased.turn_ids)}
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
        return EraseResult(**out)
    finally:
        lock.release()


async def _content_erased(
    hs: Hindsight, bank: str, cause: Any, since: int, wait: float
) -> tuple[ContentErased, int, int] | None:
    """The ``ContentErased`` the bank actor decided for ``cause``, with its partition and offset."""
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
