"""The janitor: a scheduler that publishes ticks (never memory events), on its schedule and for banks
over capacity, with the policy from the settings."""

from __future__ import annotations

import asyncio

import pyarrow as pa

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, Settings
from hindsight_es.events import JanitorTick, decode
from hindsight_es.log import replay
from hindsight_es.log.embedded import EmbeddedLog
from streams.janitor import Janitor, policy_for


class HotStore:
    """Active memories per bank, as the LanceDB scan the janitor makes would return them."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def scan(self, name, where, columns):
        return pa.table({"bank_id": [b for b, n in self.counts.items() for _ in range(n)]})


async def ticks(log: EmbeddedLog) -> list[JanitorTick]:
    out = []
    async for records in replay(log, TOPIC_COMMANDS):
        out += [e for e in map(decode, (r.value for r in records)) if isinstance(e, JanitorTick)]
    return out


async def test_ticks_on_schedule_and_for_banks_over_capacity(tmp_path):
    settings = Settings(
        data_dir=tmp_path,
        partitions=2,
        janitor_interval_s=0.15,
        janitor_check_s=0.02,
        bank_capacity=10,
        bank_capacities={"big": 1000},
        retention_threshold=0.2,
        retention_half_life_days={"episode": 7},
    )
    log = EmbeddedLog(settings.log_path, 2)
    await log.start()
    store = HotStore({"alice": 11, "bob": 3, "big": 500})
    stop = asyncio.Event()
    task = asyncio.create_task(Janitor(log, settings, store=lambda: store).run(stop))  # type: ignore[arg-type]
    await asyncio.sleep(0.1)
    early = await ticks(log)
    assert [(t.bank_id, t.reason) for t in early] == [("alice", "capacity")]  # at once, and once a minute
    await asyncio.sleep(0.3)
    stop.set()
    await task
    scheduled = [t for t in await ticks(log) if t.reason == "schedule"]
    assert {t.bank_id for t in scheduled} == {"alice", "bob", "big"}
    policy = early[0].policy
    assert policy == policy_for(settings, "alice") and policy.capacity == 10 and policy.threshold == 0.2
    assert policy.half_life_days["episode"] == 7 and policy.half_life_days["preference"] == 365
    assert policy_for(settings, "big").capacity == 1000
    assert not any((await log.end_offsets(TOPIC_MEMORIES)).values())  # a scheduler writes no memory events
    await log.close()
