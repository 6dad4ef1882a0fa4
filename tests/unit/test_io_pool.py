"""The service's pool of blocking calls: as many at once as ``io_threads``, not asyncio's cores + 4."""

from __future__ import annotations

import asyncio
import threading
import time

from hindsight_es.config import Settings
from streams.service import io_pool


async def test_blocking_calls_run_side_by_side_up_to_io_threads() -> None:
    io_pool(Settings(io_threads=16))
    io_pool(Settings(io_threads=4))  # once per loop: a second call keeps the first pool
    running, most, lock = 0, 0, threading.Lock()

    def call() -> None:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.3)  # an object-store request, say
        with lock:
            running -= 1

    await asyncio.gather(*(asyncio.to_thread(call) for _ in range(16)))
    assert most == 16
