"""On Kafka the topic only ever holds sealed content: read raw from a real Kafka-protocol broker (Tansu)
with a plain aiokafka consumer, no record holds the text or a slice of the vector; through the sealed log
it reads back, and once the keys are destroyed it reads as the erased placeholder, while the raw topic is
unchanged ciphertext."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding.minilm import MiniLMEmbedder
from hindsight_es.events import MemoryRetained, TurnRecorded, decoded, encode, vectors
from hindsight_es.log.kafka import KafkaLog
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.log.port import EventLog, Record, replay
from hindsight_es.log.sealed import SealedLog, Sealer

pytestmark = pytest.mark.kafka
SECRET = "passport ZX9931Q"


async def everything(log: EventLog, topic: str, bank: str) -> list[Record]:
    return [r for records in [x async for x in replay(log, topic)] for r in records if r.key == bank]


async def raw_topic(settings: Settings, topic: str, bank: str) -> list[bytes]:
    """Every value of the bank's records in ``topic``, read by a plain aiokafka consumer (no hindsight code;
    the other tests' records on the shared broker are left out)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.broker, enable_auto_commit=False)
    await consumer.start()
    try:
        parts = [TopicPartition(topic, p) for p in range(settings.partitions)]
        consumer.assign(parts)
        ends = await consumer.end_offsets(parts)
        await consumer.seek_to_beginning(*parts)
        values: list[bytes] = []
        for _ in range(600):  # bounded: a few seconds at most for these topics
            if all([await consumer.position(tp) >= ends[tp] for tp in parts]):
                break
            for records in (await consumer.getmany(timeout_ms=500)).values():
                values += [r.value for r in records if r.value is not None and r.key == bank.encode()]
        return values
    finally:
        await consumer.stop()


async def test_kafka_topics_hold_only_ciphertext(kafka_settings: Settings) -> None:
    bank = f"seal-{uuid.uuid4().hex[:8]}"
    keys = SqliteKeyStore(kafka_settings.data_dir / "keys.sqlite3")
    raw = KafkaLog(kafka_settings)
    log = SealedLog(raw, Sealer(keys))
    await log.start()
    try:
        packed = vectors.pack(np.linspace(0.1, 0.9, 384, dtype="<f4"))  # what an event carries (int8 codes)
        turn = TurnRecorded(bank_id=bank, session_id="s1", turn_id="t1", text=f"My {SECRET}.")
        memory = MemoryRetained(
            bank_id=bank,
            memory_id=uuid.uuid4(),
            kind="fact",
            text=f"The user's {SECRET}",
            session_id="s1",
            source_turn_ids=("t1",),
            valid_from=datetime.now(UTC),
            vector=packed,
            embedder=MiniLMEmbedder.id,
            extractor="rules/1",
        )  # fmt: skip  (a real embedder id: other tests' actors on the shared broker fold this partition)
        await log.append(TOPIC_TURNS, bank, [encode(turn)])
        await log.append(TOPIC_MEMORIES, bank, [encode(memory)])
        fingerprint = packed[64:96]
        stored = await everything(raw, TOPIC_TURNS, bank) + await everything(raw, TOPIC_MEMORIES, bank)
        assert len(stored) == 2
        assert not any(b"ZX9931Q" in r.value or fingerprint in r.value for r in stored)
        assert not any(memory.model_dump_json().split('"vector":"')[1][:40].encode() in r.value for r in stored)
        served = await raw_topic(kafka_settings, TOPIC_TURNS, bank) + await raw_topic(
            kafka_settings, TOPIC_MEMORIES, bank
        )
        assert sorted(served) == sorted(r.value for r in stored)  # the records above, as the broker serves them
        assert not any(b"ZX9931Q" in v or fingerprint in v for v in served)

        opened = [e for _, e in decoded(await everything(log, TOPIC_TURNS, bank))]
        assert opened == [turn]
        keys.destroy(bank, keys.select(bank, session_id="s1"), by="operator", reason="gdpr")
        log.sealer.forget_cached()
        erased = [e for _, e in decoded(await everything(log, TOPIC_MEMORIES, bank))]
        assert isinstance(erased[0], MemoryRetained) and erased[0].text.startswith("[erased by operator at ")
        assert not erased[0].embedding().any()
        assert [r.value for r in await everything(raw, TOPIC_TURNS, bank)] == [stored[0].value]
        after = await raw_topic(kafka_settings, TOPIC_MEMORIES, bank)
        assert stored[1].value in after and not any(b"ZX9931Q" in v or fingerprint in v for v in after)
    finally:
        await log.close()
        keys.close()
