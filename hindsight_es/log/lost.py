"""A log that lost records: a partition ends before a position this deployment already reached.

Offsets only grow. A projection's stored position, a snapshot's cover and the bank actor's last append
are each at most the end of their partition, for ever, so a partition that ends below one of them has
lost records: a broker on in-memory storage restarted (Tansu's ``memory://``), topics deleted and
created again, a broker restored from an older backup, or ``HINDSIGHT_BROKER`` naming another cluster.
Going on would mix two logs: new records at offsets the stores already hold are skipped as applied, and
the bank actor decides on a state the log no longer has. So whoever finds it raises ``LogLostError``
before it applies, appends or commits anything: a worker stops (``streams.kafka.Halt``), a start is
refused (``streams.service.check_positions``), and the stores and snapshots stay as they were.
"""

from __future__ import annotations

from collections.abc import Mapping

from hindsight_es.errors import LogError
from hindsight_es.log.port import EventLog
from hindsight_es.types import TopicPartition

__all__ = ["LogLostError", "check", "past_end"]

GUIDE = "docs/operations.md, 'When the log was lost'"


class LogLostError(LogError):
    """``topic[partition]`` ends at ``end``, below ``position``, which ``holder`` already reached."""

    def __init__(self, topic: str, partition: int, position: int, end: int, holder: str, where: str = "") -> None:
        self.topic, self.partition, self.position, self.end, self.holder = topic, partition, position, end, holder
        on = f" on {where}" if where else ""
        super().__init__(
            f"the log lost records: {topic}[{partition}] ends at offset {end}{on}, but {holder} has applied it up "
            f"to offset {position}. The log this deployment wrote is gone (a broker on in-memory storage "
            "restarted, the topics were deleted and created again, the broker was restored from an older "
            "backup, or HINDSIGHT_BROKER names another cluster). Nothing more was applied or committed: restore "
            "the broker's data and start again, or start on new stores and import the banks from an export "
            f"({GUIDE})"
        )


def past_end(positions: Mapping[TopicPartition, int], ends: Mapping[TopicPartition, int]) -> TopicPartition | None:
    """The first topic-partition (in order) whose position lies past its end, or None."""
    return next((tp for tp in sorted(positions) if positions[tp] > ends.get(tp, 0)), None)


async def check(log: EventLog, positions: Mapping[TopicPartition, int], holder: str) -> None:
    """Raise ``LogLostError`` when the log ends before one of ``positions`` (read them before calling:
    the ends read here are then at least what they were when the positions were written)."""
    ends: dict[TopicPartition, int] = {}
    for topic in sorted({t for t, _ in positions}):
        ends.update({(topic, p): end for p, end in (await log.end_offsets(topic)).items()})
    if (tp := past_end(positions, ends)) is not None:
        raise LogLostError(tp[0], tp[1], positions[tp], ends.get(tp, 0), holder, where_of(log))


def where_of(log: object) -> str:
    """The log's address for a message: the broker (``KafkaLog.servers``) or the embedded log's path."""
    servers = getattr(log, "servers", None)
    if servers:
        return f"the broker at {servers!r}"
    path = getattr(log, "path", None)
    return f"the log at {path}" if path else ""
