"""``hindsight-es mcp``: the MCP server on stdin/stdout, for desktop clients.

Local and trusted (every bank; ``bank`` binds the connection to a default one). It runs on the same
data directory as ``up``; the pipeline (actor + projections) is passed in by the entry point and runs
in this process only while no other process holds the data directory's service lock, so two
processes never both write the projections.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.server import build_server
from hindsight_es.app.observability import tracing
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.errors import HindsightError

log_ = logging.getLogger("hindsight.gateway")

# (hindsight client, its embedder, stop) -> runs the pipeline when it may, until stop is set.
Pipeline = Callable[[Hindsight, Embedder, asyncio.Event], Coroutine[Any, Any, None]]


async def run_stdio(settings: Settings, *, bank: str | None = None, pipeline: Pipeline | None = None) -> None:
    """Serve MCP on stdio until the client closes stdin."""
    provider = tracing.configure(settings)  # HINDSIGHT_TRACES, as for `up`
    embedder = make_embedder(settings.embedder)
    hs = Hindsight(settings, embedder=embedder)
    try:
        await hs.start()
    except HindsightError as exc:  # serve anyway: reads work, writes retry the log and fail with its error
        log_.warning("the log is unavailable (%s); writes will fail until it is back", exc)
    server = build_server(hs, Access.local(bank or settings.mcp_bank))
    stop = asyncio.Event()
    background = asyncio.create_task(pipeline(hs, embedder, stop)) if pipeline else None
    try:
        await server.run_stdio_async()
    finally:
        stop.set()
        if background is not None:
            await asyncio.gather(background, return_exceptions=True)
        await hs.close()
        if provider is not None:
            provider.shutdown()
