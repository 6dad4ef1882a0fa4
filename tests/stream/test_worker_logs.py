"""The Kafka wiring's failure paths as an operator reads them: a commit refused by a rebalance is one
WARNING and the batch is delivered again (sought back, nothing raised); a batch with content this process
cannot open is sought back and halts the process; aiokafka's flood while a broker is down is summarized."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest
from aiokafka.errors import CommitFailedError
from aiokafka.structs import ConsumerRecord
from aiokafka.structs import TopicPartition as TP
from faststream.kafka import KafkaRouter

from hindsight_es.config import Settings
from hindsight_es.log.kafka_logs import quiet_kafka_logs
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.log.sealed import MissingKeyError, Sealer
from streams.kafka import Halt, subscribe


class Owner:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()

    async def acquire(self, partitions) -> int:
        return 0

    async def release(self, partitions) -> None:
        return None


class Consumer:
    """The seam FastStream hands the handler: an aiokafka consumer's assignment, seek and commit."""

    def __init__(self, commit_error: BaseException | None = None) -> None:
        self.sought: list[tuple[TP, int]] = []
        self.committed: list[dict] = []
        self.commit_error = commit_error

    def assignment(self) -> set[TP]:
        return {TP("t", 0)}

    def seek(self, tp: TP, offset: int) -> None:
        self.sought.append((tp, offset))

    async def commit(self, offsets: dict) -> None:
        if self.commit_error is not None:
            raise self.commit_error
        self.committed.append(offsets)


def batch(consumer: Consumer, values: list[bytes]) -> SimpleNamespace:
    records = [ConsumerRecord("t", 0, 10 + i, 0, 0, b"bank", v, None, 4, len(v), ()) for i, v in enumerate(values)]
    return SimpleNamespace(consumer=consumer, records=records)


def handler(tmp_path, handle, halt=None, sealer=None):
    return subscribe(
        KafkaRouter(), Settings(data_dir=tmp_path), Owner(), ("t",), "hindsight.test", handle,
        description="test", payload=list, sealer=sealer, halt=halt,
    )  # fmt: skip


async def test_a_commit_refused_by_a_rebalance_is_one_warning_and_the_batch_comes_again(tmp_path, caplog):
    handled = []

    async def handle(records):
        handled.extend(records)

    consume = handler(tmp_path, handle)
    consumer = Consumer(CommitFailedError("rebalanced"))
    with caplog.at_level(logging.WARNING, logger="hindsight.kafka"):
        await consume(batch(consumer, [b"{}", b"{}"]))  # no exception: FastStream would log a traceback
    assert len(handled) == 2 and consumer.sought[-1] == (TP("t", 0), 10)
    (line,) = [r for r in caplog.records if r.name == "hindsight.kafka"]
    assert line.levelno == logging.WARNING and "delivered again" in line.getMessage() and not line.exc_info


async def test_a_batch_it_cannot_open_is_sought_back_uncommitted_and_halts(tmp_path):
    writer = Sealer(SqliteKeyStore(tmp_path / "writers.sqlite3"))
    turn = b'{"event_id":"00000000-0000-0000-0000-000000000001","type":"TurnRecorded","schema_version":1,'
    turn += b'"bank_id":"bank","session_id":"s1","turn_id":"t1","text":"I live in Oslo."}'
    sealed = writer.seal(turn)
    halt, handled = Halt(), []

    async def handle(records):
        handled.extend(records)

    consume = handler(tmp_path, handle, halt, Sealer(SqliteKeyStore(tmp_path / "other.sqlite3")))
    consumer = Consumer()
    with pytest.raises(MissingKeyError):
        await consume(batch(consumer, [sealed]))
    assert handled == [] and consumer.committed == [] and consumer.sought == [(TP("t", 0), 10)]
    assert halt.event.is_set() and isinstance(halt.error, MissingKeyError)


async def test_once_the_process_halted_no_subscriber_handles_or_commits_a_batch(tmp_path):
    from faststream.exceptions import StopConsume

    halt, handled = Halt(), []

    async def handle(records):
        handled.extend(records)

    consume = handler(tmp_path, handle, halt)
    halt(RuntimeError("another subscriber found the log lost"))  # until the broker is stopped, polls go on
    consumer = Consumer()
    with pytest.raises(StopConsume):  # FastStream stops this subscriber
        await consume(batch(consumer, [b"{}"]))
    assert handled == [] and consumer.committed == []


def test_a_broker_down_is_a_few_lines_not_a_flood(caplog):
    quiet_kafka_logs()
    client = logging.getLogger("aiokafka")
    with caplog.at_level(logging.INFO):
        for _ in range(300):
            client.error("Unable connect to node with id %s: %s", 1, "refused")
        logging.getLogger("aiokafka.consumer.group_coordinator").error(
            "OffsetCommit failed for group %s due to group error (%s), will rejoin", "g", "IllegalGenerationError"
        )
    lines = [(r.name, r.levelno) for r in caplog.records]
    assert lines == [("aiokafka", logging.ERROR), ("aiokafka.consumer.group_coordinator", logging.WARNING)]
