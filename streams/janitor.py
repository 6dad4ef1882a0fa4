"""Janitor: consumes nothing, produces ``JanitorTick`` on ``hindsight.commands``, keyed by ``bank_id``.

A scheduler, not a writer of memory events: every ``janitor_interval_s`` it asks every bank's actor to
archive what has faded, and every ``janitor_check_s`` it counts each bank's active memories in the
hot store and asks at once for a bank over its capacity. The tick carries the retention policy and its
``occurred_at`` is the decision's "now", so the actor's decision is a pure function of the log.
Each worker's janitor ticks only the banks of the partitions its bank actor owns (``owns``), so a tick
is published by the process that will decide it; during a rebalance a bank may be ticked twice, and a
second tick finds nothing to archive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from hindsight_es.config import TOPIC_COMMANDS, Settings
from hindsight_es.events import DEFAULT_HALF_LIVES, DEFAULT_WEIGHTS, JanitorTick, RetentionPolicy, encode
from hindsight_es.health import progressed
from hindsight_es.log import EventLog
from hindsight_es.stores import location
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore
from hindsight_es.stores.shards import open_hot
from hindsight_es.text import plural
from streams.metrics import JANITOR_TICKS

log_ = logging.getLogger("hindsight.janitor")


def policy_for(settings: Settings, bank_id: str) -> RetentionPolicy:
    """The retention policy of a bank from the settings (per-kind and per-bank values over the defaults)."""
    return RetentionPolicy(
        threshold=settings.retention_threshold,
        half_life_days={**DEFAULT_HALF_LIVES, **settings.retention_half_life_days},
        weights={**DEFAULT_WEIGHTS, **settings.retention_weights},
        recall_saturation=settings.retention_recall_saturation,
        grace_days=settings.retention_grace_days,
        capacity=settings.bank_capacities.get(bank_id, settings.bank_capacity),
        session_idle_hours=settings.session_idle_hours,
    )


class Janitor:
    def __init__(
        self,
        log: EventLog,
        settings: Settings,
        *,
        store: Callable[[], LanceStore] | None = None,
        owns: Callable[[str], bool] | None = None,
    ) -> None:
        self.log, self.settings = log, settings
        self.owns = owns or (lambda _bank: True)  # whether this process's bank actor owns the bank
        # the current generation, each time
        self._store = store or (lambda: open_hot(location.current(settings)["lance"], location.s3_options(settings)))
        self.asked: dict[str, float] = {}  # bank -> when it was last ticked for its capacity (monotonic)

    def banks(self, store: LanceStore) -> dict[str, int]:
        """Active memories per bank in the hot store, of the banks this process owns."""
        table = store.scan("memories", MemoryFilter(), ["bank_id"])
        counts: dict[str, int] = {}
        for bank in table.column("bank_id").to_pylist() if table.num_rows else []:
            counts[bank] = counts.get(bank, 0) + 1
        return {bank: n for bank, n in counts.items() if self.owns(bank)}

    async def tick(self, banks: list[str], reason: str) -> int:
        """Publish one tick per bank; returns how many."""
        for bank_id in banks:
            policy = policy_for(self.settings, bank_id)
            tick = JanitorTick(bank_id=bank_id, actor="janitor", policy=policy, reason=reason)
            await self.log.append(TOPIC_COMMANDS, bank_id, [encode(tick)])
            JANITOR_TICKS.labels(reason=reason).inc()
        if banks:
            log_.info(
                "janitor: %s (%s)", plural(len(banks), "tick"), reason, extra={"banks": len(banks), "reason": reason}
            )
        return len(banks)

    async def check(self) -> int:
        """Tick the banks over their capacity (each at most once a minute, or per 4 checks if longer:
        the actor may still be deciding the last one)."""
        counts = await asyncio.to_thread(self.banks, self._store())
        now, wait = time.monotonic(), max(4 * self.settings.janitor_check_s, 60.0)
        over = [
            b
            for b, n in sorted(counts.items())
            if (cap := self.settings.bank_capacities.get(b, self.settings.bank_capacity)) is not None
            and n > cap
            and now - self.asked.get(b, -wait) >= wait
        ]
        for bank in over:
            self.asked[bank] = now
        return await self.tick(over, "capacity")

    async def run(self, stop: asyncio.Event) -> None:
        """Scheduled ticks every ``janitor_interval_s`` (the first after one interval) and capacity checks
        every ``janitor_check_s``, until ``stop``; a failed round is logged and retried next round."""
        next_schedule = time.monotonic() + self.settings.janitor_interval_s
        while not stop.is_set():
            try:
                if time.monotonic() >= next_schedule:
                    next_schedule = time.monotonic() + self.settings.janitor_interval_s
                    await self.tick(sorted(await asyncio.to_thread(self.banks, self._store())), "schedule")
                await self.check()
                progressed()
            except Exception:
                log_.exception("janitor round failed; trying again in %gs", self.settings.janitor_check_s)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    stop.wait(), min(self.settings.janitor_check_s, max(0.0, next_schedule - time.monotonic()))
                )
