"""The bank actor on both logs brings an archived memory back: the retained event is read back from
the memory log by offset (Kafka's or the embedded one's) and carried in the MemoryRestored."""

from __future__ import annotations

import uuid
from datetime import timedelta

from hindsight_es.client import Hindsight
from hindsight_es.events import (
    JanitorTick,
    MemoryArchived,
    MemoryRestored,
    MemoryRetained,
    RestoreRequested,
    RetentionPolicy,
)
from hindsight_es.extraction import RuleExtractor
from streams.bank_actor import BankActor
from tests.stream.test_bank_actor import embedder, env, memory_events, run_until  # noqa: F401 - fixtures


async def test_archive_then_restore_carries_the_retained_event(env, embedder):  # noqa: F811
    settings, log = env
    bank, group = f"b-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    hs = Hindsight(settings, log=log, embedder=embedder)
    turn = await hs.record_turn(bank, "We went to the lake on Sunday.", session_id="s", turn_id="t1")

    async def has(kind: type, n: int = 1) -> bool:
        return sum(isinstance(e, kind) for e in await memory_events(log, bank)) >= n

    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), lambda: has(MemoryRetained))
    await hs.send(
        JanitorTick(
            bank_id=bank,
            policy=RetentionPolicy(threshold=0.99, grace_days=0),
            occurred_at=turn.occurred_at + timedelta(days=1),
        )
    )
    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), lambda: has(MemoryArchived))
    retained = {e.memory_id: e for e in await memory_events(log, bank) if isinstance(e, MemoryRetained)}
    archived = [e.memory_id for e in await memory_events(log, bank) if isinstance(e, MemoryArchived)]
    assert set(archived) == set(retained)
    # a fresh actor (state and offsets loaded from the log) restores one of them
    await hs.send(RestoreRequested(bank_id=bank, memory_ids=(archived[0],), reason="needed"))
    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), lambda: has(MemoryRestored))
    (restored,) = [e for e in await memory_events(log, bank) if isinstance(e, MemoryRestored)]
    assert restored.memory_id == archived[0] and restored.revived == retained[archived[0]]
