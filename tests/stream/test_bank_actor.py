"""The bank actor on both logs: turns in, memory events out, in order, once, with dead letters."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import (
    ForgetRequested,
    MemoryForgotten,
    MemoryRetained,
    MemorySuperseded,
    decode,
)
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import EventLog, replay
from hindsight_es.log.embedded import EmbeddedLog
from streams.bank_actor import BankActor


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture(params=["embedded", "kafka"])
async def env(request, tmp_path):
    if request.param == "embedded":
        settings = Settings(data_dir=tmp_path, partitions=4)
        log: EventLog = EmbeddedLog(settings.log_path, 4)
    else:
        from hindsight_es.log.kafka import KafkaLog

        settings = request.getfixturevalue("kafka_settings")
        log = KafkaLog(settings)
    await log.start()
    yield settings, log
    await log.close()


async def memory_events(log: EventLog, bank: str):
    out = []
    async for records in replay(log, TOPIC_MEMORIES):
        out += [e for e in map(decode, (r.value for r in records)) if e.bank_id == bank]
    return out


async def run_until(actor: BankActor, predicate, timeout: float = 30.0) -> None:
    stop = asyncio.Event()
    task = asyncio.create_task(actor.run(stop))
    try:
        deadline = asyncio.get_running_loop().time() + timeout
        while not await predicate():
            assert asyncio.get_running_loop().time() < deadline, "actor did not get there in time"
            assert not task.done(), task.exception()
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await task


async def test_turns_become_memories_with_supersession_and_forget(env, embedder):
    settings, log = env
    bank, group = f"b-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    hs = Hindsight(settings, log=log, embedder=embedder)
    await hs.record_turn(bank, "We use MySQL for orders.", session_id="s1", turn_id="t1")
    await hs.record_turn(bank, "好的", session_id="s1", turn_id="t2")
    await hs.record_turn(bank, "不对，我们用的是 PostgreSQL", session_id="s1", turn_id="t3")
    actor = BankActor(log, RuleExtractor(), embedder, settings, group=group)

    async def superseded():
        return any(isinstance(e, MemorySuperseded) for e in await memory_events(log, bank))

    await run_until(actor, superseded)
    events = await memory_events(log, bank)
    retained = [e for e in events if isinstance(e, MemoryRetained)]
    # "好的" (t2) is an acknowledgement: it stays in the log, and no memory is made of it
    assert [e.source_turn_ids for e in retained if e.kind == "episode"] == [("t1",), ("t3",)]
    facts = [e for e in retained if e.kind != "episode"]
    assert [(f.key, f.value) for f in facts] == [("team/database", "mysql"), ("team/database", "postgresql")]
    assert all(len(e.embedding()) == embedder.dim and e.embedder == embedder.id for e in retained)
    sup, along = [e for e in events if isinstance(e, MemorySuperseded)]
    assert (sup.memory_id, sup.superseded_by, sup.along_with) == (facts[0].memory_id, facts[1].memory_id, None)
    # The first turn's episode said only what its fact said: it goes with it, pointing at the new fact.
    episodes = {e.source_turn_ids: e.memory_id for e in retained if e.kind == "episode"}
    assert (along.memory_id, along.superseded_by, along.along_with) == (
        episodes[("t1",)],
        facts[1].memory_id,
        facts[0].memory_id,
    )

    await hs.send(ForgetRequested(bank_id=bank, memory_ids=(facts[1].memory_id,), reason="user asked"))

    async def forgotten():
        return any(isinstance(e, MemoryForgotten) for e in await memory_events(log, bank))

    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), forgotten)
    gone = [(e.memory_id, e.along_with) for e in await memory_events(log, bank) if isinstance(e, MemoryForgotten)]
    assert gone == [(facts[1].memory_id, None), (episodes[("t3",)], facts[1].memory_id)]


async def test_restart_resumes_and_redelivery_is_decided_once(env, embedder):
    settings, log = env
    bank, group = f"b-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    hs = Hindsight(settings, log=log, embedder=embedder)
    await hs.record_turn(bank, "I live in Berlin.", session_id="s", turn_id="1")
    first = BankActor(log, RuleExtractor(), embedder, settings, group=group)

    async def n_events(n):
        return len(await memory_events(log, bank)) >= n

    await run_until(first, lambda: n_events(2))
    # the same turn published again (a client retry) and a new one; a fresh actor reloads its state
    await hs.record_turn(bank, "I live in Berlin.", session_id="s", turn_id="1")
    await hs.record_turn(bank, "We moved to Paris.", session_id="s", turn_id="2")
    second = BankActor(log, RuleExtractor(), embedder, settings, group=group)
    await run_until(second, lambda: n_events(6))
    events = await memory_events(log, bank)
    assert len({e.event_id for e in events}) == len(events) == 6  # 2 + episode, fact, superseded fact and episode
    assert sum(isinstance(e, MemorySuperseded) for e in events) == 2


async def test_bad_records_go_to_the_dead_letter_topic_and_processing_continues(env, embedder):
    settings, log = env
    bank, group = f"b-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    await log.append(
        TOPIC_TURNS,
        bank,
        [b"\xff\xfe not utf-8", b'{"type": "TurnRecorded"}', json.dumps({"type": "Nope", "bank_id": bank}).encode()],
    )
    hs = Hindsight(settings, log=log, embedder=embedder)
    await hs.record_turn(bank, "I'm allergic to peanuts.", session_id="s", turn_id="ok")
    actor = BankActor(log, RuleExtractor(), embedder, settings, group=group)

    async def processed():
        return any(isinstance(e, MemoryRetained) for e in await memory_events(log, bank))

    await run_until(actor, processed)
    letters = []
    async for records in replay(log, TOPIC_DEAD_LETTER):
        letters += [json.loads(r.value) for r in records if r.key == bank]
    reasons = [letter["reason"] for letter in letters]
    assert len(reasons) == 3, reasons
    assert "not UTF-8" in reasons[0] and "invalid TurnRecorded" in reasons[1] and "Nope" in reasons[2]


async def test_a_turn_is_indexed_with_the_latest_turn_of_someone_else(env, embedder):
    """A second message in a row from one speaker does not answer their first: both answer the agent."""
    settings, log = env
    bank, group = f"b-{uuid.uuid4().hex[:8]}", f"g-{uuid.uuid4().hex[:8]}"
    hs = Hindsight(settings, log=log, embedder=embedder)
    await hs.record_turn(
        bank,
        "Which database do you use for the shop?",
        session_id="s",
        turn_id="t1",
        speaker="agent",
        role="assistant",
        source="assistant",
    )
    await hs.record_turn(bank, "We use MySQL for the order database.", session_id="s", turn_id="t2", speaker="Lin")
    await hs.record_turn(bank, "I'm allergic to peanuts.", session_id="s", turn_id="t3", speaker="Lin")

    async def episodes(n):
        return (
            len([e for e in await memory_events(log, bank) if isinstance(e, MemoryRetained) and e.kind == "episode"])
            >= n
        )

    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), lambda: episodes(3))
    # the next turn is decided by a fresh actor: the context now comes from the state folded from the log
    await hs.record_turn(bank, "And we ship with FedEx.", session_id="s", turn_id="t4", speaker="Lin")
    await hs.record_turn(
        bank, "Noted: FedEx.", session_id="s", turn_id="t5", speaker="agent", role="assistant", source="assistant"
    )
    await run_until(BankActor(log, RuleExtractor(), embedder, settings, group=group), lambda: episodes(5))
    contexts = {
        e.source_turn_ids[0]: e.context
        for e in await memory_events(log, bank)
        if isinstance(e, MemoryRetained) and e.kind == "episode"
    }
    assert contexts == {
        "t1": None,
        "t2": "agent: Which database do you use for the shop?",
        "t3": "agent: Which database do you use for the shop?",
        "t4": "agent: Which database do you use for the shop?",
        "t5": "Lin: And we ship with FedEx.",
    }


async def test_a_batch_whose_append_failed_is_decided_again_when_delivered_again(env, embedder, tmp_path):
    """The actor folded the batch's decisions before the append failed: delivered again, the batch is
    decided on what the log holds (the partition reloaded), so its events are appended exactly once."""
    settings, log = env
    bank = f"b-{uuid.uuid4().hex[:8]}"
    hs = Hindsight(settings, log=log, embedder=embedder)
    # more turns than one piece (``bank_actor.PIECE_MIN``): the first piece is appended, the second fails
    texts = [f"We use tool number {i} for builds." for i in range(12)] + ["We moved our builds to Bazel."]
    for i, text in enumerate(texts):
        await hs.record_turn(bank, text, session_id="s", turn_id=f"t{i}")
    records = [r async for batch in replay(log, TOPIC_TURNS) for r in batch if r.key == bank]
    calls = 0

    async def flaky(topic, key, values):
        nonlocal calls
        calls += 1
        if calls == 2:
            raise ConnectionError("broker went away")
        return await log.append(topic, key, values)

    actor = BankActor(log, RuleExtractor(), embedder, settings, publish=flaky)
    with pytest.raises(ConnectionError):
        await actor.handle(records)
    assert len(actor.owned) == 0  # what it decided is not kept: the log is the truth
    first = await memory_events(log, bank)
    assert len(first) > 0  # the first piece was appended before the failure

    await actor.handle(records)  # delivered again
    events = await memory_events(log, bank)
    assert len({e.event_id for e in events}) == len(events)
    turns = {t for e in events if isinstance(e, MemoryRetained) for t in e.source_turn_ids}
    assert turns == {f"t{i}" for i in range(len(texts))}

    # the same inputs decided by a fresh actor on a fresh log give the same events
    fresh = EmbeddedLog(tmp_path / "again.sqlite3", 4)
    await fresh.start()
    try:
        await fresh.append(TOPIC_TURNS, bank, [r.value for r in records])
        await BankActor(fresh, RuleExtractor(), embedder, settings).handle(
            [r async for batch in replay(fresh, TOPIC_TURNS) for r in batch]
        )
        assert [e.event_id for e in await memory_events(fresh, bank)] == [e.event_id for e in events]
    finally:
        await fresh.close()
