"""The lag sampler of ``up`` and ``worker``: every ``Settings.lag_sample_s``, how far each reader is behind the log.

    hindsight_consumer_lag{reader, topic, partition}     log end offset minus the reader's next offset
    hindsight_reader_position{reader, topic, partition}  the reader's next offset (the bank actor's group,
                                                          each projection)
    hindsight_log_end_offset{topic, partition}
    hindsight_dead_letters                               records in the dead-letter topic

Readers report what they read to ``hindsight_es.observe.CONSUMED`` (the bank actor and the projections of
this process); the log's ends are read here, off the scrape.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from prometheus_client import Gauge

from hindsight_es import observe
from hindsight_es.config import ALL_TOPICS, TOPIC_DEAD_LETTER, Settings
from hindsight_es.log import EventLog

log_ = logging.getLogger("hindsight.metrics")
LAG = Gauge("hindsight_consumer_lag", "Records the reader has yet to read", ["reader", "topic", "partition"])
POSITION = Gauge("hindsight_reader_position", "The next offset the reader reads", ["reader", "topic", "partition"])
END = Gauge("hindsight_log_end_offset", "The log's end offset", ["topic", "partition"])
DEAD_LETTERS = Gauge("hindsight_dead_letters", "Records in the dead-letter topic")


async def sample(log: EventLog) -> None:
    ends = {topic: await log.end_offsets(topic) for topic in ALL_TOPICS}
    for topic, partitions in ends.items():
        for partition, end in partitions.items():
            END.labels(topic=topic, partition=str(partition)).set(end)
    DEAD_LETTERS.set(sum(ends[TOPIC_DEAD_LETTER].values()))
    for (reader, topic, partition), position in list(observe.CONSUMED.items()):
        labels = {"reader": reader, "topic": topic, "partition": str(partition)}
        POSITION.labels(**labels).set(position)
        LAG.labels(**labels).set(max(0, ends.get(topic, {}).get(partition, 0) - position))


async def run(settings: Settings, log: EventLog, stop: asyncio.Event) -> None:
    """Sample until ``stop``; a failed sample (the log down) is logged and tried again next time. A position
    that left ``observe.CONSUMED`` (a partition revoked from this process: ``streams.kafka.Rebalance`` forgets
    it) loses its samples: its lag is the new owner's to report, and a stale position would show a lag that
    grows for ever."""
    shown: set[tuple[str, str, int]] = set()
    while not stop.is_set():
        try:
            await sample(log)
            now = set(observe.CONSUMED)
            for reader, topic, partition in shown - now:
                for gauge in (LAG, POSITION):
                    with contextlib.suppress(KeyError):
                        gauge.remove(reader, topic, str(partition))
            shown = now
        except Exception as exc:  # the metrics must never stop the service
            log_.warning("lag sample failed: %s", exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), settings.lag_sample_s)
