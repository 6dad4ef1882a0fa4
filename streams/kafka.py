"""The actors on Kafka: FastStream subscribers in consumer groups, one router per actor, over the same
handlers the embedded runner calls (``BankActor.acquire / release / handle``).

Each subscriber consumes in batches with manual commits and a rebalance listener: an assigned
partition is acquired (its state loaded: snapshot + memory tail) before anything of it is decided, a
revoked one is released (snapshotted, dropped) after the batch in hand is decided and committed (the
actor's ``lock``). Consumer-group rebalancing in aiokafka is eager, so revoked partitions stop before
the new assignment. The range assignor gives every member the same partition numbers of each topic
it consumes, so a bank's turns and commands always go to the same member.

A member whose session expired while it still runs (a "zombie") is not fenced: Kafka fences only
transactional producers, which the brokers used here (Tansu) do not support. It can decide a bank
its successor also decides. Decisions are functions of the input and the state, and their ids derive
from the input, so both write the same events; the actor notices the foreign append on its partition
and reloads it. Memory events are published through FastStream, one record batch per group of whole
inputs, so a crash never leaves half of an input's events in the log.

Records are opened strictly (``Sealer.open(strict=True)``): a record sealed under a key store that is
not this process's raises ``MissingKeyError`` before anything of its batch is handled, and a log that
ends before what the stores or the actor already hold raises ``LogLostError`` (``log.lost``) before
anything is applied or appended. Either way the batch is sought back, uncommitted, and the subscriber's
``Halt`` stops the whole process (``run_on_kafka``); from then on no subscriber of the process handles
a batch or loads a partition, although FastStream would poll again until the broker is stopped. A batch
cut short by the broker going away (``health.unreachable``) is sought back too and delivered again once
it answers; the process waits for it (``streams.supervisor.supervised``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from aiokafka import ConsumerRebalanceListener
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.errors import CommitFailedError
from aiokafka.structs import TopicPartition as KafkaTopicPartition
from faststream import AckPolicy
from faststream.exceptions import StopConsume
from faststream.kafka import KafkaBroker, KafkaResponse, KafkaRouter

from hindsight_es import observe
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.errors import LogUnavailableError
from hindsight_es.events import CommandEvent, MemoryEvent, TurnRecorded
from hindsight_es.health import unreachable
from hindsight_es.log import EventLog, Record, partition_for
from hindsight_es.log.kafka_consumer import record_of
from hindsight_es.log.kafka_logs import quiet_kafka_logs
from hindsight_es.log.lost import LogLostError
from hindsight_es.log.sealed import MissingKeyError, Sealer

log_ = logging.getLogger("hindsight.kafka")
REBALANCE_TIMEOUT_MS = 60_000
BATCH_BYTES = 768 << 10  # at most this much per record batch (the broker takes 1 MiB per request)
HALTING = (MissingKeyError, LogLostError)  # failures after which no subscriber of the process may go on


class Owner(Protocol):
    """What a partition-owning handler offers its wiring (``BankActor``, ``ExtractionActor``, the projections)."""

    lock: Any  # asyncio.Lock

    async def acquire(self, partitions: Iterable[int]) -> int: ...

    async def release(self, partitions: Iterable[int]) -> None: ...


class Halt:
    """The first failure after which no subscriber of a broker may go on (``HALTING``): set by a
    subscriber, awaited by the wiring, which stops the broker and raises it. Without one, a subscriber's
    exception only goes to FastStream, which logs it and polls the same batch again, for ever; and until
    the wiring has stopped the broker, FastStream polls again too, so every subscriber checks ``halted``
    before it touches a batch."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.event = asyncio.Event()

    @property
    def halted(self) -> bool:
        return self.error is not None

    def __call__(self, error: BaseException) -> None:
        if self.error is None:
            self.error = error
            log_.error("stopping: %s", error)
        self.event.set()


class Rebalance(ConsumerRebalanceListener):
    """Acquire assigned partitions, release revoked ones; both under the owner's lock. A partition that
    cannot be loaded because its keys are not this process's, or because the log lost what it holds,
    halts (aiokafka would log the exception and go on; the next batch of that partition would load it
    again and fail the same way)."""

    def __init__(self, owner: Owner, topics: Sequence[str], halt: Halt | None = None, reader: str = "") -> None:
        self.owner, self.topics, self.halt, self.reader = owner, set(topics), halt, reader

    def _partitions(self, tps: Iterable[KafkaTopicPartition]) -> set[int]:
        return {tp.partition for tp in tps if tp.topic in self.topics}

    async def on_partitions_revoked(self, revoked: set[KafkaTopicPartition]) -> None:
        async with self.owner.lock:
            await self.owner.release(self._partitions(revoked))
        for tp in revoked:  # its position is the next owner's to report (the lag sampler)
            observe.CONSUMED.pop((self.reader, tp.topic, tp.partition), None)

    async def on_partitions_assigned(self, assigned: set[KafkaTopicPartition]) -> None:
        if self.halt is not None and self.halt.halted:
            return  # stopping: nothing is loaded any more
        async with self.owner.lock:
            try:
                await self.owner.acquire(self._partitions(assigned))
            except HALTING as exc:
                if self.halt is None:
                    raise
                self.halt(exc)


def make_broker(settings: Settings) -> KafkaBroker:
    """A FastStream broker on ``settings.broker``: acks from every replica, no idempotence (Tansu has none)."""
    quiet_kafka_logs(log_)
    return KafkaBroker(
        settings.broker or "",
        acks="all",
        enable_idempotence=False,
        linger_ms=5,
        max_batch_size=1 << 20,
        request_timeout_ms=max(1000, int(settings.request_timeout_s * 1000)),
        allow_auto_create_topics=False,  # KafkaLog.start creates them with settings.partitions
        apply_types=False,  # handlers take the raw records; the annotations only document the payloads
        logger=log_,
        log_level=logging.DEBUG,  # FastStream's "Received" / "Processed" of every batch
        description="hindsight: turns and commands in, memory events out, all keyed by bank_id",
    )


async def start(broker: KafkaBroker, log: EventLog, settings: Settings) -> None:
    """Start ``broker``: its producer, then each subscriber, each joining its group (one after another),
    once the broker answers a metadata request. During an outage a retry stops at that probe, raising
    ``LogUnavailableError``, before FastStream makes a client (one whose start fails is left unclosed)."""
    if (reachable := getattr(log, "reachable", None)) is not None:
        try:
            async with asyncio.timeout(settings.request_timeout_s):
                await reachable()
        except TimeoutError as exc:  # a frozen broker holds the request open
            raise LogUnavailableError(
                f"the Kafka broker at {settings.broker!r} did not answer within {settings.request_timeout_s:g}s"
            ) from exc
    await broker.start()


class Polled:
    """A polled batch as it came, with the consumer that polled it: what the decoder hands the handler
    (FastStream's default decoder would parse every record's JSON)."""

    __slots__ = ("consumer", "records")

    def __init__(self, message: Any) -> None:
        self.consumer = message.consumer
        self.records = message.raw_message


class Publisher:
    """``Publish`` over FastStream publishers: values under one key go to the key's partition, a key's
    values in one record batch where they fit (``BATCH_BYTES``), returning their offsets; ``many`` puts
    several keys of one partition in one batch."""

    def __init__(self, router: KafkaRouter, log: EventLog, topics: dict[str, tuple[Any, str]]) -> None:
        self.log = log
        self.sealer: Sealer | None = getattr(log, "sealer", None)  # a SealedLog's: what it appends is sealed
        self.publishers = {
            t: router.publisher(t, batch=True, schema=schema, description=what) for t, (schema, what) in topics.items()
        }

    async def __call__(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        return (await self.many(topic, [(key, values)]))[0]

    async def many(self, topic: str, items: Sequence[tuple[str, Sequence[bytes]]]) -> list[list[int]]:
        """Each (key, values) of ``items``, keys of one partition, in order: one record batch for as many
        whole items as ``BATCH_BYTES`` holds (one produce request, where one per key cost a round trip
        each), each record under its own key; returns each item's offsets."""
        if not any(values for _, values in items):
            return [[] for _ in items]
        if self.sealer is not None:  # its keys may be object-store requests: not on the event loop
            sealer = self.sealer
            items = await asyncio.to_thread(lambda: [(k, sealer.seal_all(v)) for k, v in items])
        n = await self.log.partitions(topic)
        partitions = {partition_for(key, n) for key, values in items if values}
        if len(partitions) != 1:
            raise ValueError(f"keys of partitions {sorted(partitions)} in one append to {topic}")
        partition = partitions.pop()
        out: list[list[int]] = [[] for _ in items]
        for chunk in _chunks([(key.encode("utf-8"), list(values)) for key, values in items]):
            bodies = [KafkaResponse(value, key=key) for _, key, value in chunk]
            meta = await self.publishers[topic].publish(*bodies, partition=partition)
            for offset, (i, _, _) in enumerate(chunk, start=meta.offset):
                out[i].append(offset)
        return out


Keyed = tuple[int, bytes, bytes]  # (item, key, value)


def _chunks(items: list[tuple[bytes, list[bytes]]]) -> list[list[Keyed]]:
    """Record batches of at most ``BATCH_BYTES``, cut between items (an item larger than a batch alone
    is cut where it must be)."""
    out: list[list[Keyed]] = [[]]
    size = 0
    for i, (key, values) in enumerate(items):
        whole = sum(len(v) + 64 for v in values)
        if out[-1] and size + whole > BATCH_BYTES:
            out.append([])
            size = 0
        for value in values:
            if out[-1] and size + len(value) > BATCH_BYTES:
                out.append([])
                size = 0
            out[-1].append((i, key, value))
            size += len(value) + 64
    return out


Handle = Callable[[list[Record]], Awaitable[Any]]


def subscribe(
    router: KafkaRouter,
    settings: Settings,
    owner: Owner,
    topics: Sequence[str],
    group: str,
    handle: Handle,
    *,
    after: Callable[[], Awaitable[Any]] | None = None,
    description: str,
    payload: Any,
    sealer: Sealer | None,
    batch_timeout_ms: int | None = None,
    halt: Halt | None = None,
    reader: str = "",
) -> Callable[[Polled], Awaitable[None]]:
    """A batch subscriber of ``group`` on ``topics``: each batch is handled for the partitions this member
    owns now, under ``owner.lock``, then committed; a failed batch is delivered again (seek back). A
    handler that returns positions (topic-partition -> next offset) is committed at those, and rewound
    to them where they fall short of the batch. ``sealer``: the process's (its log's), shared by every
    subscriber, so a key one of them read or created is not read again by the others. ``halt``: told
    of a ``HALTING`` failure (after the batch is sought back), so the process stops; once it is, no batch
    is handled any more (``StopConsume``: FastStream stops polling for this subscriber). ``reader``: the name
    its positions are reported under (``observe.consumed``), forgotten for a partition revoked. Returns
    the batch handler it registered."""
    listener = Rebalance(owner, topics, halt, reader)

    async def consume(batch: Polled) -> None:
        if halt is not None and halt.halted:
            raise StopConsume  # FastStream stops this subscriber; nothing of the batch is handled or committed
        consumer = batch.consumer
        async with owner.lock:
            mine = {tp.partition for tp in consumer.assignment() if tp.topic in listener.topics}
            records = [record_of(r) for r in batch.records if r.partition in mine]
            if not records:
                return
            try:
                if sealer is not None:  # keys not read yet are object-store requests: off the event loop
                    records = await asyncio.to_thread(lambda: sealer.open(records, strict=True))
                done = await handle(records)
                offsets: dict[KafkaTopicPartition, int] = {}
                for r in records:
                    offsets[KafkaTopicPartition(r.topic, r.partition)] = r.offset + 1
                if isinstance(done, dict):  # the handler's own positions: rewind where it stopped short
                    for (topic, partition), position in done.items():
                        tp = KafkaTopicPartition(topic, partition)
                        if position < offsets.get(tp, position):
                            consumer.seek(tp, position)
                        offsets[tp] = position
                await consumer.commit(offsets)
            except BaseException as exc:
                for r in reversed(records):  # the earliest offset of each partition last
                    with contextlib.suppress(Exception):
                        consumer.seek(KafkaTopicPartition(r.topic, r.partition), r.offset)
                if halt is not None and isinstance(exc, HALTING):
                    halt(exc)
                if isinstance(exc, CommitFailedError):  # a rebalance: normal, not worth a traceback
                    log_.warning(
                        "%s: the group rebalanced before this batch of %d records was committed; it is "
                        "delivered again (to this member or the partitions' new owner) and decided once",
                        group,
                        len(records),
                    )
                    return
                if unreachable(exc):  # the broker went away mid-batch: one line, not FastStream's traceback
                    log_.warning(
                        "%s: the broker stopped answering while a batch of %d records was handled (%s); it is "
                        "delivered again once the broker answers, and decided once",
                        group,
                        len(records),
                        exc,
                    )
                    return
                raise
            if after is not None:
                await after()

    consume.__doc__ = description
    consume.__name__ = consume.__qualname__ = group.removeprefix("hindsight.").replace("-", "_").replace(".", "_")
    consume.__annotations__["batch"] = payload  # what the AsyncAPI document shows as the payload
    router.subscriber(
        *topics,
        group_id=group,
        batch=True,
        max_records=settings.poll_max_records,
        batch_timeout_ms=batch_timeout_ms or settings.poll_timeout_ms,
        fetch_max_wait_ms=settings.kafka_fetch_max_wait_ms,
        listener=listener,
        ack_policy=AckPolicy.MANUAL,
        auto_offset_reset="earliest",
        session_timeout_ms=settings.kafka_session_timeout_ms,
        heartbeat_interval_ms=settings.kafka_heartbeat_interval_ms,
        # how long a rebalance waits for members to rejoin: a member finishing its batch (and its
        # snapshot) in the revocation callback must not be dropped from the group, or it becomes a
        # zombie owner while its partitions move on
        rebalance_timeout_ms=max(REBALANCE_TIMEOUT_MS, settings.kafka_session_timeout_ms),
        partition_assignment_strategy=(RangePartitionAssignor,),
        decoder=_raw_decoder,
        description=description,
    )(consume)
    return consume


async def _raw_decoder(message: Any) -> Polled:
    return Polled(message)


def actor_router(actor: Any, log: EventLog, settings: Settings, halt: Halt | None = None) -> KafkaRouter:
    """The bank actor: turns and commands in (group ``hindsight.bank-actor``), memory events and dead letters out."""
    router = KafkaRouter()
    actor.publish = Publisher(
        router,
        log,
        {
            TOPIC_MEMORIES: (MemoryEvent, "memory events, written only by the bank actor that owns the bank"),
            TOPIC_DEAD_LETTER: (dict, "records that could not be decided on, with the reason"),
            TOPIC_TURNS: (TurnRecorded, "turns re-keyed under their bank (a foreign producer's)"),
            TOPIC_COMMANDS: (CommandEvent, "commands re-keyed under their bank"),
        },
    )
    subscribe(
        router,
        settings,
        actor,
        (TOPIC_TURNS, TOPIC_COMMANDS),
        actor.group,
        actor.handle,
        after=actor.save_snapshots,
        description="The bank actor decides each bank's turns and commands in log order.",
        payload=list[TurnRecorded | CommandEvent],
        sealer=actor.publish.sealer,
        halt=halt,
        reader=actor.group,
    )
    return router


def extraction_router(actor: Any, settings: Settings, sealer: Sealer | None, halt: Halt | None = None) -> KafkaRouter:
    """The extraction actor (LLM): turns in (group ``hindsight.extraction-actor``)."""
    router = KafkaRouter()
    subscribe(
        router,
        settings,
        actor,
        (TOPIC_TURNS,),
        actor.group,
        actor.handle,
        description="The extraction actor extracts each bank's turns with the LLM (ExtractionCompleted out).",
        payload=list[TurnRecorded],
        sealer=sealer,
        halt=halt,
    )
    return router
