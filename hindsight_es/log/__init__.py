"""The event log port and its adapters; ``open_log`` picks one from the settings."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from hindsight_es.config import Settings
from hindsight_es.log.port import Consumer, EventLog, Record, TopicPartition, partition_for, replay


def open_log(settings: Settings) -> EventLog:
    """The Kafka log when a broker is configured, else the embedded log in the data directory."""
    if settings.broker:
        from hindsight_es.log.kafka import KafkaLog

        return KafkaLog(settings)
    from hindsight_es.log.embedded import EmbeddedLog

    return EmbeddedLog(settings.log_path, settings.partitions, max_bytes=settings.log_max_bytes)


@contextlib.asynccontextmanager
async def started_log(settings: Settings) -> AsyncIterator[EventLog]:
    """The configured log, started for the block and closed after it."""
    log = open_log(settings)
    await log.start()
    try:
        yield log
    finally:
        await log.close()


__all__ = ["Consumer", "EventLog", "Record", "TopicPartition", "open_log", "partition_for", "replay", "started_log"]
