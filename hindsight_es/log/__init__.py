"""The event log port and its adapters; ``open_log`` picks one from the settings."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from hindsight_es.config import Settings
from hindsight_es.log.port import Consumer, EventLog, Record, TopicPartition, partition_for, replay

if TYPE_CHECKING:
    from hindsight_es.log.sealed import Sealer


def open_log(settings: Settings) -> EventLog:
    """The Kafka log when a broker is configured, else the embedded log in the data directory; sealed
    (``log.sealed``) unless ``seal_content`` is off."""
    inner: EventLog
    if settings.broker:
        from hindsight_es.log.kafka import KafkaLog

        inner = KafkaLog(settings)
    else:
        from hindsight_es.log.embedded import EmbeddedLog

        inner = EmbeddedLog(
            settings.log_path, settings.partitions, max_bytes=settings.log_max_bytes, read_only=settings.read_only
        )
    sealer = sealer_for(settings)
    if sealer is None:
        return inner
    from hindsight_es.log.sealed import SealedLog

    return SealedLog(inner, sealer)


def sealed(log: EventLog, settings: Settings) -> EventLog:
    """``log`` reading and writing sealed content (``log.sealed``) as ``open_log``'s does; an adapter
    built directly (tests, tools) gets the same view. Idempotent."""
    from hindsight_es.log.sealed import SealedLog

    sealer = sealer_for(settings)
    if sealer is None or isinstance(log, SealedLog):
        return log
    return SealedLog(log, sealer)


def sealer_for(settings: Settings) -> Sealer | None:
    """A sealer over the key store of ``settings`` (None where content is not sealed): a SQLite file beside
    the stores (``Settings.keys_path``), or, for stores on object storage, objects under ``<stores
    uri>/keys`` (``log.object_keys``) that every machine shares. Each log gets its own and closes it with
    itself: nothing decodes a record with keys of another deployment. Sealers over one store stay in step
    through its erasure generation (``KeyStore.generation``)."""
    if not settings.seal_content:
        return None
    from hindsight_es.log.sealed import Sealer

    if settings.keys_path is None:
        from hindsight_es.log.object_keys import ObjectKeyStore
        from hindsight_es.objects import join, objects, s3_options

        assert settings.stores_uri is not None  # no keys_path: the stores are on object storage
        return Sealer(ObjectKeyStore(objects(join(settings.stores_uri, "keys"), s3_options(settings))))
    from hindsight_es.log.keys import SqliteKeyStore

    return Sealer(SqliteKeyStore(settings.keys_path.resolve(), read_only=settings.read_only))


@contextlib.asynccontextmanager
async def started_log(settings: Settings) -> AsyncIterator[EventLog]:
    """The configured log, started for the block and closed after it."""
    log = open_log(settings)
    await log.start()
    try:
        yield log
    finally:
        await log.close()


__all__ = [
    "Consumer",
    "EventLog",
    "Record",
    "TopicPartition",
    "open_log",
    "partition_for",
    "replay",
    "sealer_for",
    "started_log",
]
