"""What the Kafka clients log, made readable: ``quiet_kafka_logs`` installs the filters (idempotent).

* aiokafka logs every failed connection attempt and request at ERROR: while a broker is down that is
  hundreds of lines a second per process. ``Summarized`` lets the first line of each kind (logger and
  message template) through, then one per ``SUMMARY_S`` carrying the count of those it held back.
* A commit refused because the group is rebalancing (a member joined or left) is normal: aiokafka's
  "OffsetCommit failed … will rejoin" is logged as a WARNING, not an ERROR (the batch is delivered
  again; ``streams.kafka`` says so in one line of its own).
* While a log starts (``held_back``), aiokafka's records from the start's tasks are held back: a failed
  start raises one ``LogUnavailableError`` naming the address and what answers there, which they would only
  repeat ("Unable connect to …"), so a command that cannot reach the broker says so in one line. A start
  that succeeds lets them through afterwards (a bootstrap server down beside one that answered).
* FastStream warns "Auto create topics is disabled" at each subscriber's start: the topics are created
  by ``KafkaLog.start`` with ``HINDSIGHT_PARTITIONS`` partitions before any subscriber starts, so the
  warning says nothing and is dropped; its task-callback lines go to DEBUG.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import pkgutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["SUMMARY_S", "Summarized", "held_back", "quiet_kafka_logs"]

SUMMARY_S = 10.0
_REBALANCING = ("IllegalGenerationError", "RebalanceInProgressError", "UnknownMemberIdError")
_DROPPED = ("Auto create topics is disabled",)
_DEBUG = ("callback for ",)
_installed = False


class Summarized(logging.Filter):
    """One record per kind (logger, message template) per ``every_s``; the one let through after a
    silence ends with how many were held back. Records below ``level`` pass untouched."""

    def __init__(self, every_s: float = SUMMARY_S, level: int = logging.WARNING) -> None:
        super().__init__()
        self.every_s, self.level = every_s, level
        self._lock = threading.Lock()
        self._kinds: dict[tuple[str, str], tuple[float, int]] = {}  # kind -> (last let through, held back)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self.level:
            return True
        kind, now = (record.name, str(record.msg)), time.monotonic()
        with self._lock:
            last, held = self._kinds.get(kind, (-float("inf"), 0))
            if now - last < self.every_s:
                self._kinds[kind] = (last, held + 1)
                return False
            self._kinds[kind] = (now, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last {now - last:.0f}s not logged)"
        return True


@dataclass
class _Held:
    """The records of one start. The tasks a start creates (aiokafka's background tasks among them) keep the
    context it ran in, so whether records are held is this flag, closed when the start ends."""

    open: bool = True
    records: list[logging.LogRecord] = field(default_factory=list)


_held: contextvars.ContextVar[_Held | None] = contextvars.ContextVar("kafka_start_held", default=None)


class _HeldBack(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        held = _held.get()
        if held is None or not held.open:
            return True
        held.records.append(record)
        return False


@contextlib.contextmanager
def held_back() -> Iterator[None]:
    """Hold back aiokafka's records from the tasks started in the block; dropped if the block raises (its
    error says what they said), logged after it if it does not. Only the block's own tasks: the records of
    consumers already running in the process pass as they come."""
    held = _Held()
    token = _held.set(held)
    failed = True
    try:
        yield
        failed = False
    finally:
        _held.reset(token)
        held.open = False
        for record in [] if failed else held.records:
            logging.getLogger(record.name).handle(record)


class _Rebalancing(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and any(name in record.getMessage() for name in _REBALANCING):
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


class _FastStream(logging.Filter):
    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger

    def filter(self, record: logging.LogRecord) -> bool:
        message = str(record.msg)
        if message.startswith(_DROPPED):
            return False
        return not message.startswith(_DEBUG) or self.logger.isEnabledFor(logging.DEBUG)


def quiet_kafka_logs(faststream_logger: logging.Logger | None = None) -> None:
    """Install the filters on every aiokafka module's logger (a logger's filters see only its own records)
    and on ``faststream_logger``, the logger FastStream's broker was given."""
    global _installed
    if faststream_logger is not None and not any(isinstance(f, _FastStream) for f in faststream_logger.filters):
        faststream_logger.addFilter(_FastStream(faststream_logger))
    if _installed:
        return
    _installed = True
    import aiokafka

    summarized, rebalancing, held = Summarized(), _Rebalancing(), _HeldBack()
    names = ["aiokafka", *(m.name for m in pkgutil.walk_packages(aiokafka.__path__, "aiokafka."))]
    for name in names:
        logger = logging.getLogger(name)
        logger.addFilter(held)  # before the summary: a record held back and dropped is not counted
        logger.addFilter(rebalancing)  # first: a lowered record is summarized as a warning
        logger.addFilter(summarized)
