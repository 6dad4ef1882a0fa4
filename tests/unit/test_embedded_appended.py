"""``EmbeddedLog.appended``: an idle projection waits on it instead of reading the log every 20 ms, so it
must wake on this process's next append, never miss one made while it was reading, and time out for
other processes' appends (which it cannot see)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hindsight_es.log.embedded import EmbeddedLog


async def test_appended_wakes_on_an_append_and_times_out_without_one(tmp_path: Path) -> None:
    log = EmbeddedLog(tmp_path / "log.sqlite3")
    await log.start()
    try:
        seen = log.appends
        assert await log.appended(seen, 0.05) == seen  # nothing appended: back after the timeout

        async def later() -> None:
            await asyncio.sleep(0.1)
            await log.append("t", "k", [b"v"])

        writer = asyncio.create_task(later())
        # 60 s to wait, 10 s allowed: only the append can end it in time
        assert await asyncio.wait_for(log.appended(seen, 60), 10) == seen + 1
        await writer

        await log.append("t", "k", [b"w"])  # made before the wait starts (while a reader read the log)
        assert await asyncio.wait_for(log.appended(seen + 1, 60), 1) == seen + 2
    finally:
        await log.close()


async def test_another_process_append_is_seen_after_the_timeout(tmp_path: Path) -> None:
    """A second ``EmbeddedLog`` on the same file stands for another process: its append does not wake
    this one's waiters, and the records are there to read when the wait times out."""
    mine, theirs = EmbeddedLog(tmp_path / "log.sqlite3"), EmbeddedLog(tmp_path / "log.sqlite3")
    await mine.start()
    await theirs.start()
    try:
        seen = mine.appends
        await theirs.append("t", "k", [b"v"])
        assert await mine.appended(seen, 0.2) == seen
        assert sum((await mine.end_offsets("t")).values()) == 1
    finally:
        await mine.close()
        await theirs.close()
