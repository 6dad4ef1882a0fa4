"""A projection's linger and the callers that wait for what they wrote (``waiting.Awaited``): a caller waiting
means no linger, and one that starts waiting ends a linger under way. The time-outs below only keep a broken
build from hanging; a linger of 30 s that ended at once is what is asserted."""

from __future__ import annotations

import asyncio

from hindsight_es.waiting import Awaited


async def test_no_linger_while_a_caller_waits():
    awaited = Awaited()
    with awaited.waiting():
        await asyncio.wait_for(awaited.linger(30.0), timeout=5)


async def test_a_caller_that_starts_waiting_ends_a_linger():
    awaited = Awaited()
    lingering = asyncio.ensure_future(awaited.linger(30.0))
    await asyncio.sleep(0.05)
    assert not lingering.done()
    with awaited.waiting():
        await asyncio.wait_for(lingering, timeout=5)


async def test_a_linger_lasts_without_waiters_and_stop_ends_it():
    awaited, stop = Awaited(), asyncio.Event()
    lingering = asyncio.ensure_future(awaited.linger(30.0, stop))
    await asyncio.sleep(0.2)
    assert not lingering.done()
    stop.set()
    await asyncio.wait_for(lingering, timeout=5)


async def test_a_waiter_in_another_thread_ends_a_linger():
    awaited = Awaited()
    lingering = asyncio.ensure_future(awaited.linger(30.0))
    await asyncio.sleep(0.05)

    def wait_elsewhere() -> None:
        with awaited.waiting():
            pass

    await asyncio.to_thread(wait_elsewhere)
    await asyncio.wait_for(lingering, timeout=5)
