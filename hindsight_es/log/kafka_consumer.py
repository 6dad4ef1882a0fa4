"""A member of a Kafka consumer group for ``KafkaLog.consumer``: manual commits, at-least-once.

Tansu numbers a group's first generation 0, for which aiokafka sends no LeaveGroup on close: ``close``
sends it itself, or the next member's join would wait for this one's session to expire.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager

from aiokafka import AIOKafkaConsumer, ConsumerRecord
from aiokafka.errors import CommitFailedError, IllegalStateError
from aiokafka.protocol.group import LeaveGroupRequest
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from hindsight_es.errors import LogError
from hindsight_es.log.port import Record, TopicPartition

logger = logging.getLogger("hindsight_es.log.kafka")


def record_of(r: ConsumerRecord[bytes, bytes]) -> Record:
    key = r.key.decode("utf-8") if r.key is not None else None
    return Record(r.topic, r.partition, r.offset, key, r.value if r.value is not None else b"", r.timestamp)


class KafkaConsumer:
    """A member of a Kafka consumer group with manual commits (at-least-once)."""

    def __init__(
        self,
        group: str,
        topics: list[str],
        consumer: AIOKafkaConsumer,
        *,
        errors: Callable[[str], AbstractContextManager[None]],
        timeout_s: float,
        closed: Callable[[KafkaConsumer], None],
    ) -> None:
        self._errors, self._timeout_s, self._closed_by = errors, timeout_s, closed
        self.group = group
        self.topics = topics
        self._consumer = consumer
        self._closed = False

    async def poll(self, max_records: int = 500, timeout_ms: int = 200) -> list[Record]:
        if self._closed:
            raise LogError(f"consumer of group {self.group!r} is closed")
        with self._errors(f"poll for group {self.group!r}"):
            batch = await self._consumer.getmany(timeout_ms=timeout_ms, max_records=max_records)
        return [record_of(r) for records in batch.values() for r in records]

    async def commit(self, offsets: dict[TopicPartition, int]) -> None:
        if not offsets:
            return
        try:
            with self._errors(f"commit for group {self.group!r}"):
                async with asyncio.timeout(self._timeout_s):  # aiokafka retries forever otherwise
                    await self._consumer.commit({KafkaTopicPartition(t, p): o for (t, p), o in offsets.items()})
        except LogError as exc:
            if isinstance(exc.__cause__, CommitFailedError | IllegalStateError):
                raise LogError(
                    f"commit for group {self.group!r} refused: the partitions were reassigned"
                    f" (records will be delivered again): {exc.__cause__!r}"
                ) from exc.__cause__
            raise

    async def committed(self, topic: str, partition: int) -> int | None:
        with self._errors(f"committed offset of group {self.group!r}"):
            async with asyncio.timeout(self._timeout_s):
                offset: int | None = await self._consumer.committed(KafkaTopicPartition(topic, partition))  # untyped
                return offset

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._closed_by(self)
        coordinator = getattr(self._consumer, "_coordinator", None)
        # aiokafka leaves the group only when generation > 0, but Tansu numbers the first generation 0.
        if coordinator is not None and getattr(coordinator, "generation", -1) == 0 and coordinator.member_id:
            try:
                async with asyncio.timeout(2):
                    await coordinator._send_req(LeaveGroupRequest(coordinator.group_id, coordinator.member_id))
            except Exception:  # best effort, as in aiokafka: the session times out otherwise
                logger.debug("LeaveGroup for %r failed", self.group, exc_info=True)
        await stop_consumer(self._consumer)


async def stop_consumer(consumer: AIOKafkaConsumer) -> None:
    """``consumer.stop()``, made safe for a broker that is already gone.

    aiokafka 0.14's fetcher cancels its pending fetch tasks on close and awaits them without
    suppressing their CancelledError, which then escapes ``stop()`` before the connections are closed.
    """
    try:
        await consumer.stop()
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise  # a real cancellation of the caller
        fetcher = getattr(consumer, "_fetcher", None)
        pending = [t for t in getattr(fetcher, "_pending_tasks", ()) if not t.done()]
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        with contextlib.suppress(Exception):
            await consumer._client.close()
    except Exception:
        logger.debug("error while closing a Kafka consumer", exc_info=True)
