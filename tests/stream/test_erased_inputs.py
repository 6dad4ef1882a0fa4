"""A turn whose content was erased is never decided again: its text reads as the erased placeholder, which is
no one's words. A filler turn leaves no memory event, so an actor that meets it again (a consumer group started
over, an import into another log) decides it again; erased, it must find nothing in it either."""

from __future__ import annotations

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import MemoryRetained, decoded
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import replay, started_log
from hindsight_es.log.sealed import deciding
from streams.bank_actor import BankActor
from streams.service import catch_up_all


async def test_an_actor_started_over_decides_nothing_from_erased_turns(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm", record_recalls=False)
    embedder = make_embedder("minilm")
    async with started_log(settings) as log, Hindsight(settings, log=log, embedder=embedder) as hs:
        for i, text in enumerate(["hi there, how are you doing today?", "We use MySQL for orders.", "ok thanks"]):
            await hs.record_turn("bob", text, session_id="b1", turn_id=f"t{i}")
        await hs.record_turn("bob", "I prefer green tea in the morning.", session_id="b2", turn_id="t9")
        await catch_up_all(settings, log, embedder=embedder)
        await hs.operator.erase("bob", session_id="b1", reason="user asked", wait=False)
        await catch_up_all(settings, log, embedder=embedder)
        before = await memory_events(log)

        # the same log, read from its start by an actor whose consumer group holds no position
        actor = BankActor(deciding(log), RuleExtractor(), embedder, settings, group="started-over")
        await actor.load()
        consumer = await actor.log.consumer("started-over", [TOPIC_TURNS, TOPIC_COMMANDS])
        appended = 0
        try:
            while records := await consumer.poll(settings.poll_max_records, 50):
                appended += await actor.handle(records)
        finally:
            await consumer.close()
        after = await memory_events(log)
    assert appended == 0 and len(after) == len(before), [e for e in after[len(before) :]]
    assert not [e for e in after if isinstance(e, MemoryRetained) and {"t0", "t2"} & set(e.source_turn_ids)]


async def memory_events(log):
    return [e for records in [r async for r in replay(log, TOPIC_MEMORIES)] for _, e in decoded(records)]
