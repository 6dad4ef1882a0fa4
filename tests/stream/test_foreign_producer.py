"""Turns published by a foreign producer (a plain aiokafka client, not the hindsight client) reach the
FastStream-wired bank actor: without an event id, twice, unkeyed, keyed to another bank, or not JSON."""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict

import pytest
from aiokafka import AIOKafkaProducer

from hindsight_es.client import turn_event_id
from hindsight_es.config import TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.embedding import make_embedder
from hindsight_es.events import MemoryRetained, decoded
from hindsight_es.log import partition_for, replay
from hindsight_es.log.kafka import KafkaLog
from streams.service import serve
from tests.conftest import worker_settings

pytestmark = pytest.mark.kafka


def turn(bank: str, turn_id: str, text: str, **extra: str) -> bytes:
    body = {"type": "TurnRecorded", "bank_id": bank, "session_id": "s1", "turn_id": turn_id, "text": text}
    return json.dumps(body | extra).encode()


async def test_foreign_turns_are_decided_once_on_their_banks_partition(broker, tmp_path):
    settings = worker_settings(broker, tmp_path, partitions=4)
    log = KafkaLog(settings)
    await log.start()
    stop = asyncio.Event()
    service = asyncio.create_task(serve(settings, log, stop, embedder=make_embedder("minilm")))
    producer = AIOKafkaProducer(bootstrap_servers=broker, enable_idempotence=False)
    await producer.start()
    try:
        when = "2026-03-02T09:00:00+00:00"
        fedex = turn("fp-alice", "t1", "From now on we use FedEx for shipping.", occurred_at=when)
        await producer.send_and_wait(TOPIC_TURNS, fedex, key=b"fp-alice")  # no event_id
        await producer.send_and_wait(TOPIC_TURNS, fedex, key=b"fp-alice")  # the same turn again
        await producer.send_and_wait(TOPIC_TURNS, turn("fp-bob", "t1", "I live in Paris."))  # no key, no time
        await producer.send_and_wait(TOPIC_TURNS, turn("fp-carol", "t1", "My favorite color is blue."), key=b"fp-alice")
        await producer.send_and_wait(TOPIC_TURNS, b"{not json", key=b"fp-alice")

        deadline = time.monotonic() + 60
        while True:
            memories: dict[str, list] = defaultdict(list)
            async for records in replay(log, TOPIC_MEMORIES):
                for record, event in decoded(records):
                    if event.bank_id.startswith("fp-"):
                        memories[event.bank_id].append((record.partition, event))
            dead = [json.loads(r.value) for rs in [x async for x in replay(log, TOPIC_DEAD_LETTER)] for r in rs]
            if {"fp-alice", "fp-bob", "fp-carol"} <= set(memories) and dead:
                break
            assert time.monotonic() < deadline and not service.done(), (dict(memories), dead)
            await asyncio.sleep(0.3)
        await asyncio.sleep(2)  # a second decision of the repeated turn would be in by now
    finally:
        await producer.stop()
        stop.set()
        await service
        await log.close()

    alice = [e for _, e in memories["fp-alice"]]
    assert {e.causation_id for e in alice} == {turn_event_id("fp-alice", "s1", "t1")}  # the client's id
    retained = [e for e in alice if isinstance(e, MemoryRetained)]
    assert len({e.memory_id for e in retained}) == len(retained) > 0  # decided once
    assert retained[0].valid_from.isoformat() == when
    for bank, events in memories.items():
        assert {p for p, _ in events} == {partition_for(bank, 4)}, bank  # never on another bank's partition
    assert [e.text for _, e in memories["fp-carol"] if isinstance(e, MemoryRetained)][0] == "My favorite color is blue."
    assert any("not JSON" in d["reason"] for d in dead)
