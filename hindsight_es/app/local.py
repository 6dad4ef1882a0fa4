"""``local``: a ``Hindsight`` client with the pipeline running in this process, for scripts and notebooks.

    async with local(Settings()) as hs:
        await hs.retain("alice", "we moved to Paris", session_id="s1", wait=True)
        hits = await hs.recall("alice", "where do we live?", limit=5)

While no ``hindsight-es up`` runs on the data directory, the bank actor and the projections run here
(as ``hindsight-es mcp`` does), so ``retain(..., wait=True)`` returns once the memories are queryable;
when ``up`` runs, it decides and projects, and this process only publishes and reads. With a broker the
``worker`` processes own the consumer groups: this process only publishes and reads, and ``wait=True``
waits for them. The plain ``Hindsight`` client never runs the pipeline: it needs a running ``up``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from streams.service import ServiceLock, catch_up_all, serve_when_free


@contextlib.asynccontextmanager
async def local(settings: Settings) -> AsyncIterator[Hindsight]:
    hs = Hindsight(settings)
    await hs.start()
    stop = asyncio.Event()
    pipeline: asyncio.Task[None] | None = None
    try:
        if not settings.broker:  # on Kafka the workers decide and project: joining their groups is theirs
            lock = ServiceLock(settings)
            try:
                if lock.acquire():  # nothing runs the pipeline: load the models and drain what is waiting first
                    await catch_up_all(settings, hs.log, embedder=hs.embedder)
            finally:
                lock.release()
        # The models load now, as `up` loads them before its banner: a first `retain(wait=True)` would
        # otherwise spend its time-out loading them (seconds on a busy machine) and return not ready.
        await asyncio.to_thread(hs.embedder.embed_query, "hindsight")
        if not settings.broker:
            pipeline = asyncio.create_task(serve_when_free(settings, hs.log, stop, embedder=hs.embedder, retry_s=1.0))
        yield hs
    finally:
        stop.set()
        if pipeline is not None:
            await asyncio.gather(pipeline, return_exceptions=True)
        await hs.close()


__all__ = ["local"]
