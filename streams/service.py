"""One process running the bank actor and every projection over one log (the embedded default).

At scale the same handlers run as separate workers against Kafka; here they are asyncio tasks
that stop together when ``stop`` is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import threading
import weakref
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

from hindsight_es import observe
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.extraction import Extractor, RuleExtractor
from hindsight_es.extraction import warm as warm_rules
from hindsight_es.health import watch
from hindsight_es.log import EventLog, TopicPartition
from hindsight_es.log.lost import LogLostError
from hindsight_es.log.lost import check as check_log
from hindsight_es.log.sealed import deciding
from hindsight_es.stores import generations, location
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.location import snapshots
from hindsight_es.stores.shards import open_hot
from projections.replay import open_projections
from projections.runner import catch_up, run
from streams import metrics
from streams.bank_actor import GROUP, SNAPSHOTS, BankActor
from streams.extraction_actor import ExtractionActor, drain_extraction, make_extraction_actor, run_extraction
from streams.janitor import Janitor
from streams.supervisor import Task, recovered, supervised

log_ = logging.getLogger("hindsight.service")


async def run_projections(settings: Settings, log: EventLog, stop: asyncio.Event, *, poll_s: float = 1.0) -> None:
    """Tail the log with every projection, into the current generation's stores, until ``stop``.

    A rebuild switched while this runs (``replay rebuild --force``) catches the new stores up and then
    points readers at them; within ``poll_s`` the projections here stop, each after the batch in hand,
    and start again over the new stores, from those stores' own positions, so nothing is skipped and
    the old generation is no longer written.
    """
    while not stop.is_set():
        stores = location.current(settings)
        halt = asyncio.Event()
        projections = open_projections(
            stores, settings.max_text_chars, options=location.s3_options(settings), shard=location.shard(settings)
        )
        tasks = [asyncio.create_task(run(log, p, halt), name=f"projection-{p.name}") for p in projections]
        try:
            while not halt.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), poll_s)
                if stop.is_set() or location.current(settings) != stores:
                    halt.set()
        finally:
            halt.set()
            await asyncio.gather(*tasks)
        if not stop.is_set():
            now, root = location.current(settings), location.root(settings)
            log_.info(
                "the stores were switched from %s to %s (%s): projecting there now",
                generations.named(root, stores),
                generations.named(root, now),
                ", ".join(str(p) for p in now.values()),
            )


_POOLS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ThreadPoolExecutor] = weakref.WeakKeyDictionary()


def io_pool(settings: Settings) -> None:
    """Give the running loop a default pool of ``settings.io_threads`` (once per loop). asyncio's own has
    cpu + 4 threads (6 on 2 cores): a few projection writes to object storage or index builds held all
    of them for seconds, and the bank actor's next step (extraction and embedding, sealing) waited
    behind them."""
    loop = asyncio.get_running_loop()
    if loop not in _POOLS:
        _POOLS[loop] = ThreadPoolExecutor(max_workers=settings.io_threads, thread_name_prefix="hindsight-io")
        loop.set_default_executor(_POOLS[loop])


async def serve(
    settings: Settings,
    log: EventLog,
    stop: asyncio.Event,
    *,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    extra: Mapping[str, Task] | None = None,
) -> None:
    """Run the actor, the projections and ``extra`` tasks (e.g. the MCP HTTP server) until ``stop`` is set;
    a task failing on full storage or on a broker that does not answer is retried (``supervised``), any
    other crashed task stops the others.
    On the embedded log the actors run in this process's runners; on Kafka they are FastStream
    subscribers in their consumer groups (``streams.kafka``), owning the partitions the group assigns
    this process. Everything here decides or projects: it reads through ``deciding(log)``, so content
    sealed under another key store stops the service instead of being acted on as erased."""
    io_pool(settings)
    log = deciding(log)
    await check_keys(log)
    await check_positions(settings, log)
    embedder = embedder or make_embedder(settings.embedder)
    actor = BankActor(log, extractor or RuleExtractor(), embedder, settings, snapshots=snapshots(settings, SNAPSHOTS))
    extraction = make_extraction_actor(settings, log, embedder)
    jobs: dict[str, Task] = {}
    if settings.broker:  # actors and projections: FastStream subscribers, for the partitions assigned here
        # a broker gone while the consumers (re)join fails the wiring: ``supervised`` starts it again
        jobs["kafka"] = lambda stop: run_on_kafka(settings, log, actor, extraction, stop, joined=recovered)
    else:
        jobs["bank-actor"] = actor.run
        if extraction is not None:
            jobs["extraction-actor"] = lambda stop: run_extraction(extraction, stop)
        jobs["projections"] = lambda stop: run_projections(settings, log, stop)
    jobs.update(extra or {})
    if (reachable := getattr(log, "reachable", None)) is not None:  # the Kafka log: /healthz follows the broker
        jobs["broker-health"] = lambda stop: watch("log", reachable, stop)
    if settings.janitor_enabled:
        owns = actor.owns if settings.broker else None  # on Kafka: the banks of the partitions assigned here
        jobs["janitor"] = Janitor(log, settings, owns=owns).run
    # after a broker that did not answer, a retry starts once it answers again (``supervisor.backoff``)
    # a metrics port that is taken stops the start here, before any consumer joins a group
    listener = None if settings.metrics_port is None else await metrics.listen(settings.metrics_port)
    tasks = [asyncio.create_task(supervised(n, job, stop, answers=reachable), name=n) for n, job in jobs.items()]
    # A worker serves no reads, so nothing loads jieba's tagger before its first Chinese turn: it loads here,
    # beside the consumers' joining, on a daemon thread (a stop never waits for it). An embedded ``up`` loads
    # it as it warms its reads; short-lived services (``local``, stdio ``mcp``) would pay ~2 s of CPU for it.
    if settings.broker:
        threading.Thread(target=warm_rules, name="warm-rules", daemon=True).start()
    withdraw = metrics.register(lambda: actor.banks)  # hindsight_memories{bank, state} at /metrics
    if listener is not None:
        tasks.append(asyncio.create_task(metrics.serve_http(listener, stop), name="metrics"))
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if (exc := task.exception()) is not None:
                log_.error("%s failed: %r", task.get_name(), exc)
                raise exc
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        withdraw()
        if settings.broker and extraction is not None:  # the Kafka runs share it (the embedded runner closes its own)
            await extraction.llm.aclose()


KEY_CHECK_RECORDS = 20  # the newest records of each partition whose keys ``check_keys`` looks up


async def check_keys(log: EventLog) -> None:
    """Refuse to start (``MissingKeyError``) when the newest records of a partition of the turn or memory
    topic do not open with this process's key store: a worker given other stores than the log's writers
    stops before it joins a group, not on its first batch. A sample, so a cheap check; the refusal that
    holds for every record is the strict reading of ``deciding``."""
    if not getattr(log, "strict", False):  # not sealed: nothing to open
        return
    for topic in (TOPIC_TURNS, TOPIC_MEMORIES):
        for partition, end in (await log.end_offsets(topic)).items():
            if end:
                await log.read(topic, partition, max(0, end - KEY_CHECK_RECORDS), end, KEY_CHECK_RECORDS)


async def check_positions(settings: Settings, log: EventLog) -> None:
    """Refuse to start (``LogLostError``, logged) when the log ends before a position the current stores
    hold or a snapshot of the bank actor covers: the broker lost what this deployment wrote (``log.lost``).
    The positions are read first, so a worker writing meanwhile can only move the ends further."""
    stores, options = location.current(settings), location.s3_options(settings)
    partitions = await log.partitions(TOPIC_MEMORIES)

    def held() -> list[tuple[str, dict[TopicPartition, int]]]:
        hot, archive = open_hot(stores["lance"], options), ArchiveStore(stores["archive"], options)
        found = [(f"the {n} table's position (in {stores['lance']})", hot.positions(n)) for n in ("memories", "turns")]
        found.append((f"the archive's position (in {stores['archive']})", archive.positions()))
        kept = snapshots(settings, SNAPSHOTS)
        for p in range(partitions):
            if covered := max(kept.covered(p), default=0):
                found.append((f"the bank actor's snapshot {kept.where(p, covered)}", {(TOPIC_MEMORIES, p): covered}))
        return found

    try:
        for holder, positions in await asyncio.to_thread(held):
            await check_log(log, positions, holder)
    except LogLostError as exc:
        log_.error("refusing to start: %s", exc)
        raise


async def run_on_kafka(
    settings: Settings,
    log: EventLog,
    actor: BankActor,
    extraction: ExtractionActor | None,
    stop: asyncio.Event,
    *,
    joined: Callable[[str], None] | None = None,
) -> None:
    """The actors and the projections as FastStream subscribers (``streams.kafka``, ``streams.kafka_projections``)
    until ``stop``; then every partition is released (snapshotted) after the broker has stopped consuming.

    The subscribers start one after another, each joining its group (about a second each on Tansu); a
    broker that stops answering meanwhile fails a start (aiokafka's "Unable to bootstrap") and so this
    run, after which nothing of it is left consuming or owned: ``supervised`` starts it again, and every
    group is joined anew from its committed offsets. ``joined("kafka")`` is called once all have joined.
    Once started, a broker gone is the consumers' to wait out (they fetch and rejoin again by themselves)."""
    from streams.kafka import Halt, actor_router, extraction_router, make_broker, start
    from streams.kafka_projections import GROUPS, Follower, projection_routers

    broker, halt, sealer = make_broker(settings), Halt(), getattr(log, "sealer", None)
    broker.include_router(actor_router(actor, log, settings, halt))
    if extraction is not None:
        broker.include_router(extraction_router(extraction, settings, sealer, halt))
    follower = Follower(settings)  # a switched generation: one line, and the projections move at once
    for router in projection_routers(settings, sealer, halt, log, follower):
        broker.include_router(router)
    try:
        await actor.partition_count()
        await start(broker, log, settings)
        if joined is not None:
            joined("kafka")
        # until stopped, or until a subscriber met content this process must not act on (``Halt``)
        waits: list[asyncio.Task[Any]] = [asyncio.create_task(stop.wait()), asyncio.create_task(halt.event.wait())]
        waits.append(asyncio.create_task(follower.run(stop, halt)))
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
        if halt.error is not None:
            raise halt.error
        for waited in done:
            if (failure := waited.exception()) is not None:
                raise failure
    finally:
        with contextlib.suppress(Exception):
            await broker.stop()
        # Released here, not by a revocation (a stopped consumer calls no listener): a run started again
        # loads its partitions afresh, and no maintenance of this run's projections writes beside it.
        for owner in follower.owners:
            await owner.close()
        async with actor.lock:
            await actor.release(list(actor.owned))
        for key in [k for k in observe.CONSUMED if k[0] in {actor.group, *GROUPS}]:  # a new run reports its own
            del observe.CONSUMED[key]


async def catch_up_all(
    settings: Settings, log: EventLog, *, embedder: Embedder | None = None, extractor: Extractor | None = None
) -> int:
    """Drain the inputs through the actor and every projection once (no service running); returns records."""
    log = deciding(log)
    embedder = embedder or make_embedder(settings.embedder)
    actor = BankActor(log, extractor or RuleExtractor(), embedder, settings, snapshots=snapshots(settings, SNAPSHOTS))
    total = 0
    if (extraction := make_extraction_actor(settings, log, embedder)) is not None:
        total += await drain_extraction(extraction)  # its ExtractionCompleted are the actor's input
    await actor.load()
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    try:
        while records := await consumer.poll(settings.poll_max_records, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
            total += len(records)
        await actor.save_snapshots()
    finally:
        await consumer.close()
    for projection in open_projections(
        location.current(settings),
        settings.max_text_chars,
        options=location.s3_options(settings),
        shard=location.shard(settings),
    ):
        total += await catch_up(log, projection)
        await projection.maintain()
    return total


async def serve_when_free(
    settings: Settings,
    log: EventLog,
    stop: asyncio.Event,
    *,
    embedder: Embedder | None = None,
    start_log: Callable[[], Awaitable[None]] | None = None,
    retry_s: float = 5.0,
) -> None:
    """Run the pipeline whenever no other process holds the data directory's ``ServiceLock``, until ``stop``.

    For a process that mostly serves reads (``hindsight-es mcp``): it takes over when no ``up`` runs,
    and restarts the pipeline (after ``retry_s``) if it fails. ``start_log`` (idempotent) is awaited first.
    """
    while not stop.is_set():
        lock = ServiceLock(settings)
        if lock.acquire():
            attempt = asyncio.Event()  # serve() sets its stop event when it ends; keep ours for the caller
            relay = asyncio.create_task(_relay(stop, attempt))
            try:
                log_.info("no service on %s: running the pipeline in this process", settings.data_dir)
                if start_log is not None:
                    await start_log()
                await serve(settings, log, attempt, embedder=embedder)
            except Exception:
                log_.exception("the pipeline failed; retrying in %gs", retry_s)
            finally:
                relay.cancel()
                lock.release()
        else:
            lock.release()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), retry_s)


async def _relay(source: asyncio.Event, target: asyncio.Event) -> None:
    await source.wait()
    target.set()


class ServiceLock:
    """Advisory lock on the data directory: one process at a time runs the actor and projections.

    Its file (``locks/service.lock``) is created by the first ``acquire``, never by building the lock: a command
    that only asks whether it runs the pipeline (never, on Kafka) leaves no local state behind."""

    def __init__(self, settings: Settings) -> None:
        self._path = settings.data_dir / "locks" / "service.lock"
        self._file: IO[str] | None = None
        self.held = False

    def acquire(self) -> bool:
        if self._file is None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self._path, "a+")  # noqa: SIM115
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.held = True
        except BlockingIOError:
            self.held = False
        return self.held

    def release(self) -> None:
        if self._file is None:
            return
        if self.held:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self.held = False
        self._file.close()
        self._file = None
