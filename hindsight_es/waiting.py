"""Waiting on work that a stop signal may cut short."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Iterator
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


class Awaited:
    """Callers of this process that wait until the projections hold what they wrote (``wait=True``).

    A projection lets a steady stream's records gather for its ``linger_s`` before it writes them (each write
    has a fixed cost). A caller that writes one input and waits for it makes its own inputs look like such a
    stream, so each of its waits met a whole linger (a loop of ``retain(wait=True)`` in process took a second a
    turn, the archive's linger). While one waits, a projection does not linger, and a linger under way ends.
    Other processes' waiters (a gateway beside Kafka workers) are not seen: they wait up to a linger."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count = 0
        self._sleepers: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """While the caller waits: no projection of this process lingers."""
        with self._lock:
            self._count += 1
            sleepers = list(self._sleepers)
        for loop, event in sleepers:
            loop.call_soon_threadsafe(event.set)
        try:
            yield
        finally:
            with self._lock:
                self._count -= 1

    async def linger(self, seconds: float, stop: asyncio.Event | None = None) -> None:
        """Sleep ``seconds``, cut short by ``stop`` or by a caller starting to wait; not at all while one waits."""
        event = asyncio.Event()
        entry = (asyncio.get_running_loop(), event)
        with self._lock:
            if self._count:
                return
            self._sleepers.add(entry)
        waits = {asyncio.ensure_future(event.wait())} | ({asyncio.ensure_future(stop.wait())} if stop else set())
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
            with self._lock:
                self._sleepers.discard(entry)


AWAITED = Awaited()  # the process's
