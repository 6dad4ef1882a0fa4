"""One process running the bank actor and every projection over one log (the embedded default).

At scale the same handlers run as separate workers against Kafka; here they are asyncio tasks
that stop together when ``stop`` is set.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.extraction import Extractor, RuleExtractor
from hindsight_es.log import EventLog
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import LanceStore
from projections.archive import ArchiveProjection
from projections.runner import Projection, catch_up, run
from projections.vectors import VectorsProjection
from projections.working_memory import WorkingMemoryProjection
from streams.bank_actor import GROUP, BankActor

log_ = logging.getLogger("hindsight.service")


def make_projections(settings: Settings, lance: LanceStore | None = None) -> list[Projection]:
    lance = lance or LanceStore(settings.lance_path)
    return [VectorsProjection(lance), WorkingMemoryProjection(lance, settings.max_text_chars), ArchiveProjection(ArchiveStore(settings.archive_path))]


async def serve(settings: Settings, log: EventLog, stop: asyncio.Event, *, embedder: Embedder | None = None,
                extractor: Extractor | None = None) -> None:
    """Run the actor and the projections until ``stop`` is set; a crashed task stops the others."""
    actor = BankActor(log, extractor or RuleExtractor(), embedder or make_embedder(settings.embedder), settings)
    tasks = [asyncio.create_task(actor.run(stop), name="bank-actor")]
    tasks += [asyncio.create_task(run(log, p, stop), name=f"projection-{p.name}") for p in make_projections(settings)]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in done:
            if task.exception() is not None:
                log_.error("%s failed: %r", task.get_name(), task.exception())
                raise task.exception()  # type: ignore[misc]
    finally:
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)


async def catch_up_all(settings: Settings, log: EventLog, *, embedder: Embedder | None = None,
                       extractor: Extractor | None = None) -> int:
    """Drain the inputs through the actor and every projection once (no service running); returns records."""
    actor = BankActor(log, extractor or RuleExtractor(), embedder or make_embedder(settings.embedder), settings)
    await actor.load()
    consumer = await log.consumer(GROUP, [TOPIC_TURNS, TOPIC_COMMANDS])
    total = 0
    try:
        while records := await consumer.poll(settings.poll_max_records, 50):
            await actor.handle(records)
            await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
            total += len(records)
    finally:
        await consumer.close()
    for projection in make_projections(settings):
        total += await catch_up(log, projection)
        await projection.maintain()
    return total


class ServiceLock:
    """Advisory lock on the data directory: one process at a time runs the actor and projections."""

    def __init__(self, settings: Settings) -> None:
        path = settings.data_dir / "locks" / "service.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "a+")  # noqa: SIM115
        self.held = False

    def acquire(self) -> bool:
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            self.held = True
        except BlockingIOError:
            self.held = False
        return self.held

    def release(self) -> None:
        if self.held:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_UN)
            self.held = False
        self._file.close()
