"""A store that fails or hangs fails the one read fast, as a ``StoreError``; the client goes on serving."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import LogError, NotFoundError, StoreError
from streams.service import catch_up_all

T = TypeVar("T")


class SlowEmbedder:
    """Deterministic 16-d vectors; ``delay`` seconds per call once set (a store read that hangs)."""

    id = "slow-test@1"
    dim = 16
    compatible: tuple[str, ...] = ()
    cross_script = None

    def __init__(self) -> None:
        self.delay = 0.0

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.delay)
        rows = [
            np.frombuffer(hashlib.sha256(t.encode()).digest()[: self.dim], np.uint8).astype(np.float32) + 1
            for t in texts
        ]
        vectors = np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


async def test_a_hanging_read_times_out_and_the_next_one_is_served(tmp_path: Path) -> None:
    embedder = SlowEmbedder()
    settings = Settings(data_dir=tmp_path, request_timeout_s=0.3)
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.record_turn("alice", "We use PostgreSQL for billing.", session_id="s1")
        await catch_up_all(settings, hs.log, embedder=embedder)
        with contextlib.suppress(StoreError):  # tables opened, rows cached (a loaded machine may miss 0.3 s here)
            await hs.recall("alice", "PostgreSQL billing")
        embedder.delay = 1.0
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"did not answer within 0.3s \(HINDSIGHT_REQUEST_TIMEOUT_S\)"):
            await hs.recall("alice", "which database?")
        assert time.monotonic() - started < 0.9
        embedder.delay = 0.0
        hits = await _served(lambda: hs.recall("alice", "PostgreSQL billing", min_relevance=0))
        assert hits is not None and [h.text for h in hits][:1] == [
            "The team's database: PostgreSQL"  # the turn's typed memory, quoting it
        ]
        stats = await _served(lambda: hs.bank_stats("alice"))
        assert stats is not None and stats["turns"] == 1


async def _served(read: Callable[[], Awaitable[T]], tries: int = 3) -> T | None:
    """``read()``'s answer, asked up to ``tries`` times: served again after a time-out, a loaded machine may
    still miss 0.3 s once on its own. None if every try timed out."""
    for _ in range(tries):
        with contextlib.suppress(StoreError):
            return await read()
    return None


async def test_a_broken_store_fails_reads_with_a_store_error_and_writes_still_work(tmp_path: Path) -> None:
    (tmp_path / "lance").write_text("not a LanceDB directory")
    async with Hindsight(Settings(data_dir=tmp_path), embedder=SlowEmbedder()) as hs:
        with pytest.raises(StoreError, match="store read failed"):
            await hs.recall("alice", "anything")
        with pytest.raises(StoreError):
            await hs.list_banks()
        turn = await hs.record_turn("alice", "still recorded", session_id="s1")
        assert turn.text == "still recorded"
        with pytest.raises(NotFoundError):
            await hs.history("alice", "00000000-0000-0000-0000-000000000000")


async def test_a_write_the_log_confirms_too_late_says_it_may_land_and_a_resend_adds_nothing(tmp_path: Path) -> None:
    """The append outlives the time-out (a slow disk or broker): the answer must not say nothing was written,
    and must name the turn id, so sending it again with it records the turn once."""
    settings = Settings(data_dir=tmp_path, request_timeout_s=0.2)
    async with Hindsight(settings, embedder=SlowEmbedder()) as hs:
        await hs.record_turn("alice", "first", session_id="s1")  # the log started
        append = hs.log.append
        landed = asyncio.Event()

        async def late(topic: str, key: str, values: list[bytes]) -> object:
            await asyncio.sleep(0.5)
            try:
                return await append(topic, key, values)
            finally:
                landed.set()

        async def slow_append(topic: str, key: str, values: list[bytes]) -> object:
            # handed over: the caller's time-out cancels its wait, not the write (a producer's queued batch)
            return await asyncio.shield(asyncio.ensure_future(late(topic, key, values)))

        hs.log.append = slow_append  # type: ignore[method-assign]
        task = asyncio.ensure_future(hs.record_turn("alice", "My sister is called Ann.", session_id="s1", turn_id="t9"))
        with pytest.raises(LogError, match=r"may still be written.*same session_id and turn_id \(t9\)"):
            await task
        await asyncio.wait_for(landed.wait(), 5)  # it landed after all
        hs.log.append = append  # type: ignore[method-assign]
        await hs.record_turn("alice", "My sister is called Ann.", session_id="s1", turn_id="t9")
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
    # read without the 0.2 s time-out, which a loaded machine's store read can outlast (seen in CI)
    async with Hindsight(Settings(data_dir=tmp_path), embedder=SlowEmbedder()) as hs:
        assert (await hs.bank_stats("alice"))["turns"] == 2  # "first" and t9, once


async def test_a_bug_in_a_read_is_not_reported_as_a_store_failure(tmp_path: Path) -> None:
    """Only the stores' own failures (I/O, LanceDB, DuckDB, Arrow) say the stores are unavailable; a
    programming error goes up as itself, for the HTTP API's 500 internal error."""
    async with Hindsight(Settings(data_dir=tmp_path), embedder=SlowEmbedder()) as hs:

        def buggy() -> None:
            sorted([datetime.now(UTC), "2025-01-05T10:00:00Z"])  # type: ignore[type-var]

        def disk_gone() -> None:
            raise OSError("No such file or directory: lance/memories.lance")

        with pytest.raises(TypeError):
            await hs.conn.read(buggy)
        with pytest.raises(StoreError, match="store read failed: OSError"):
            await hs.conn.read(disk_gone)
