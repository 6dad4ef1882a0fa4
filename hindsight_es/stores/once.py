"""One read for concurrent callers that want the same thing (the kept sets of ``exact`` and ``tail``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


async def once(reading: dict[Hashable, asyncio.Future[T]], key: Hashable, produce: Callable[[], Awaitable[T]]) -> T:
    """``produce()``, awaited by the first caller with ``key`` while the others with that key wait for it and
    get its result or its exception. ``reading`` holds the reads in flight, one event loop's."""
    pending = reading.get(key)
    if pending is not None:
        return await asyncio.shield(pending)
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    reading[key] = future
    try:
        result = await produce()
        future.set_result(result)
        return result
    except BaseException as exc:
        future.set_exception(exc)
        future.exception()  # retrieved: a waiter re-raises it, no one else needs to
        raise
    finally:
        del reading[key]
