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
import time
from collections.abc import Callable

from prometheus_client import Gauge

from hindsight_es import observe
from hindsight_es.config import ALL_TOPICS, TOPIC_DEAD_LETTER, Settings
from hindsight_es.log import EventLog
from hindsight_es.text import plural

log_ = logging.getLogger("hindsight.metrics")
LAG = Gauge("hindsight_consumer_lag", "Records the reader has yet to read", ["reader", "topic", "partition"])
POSITION = Gauge("hindsight_reader_position", "The next offset the reader reads", ["reader", "topic", "partition"])
END = Gauge("hindsight_log_end_offset", "The log's end offset", ["topic", "partition"])
DEAD_LETTERS = Gauge("hindsight_dead_letters", "Records in the dead-letter topic")


Ends = dict[str, dict[int, int]]  # topic -> partition -> the log's end offset


async def _ends(log: EventLog) -> Ends:
    return {topic: await log.end_offsets(topic) for topic in ALL_TOPICS}


def _lags(ends: Ends) -> list[tuple[tuple[str, str, int], int, int]]:
    """Each reader's (reader, topic, partition), its next offset and the records it has yet to read."""
    return [
        (key, position, max(0, ends.get(key[1], {}).get(key[2], 0) - position))
        for key, position in list(observe.CONSUMED.items())
    ]


async def sample(log: EventLog) -> None:
    ends = await _ends(log)
    for topic, partitions in ends.items():
        for partition, end in partitions.items():
            END.labels(topic=topic, partition=str(partition)).set(end)
    DEAD_LETTERS.set(sum(ends[TOPIC_DEAD_LETTER].values()))
    for (reader, topic, partition), position, lag in _lags(ends):
        labels = {"reader": reader, "topic": topic, "partition": str(partition)}
        POSITION.labels(**labels).set(position)
        LAG.labels(**labels).set(lag)


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


#: Records behind the log below which ``catching_up`` says nothing: a live service is always a batch behind.
CATCHING_UP_FROM = 100
PROGRESS_EVERY_S = 10.0


async def behind(log: EventLog) -> int:
    """Records the furthest-behind reader of this process has yet to read (the bank actor, or a projection)."""
    by_reader: dict[str, int] = {}
    for (reader, _, _), _, lag in _lags(await _ends(log)):
        by_reader[reader] = by_reader.get(reader, 0) + lag
    return max(by_reader.values(), default=0)


async def catching_up(log: EventLog, stop: asyncio.Event, say: Callable[[str], None], every_s: float = 1.0) -> None:
    """Tell the operator how a backlog goes down (``up`` after downtime, a restart after a crash): a line when
    a reader is ``CATCHING_UP_FROM`` records or more behind, one every ``PROGRESS_EVERY_S`` while it lasts,
    and one when it is read. Positions are known once a reader has read its first batch; until then the
    backlog is unknown and nothing is said. A failed sample (the log down) says nothing: health reports it."""
    started: float | None = None
    last_said = 0.0
    while not stop.is_set():
        with contextlib.suppress(Exception):
            left = await behind(log)
            now = time.monotonic()
            if started is None and left >= CATCHING_UP_FROM:
                started = last_said = now
                behind_now = plural(left, "record", grouped=True)
                say(f"catching up: {behind_now} behind the log (recall answers from what is read so far)")
            elif started is not None and left == 0:
                say(f"caught up in {now - started:.0f}s")
                started = None
            elif started is not None and now - last_said >= PROGRESS_EVERY_S:
                last_said = now
                say(f"catching up: {plural(left, 'record', grouped=True)} to go")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
