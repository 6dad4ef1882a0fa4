"""Waiting on work that a stop signal may cut short."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any


async def until_done_or_stopped(work: Awaitable[Any], stop: asyncio.Event) -> None:
    """Until ``work`` finishes or ``stop`` is set, whichever comes first; the other is cancelled."""
    done = asyncio.ensure_future(work)
    stopped = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({done, stopped}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        done.cancel()
        stopped.cancel()
