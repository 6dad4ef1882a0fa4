"""A halt is immediate, on a real broker with FastStream's own consume loop: the batch that halted the
process is not handled again, although FastStream swallows the handler's exception and polls again
until the broker is stopped (and the batch was sought back, so that poll returns it again)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import pytest
from faststream.kafka import KafkaRouter

from hindsight_es.config import Settings
from hindsight_es.log.kafka import KafkaLog
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.log.port import Record
from hindsight_es.log.sealed import MissingKeyError, Sealer
from streams.kafka import Halt, make_broker, subscribe
from tests.stream.test_worker_logs import Owner

pytestmark = pytest.mark.kafka
TURN = (
    b'{"event_id":"00000000-0000-0000-0000-000000000001","type":"TurnRecorded","schema_version":1,'
    b'"bank_id":"halt","session_id":"s1","turn_id":"t1","text":"I live in Oslo."}'
)


class CountingSealer(Sealer):
    """A sealer over a key store that is not the writer's, counting the batches it was asked to open."""

    opened = 0

    def open(self, records: Sequence[Record], *, strict: bool = False) -> list[Record]:
        self.opened += 1
        return super().open(records, strict=strict)


async def test_a_halted_batch_is_not_polled_and_opened_again(kafka_settings: Settings, tmp_path, unique) -> None:
    topic = unique("halting")
    log = KafkaLog(kafka_settings)
    await log.start()
    sealer = CountingSealer(SqliteKeyStore(tmp_path / "other.sqlite3"))
    halt, handled = Halt(), []

    async def handle(records):
        handled.extend(records)

    router = KafkaRouter()
    subscribe(
        router, kafka_settings, Owner(), (topic,), unique("group"), handle,
        description="test", payload=list, sealer=sealer, halt=halt,
    )  # fmt: skip
    broker = make_broker(kafka_settings)
    broker.include_router(router)
    try:
        writer = Sealer(SqliteKeyStore(tmp_path / "writers.sqlite3"))
        await log.partitions(topic)  # created with the settings' partition count
        await log.append(topic, "halt", [writer.seal(TURN)])
        await broker.start()
        await asyncio.wait_for(halt.event.wait(), 60)
        assert isinstance(halt.error, MissingKeyError)
        # The wiring stops the broker once its task wakes; until then FastStream polls on. Give it time.
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert sealer.opened == 1, f"the halted batch was opened {sealer.opened} times"
        assert handled == []
    finally:
        await broker.stop()
        await log.close()
