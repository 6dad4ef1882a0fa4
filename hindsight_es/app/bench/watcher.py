"""Watching a bank's memories table for turns becoming recallable, for ``bench ingest`` and ``bench scale``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import UTC, datetime

from hindsight_es.config import Settings
from hindsight_es.events import TurnRecorded
from hindsight_es.stores import location
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.shards import open_hot

WATCH_S = 0.015  # poll interval of the memories-table watcher


class Watcher:
    """Polls the memories table of one bank, or of several on one partition; notes when each turn id
    first shows in ``source_turn_ids``.

    Rows are read past the highest ``offset`` seen so far: every commit of the vectors projection holds
    a prefix of the banks' (single) memories partition, so a new row always has a higher offset. The
    table is scanned only when its version changed since the last scan. Banks that share a partition
    are watched by one watcher (``also``): one version check and one scan per version for all of them,
    where a watcher each multiplied the requests the store under measurement had to serve.
    """

    def __init__(self, settings: Settings, bank: str, *, also: Sequence[str] = ()) -> None:
        self.settings = settings
        self.store: LanceStore | None = None  # the bank's shard, when the store has one per partition
        self.bank = bank
        self.banks = (bank, *also)
        self.seen_in: dict[tuple[str, str], float] = {}  # (bank, turn id) -> perf_counter when first seen
        self._after, self._version = -1, -1
        self.scans, self.scan_s = 0, 0.0  # its own cost, reported beside the figures

    @property
    def seen(self) -> dict[str, float]:
        """Turn id -> when first seen, of the first bank."""
        # ``poll`` adds to ``seen_in`` on its own thread: iterate a copy (one C call, atomic under the GIL),
        # not the dict, which a poll may grow meanwhile ("dictionary changed size during iteration").
        return {turn: at for (bank, turn), at in self.seen_in.copy().items() if bank == self.bank}

    def poll(self) -> None:
        """Read the new rows, if the table has a new version (checking that is ~0.1 ms, a scan a few ms)."""
        if self.store is None or self.store.table("memories") is None:  # the projections create its layout
            hot = open_hot(location.current(self.settings)["lance"], location.s3_options(self.settings))
            self.store = hot.for_bank(self.bank)
        table = self.store.table("memories")
        if table is None or table.version == self._version:
            return
        # The rows of a version were recallable when the version was seen: the scan that names them
        # (~0.1 s on object storage) is the watcher's time, not the pipeline's. Unless a newer version
        # came during the scan (its rows may be in it): then they count from the scan's end.
        t0 = time.perf_counter()
        self._version = table.version
        # several banks: every row past the offset, theirs picked here (``_after`` moves by theirs only,
        # so rows of a partition outside the group, in a store not sharded, cannot hide any of theirs)
        where = MemoryFilter(self.bank if len(self.banks) == 1 else None, statuses=None, past_offset=self._after)
        columns = ["bank_id", "source_turn_ids", "offset"]
        rows = self.store.scan("memories", where, columns)
        t1 = time.perf_counter()
        at = t0 if table.version == self._version else t1
        self.scans, self.scan_s = self.scans + 1, self.scan_s + t1 - t0
        after = self._after
        for bank, ids, offset in zip(*(rows.column(c).to_pylist() for c in columns), strict=True):
            if bank in self.banks:
                for turn_id in ids or ():
                    self.seen_in.setdefault((bank, turn_id), at)
                after = max(after, offset)
        self._after = after

    @contextlib.asynccontextmanager
    async def watching(self) -> AsyncIterator[Watcher]:
        """Poll every ``WATCH_S`` (in a thread) while the block runs."""
        stop = asyncio.Event()

        async def loop() -> None:
            while not stop.is_set():
                await asyncio.to_thread(self.poll)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), WATCH_S)

        task = asyncio.create_task(loop(), name=f"watch-{self.bank}")
        try:
            yield self
        finally:
            stop.set()
            await task

    async def until(
        self,
        turn_ids: Sequence[str],
        deadline: float,
        service: asyncio.Task[None],
        tick: Callable[[int], None] = lambda _: None,
    ) -> int:
        """Wait until every id is seen, ``deadline`` (perf_counter) passes or the service ends; returns
        how many were seen."""
        while True:
            done = sum((self.bank, t) in self.seen_in for t in turn_ids)  # ``seen`` builds a dict per call
            tick(done)
            if done == len(turn_ids) or time.perf_counter() >= deadline or service.done():
                return done
            await asyncio.sleep(WATCH_S)


def now(turn: TurnRecorded) -> TurnRecorded:
    """The turn as it happens now (the synthetic ones are dated 2025: the janitor would find them old)."""
    return turn.model_copy(update={"occurred_at": datetime.now(UTC)})


def percentile(ordered: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted values."""
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]
