"""The store of a ``bench recall --history bulk`` layout: banks written to the log in bulk (``bench.bulk``),
then every projection rebuilt from it into a new generation (``projections.replay.rebuild``, the fast
way to fill the stores: one read of the log for all of them, the archive in a child process), switched to.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from dataclasses import dataclass

from hindsight_es.app.bench.bulk import bulk_history, memories_per_turn
from hindsight_es.app.bench.cmd_replay import Entry, write_history
from hindsight_es.app.cli.common import console
from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.errors import InvalidInputError
from hindsight_es.log import started_log
from hindsight_es.stores import generations, location
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore

PROGRESS_EVERY_S = 30.0


@dataclass(frozen=True, slots=True)
class Built:
    active: int  # active memories over every bank of the layout
    rows: int  # rows of the memories table (inactive ones included)
    seconds: float  # 0 when the store was reused
    events: int = 0  # events written to the log (0: reused, or a decided history)
    write_s: float = 0.0
    rebuild_s: float = 0.0  # the projections' replay
    index_s: float = 0.0  # index builds after it


def bank_names(bank: str, count: int) -> list[str]:
    """``bank`` itself for one bank, else ``bank0`` … ``bank{count-1}``."""
    return [bank] if count == 1 else [f"{bank}{i}" for i in range(count)]


async def build_bulk(settings: Settings, bank: str, count: int, per_bank: int, *, progress: bool = True) -> Built:
    """Write ``count`` banks of about ``per_bank`` active memories each and rebuild the stores from the log;
    a layout already built in the data directory is counted and reused."""
    from projections.replay import rebuild

    names = bank_names(bank, count)
    store = LanceStore(generations.current(settings.data_dir)["lance"])
    if store.table("memories") is not None and store.count("memories", MemoryFilter(names[-1])):
        return Built(_active(store, names), store.count("memories", None), 0.0)
    embedder = make_embedder(settings.embedder)  # its id and size only: no model is loaded here
    turns = math.ceil(per_bank / memories_per_turn())
    started = time.perf_counter()
    async with started_log(settings) as log:
        if any((await log.end_offsets(TOPIC_MEMORIES)).values()):
            raise InvalidInputError(
                f"{settings.data_dir} holds a log but no store of this layout (a build cut short?): remove it first"
            )
        shown = [time.monotonic()]
        written = 0
        for i, name in enumerate(names):
            entries = bulk_history(name, turns, dim=embedder.dim, embedder_id=embedder.id, seed=i)
            if progress:
                entries = _shown(entries, written, started, shown, f"bank {i + 1:,} of {count:,}")
            written += await write_history(log, entries, chunk=20_000)
        write_s = time.perf_counter() - started
        if progress:
            console.print(f"  wrote {written:,} events in {write_s:.0f}s; rebuilding the projections from the log")
        built = await rebuild(settings, log)
    generations.switch(location.root(settings), built.stores)
    store = LanceStore(generations.current(settings.data_dir)["lance"])
    return Built(
        _active(store, names),
        store.count("memories", None),
        time.perf_counter() - started,
        events=built.events,
        write_s=write_s,
        rebuild_s=built.replay_seconds,
        index_s=built.index_seconds,
    )


def _shown(entries: Iterator[Entry], before: int, started: float, shown: list[float], where: str) -> Iterator[Entry]:
    """``entries`` as they are, with a line of progress every ``PROGRESS_EVERY_S``."""
    for n, entry in enumerate(entries, start=before + 1):
        if time.monotonic() - shown[0] >= PROGRESS_EVERY_S:
            shown[0] = time.monotonic()
            rate = n / (time.perf_counter() - started)
            console.print(f"  wrote {n:,} events ({where}), {rate:,.0f} events/s")
        yield entry


def _active(store: LanceStore, names: list[str]) -> int:
    return store.count("memories", MemoryFilter(names[0] if len(names) == 1 else None))


__all__ = ["Built", "bank_names", "build_bulk"]
