"""Concurrent callers wanting the same read share one (``stores.once``)."""

from __future__ import annotations

import asyncio

import pytest

from hindsight_es.stores.once import once


def test_concurrent_callers_with_one_key_share_one_read_and_its_failure() -> None:
    calls: list[str] = []

    async def read(key: str, fail: bool = False) -> str:
        calls.append(key)
        await asyncio.sleep(0.01)
        if fail:
            raise OSError(f"{key} unreadable")
        return key.upper()

    async def main() -> None:
        reading: dict = {}
        got = await asyncio.gather(
            *(once(reading, "a", lambda: read("a")) for _ in range(3)), once(reading, "b", lambda: read("b"))
        )
        assert got == ["A", "A", "A", "B"] and sorted(calls) == ["a", "b"] and reading == {}
        failed = await asyncio.gather(
            *(once(reading, "c", lambda: read("c", True)) for _ in range(2)), return_exceptions=True
        )
        assert [str(e) for e in failed] == ["c unreadable", "c unreadable"] and calls.count("c") == 1
        assert await once(reading, "a", lambda: read("a")) == "A" and calls.count("a") == 2  # done: read again

    asyncio.run(main())


def test_a_read_cancelled_by_its_caller_does_not_leave_the_key_busy() -> None:
    async def main() -> None:
        reading: dict = {}
        task = asyncio.ensure_future(once(reading, "k", lambda: asyncio.sleep(10)))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert reading == {}

    asyncio.run(main())
