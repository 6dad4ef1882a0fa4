"""The process's health: components that cannot do their work right now, and why.

A component (the log, a projection, an actor) ``degrade``s itself with a reason when a write fails
for a cause that waiting can cure (a full disk) and ``recover``s on its next success; ``/healthz``
reports the state. One registry per process, like the metrics registry. ``watch`` degrades a component
while a probe of what it depends on (the Kafka broker) keeps failing. ``heals`` tells a failure that
waiting cures (full storage, a broker that does not answer) from one that stops the service. A task
run under ``reporting`` (a supervisor's) tells it that it works with ``progressed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass

from hindsight_es.errors import LogFullError, LogUnavailableError

__all__ = [
    "HEALTH",
    "Health",
    "Problem",
    "heals",
    "progressed",
    "reporting",
    "storage_full",
    "unreachable",
    "watch",
]
log_ = logging.getLogger("hindsight.health")

_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_FULL_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")


@dataclass(frozen=True, slots=True)
class Problem:
    component: str
    reason: str
    since: float  # time.time() of the first failure in a row
    failures: int


class Health:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._problems: dict[str, Problem] = {}

    def degrade(self, component: str, reason: str) -> None:
        with self._lock:
            before = self._problems.get(component)
            since, failures = (before.since, before.failures) if before else (time.time(), 0)
            self._problems[component] = Problem(component, reason, since, failures + 1)

    def recover(self, component: str) -> None:
        if component in self._problems:
            with self._lock:
                self._problems.pop(component, None)

    def degraded(self, component: str) -> bool:
        with self._lock:
            return component in self._problems

    def problems(self) -> list[Problem]:
        with self._lock:
            return sorted(self._problems.values(), key=lambda p: p.component)

    @property
    def ok(self) -> bool:
        return not self._problems

    def report(self) -> tuple[int, str]:
        """What ``/healthz`` answers: 200 ``ok``, or 503 ``degraded`` and one line per component."""
        problems = self.problems()
        if not problems:
            return 200, "ok\n"
        now = time.time()
        lines = [f"{p.component}: {p.reason} (failing for {now - p.since:.0f}s, {p.failures}x)\n" for p in problems]
        return 503, "degraded\n" + "".join(lines)


HEALTH = Health()
# Whom ``progressed`` tells: set for a supervised task, and copied into every task it creates (asyncio
# copies the context when a task is created), so the loop deep inside it reports to its supervisor.
_PROGRESS: ContextVar[Callable[[], None] | None] = ContextVar("hindsight_progress", default=None)


@contextlib.contextmanager
def reporting(progress: Callable[[], None]) -> Iterator[None]:
    """Within the block, and in the tasks it creates, ``progressed()`` calls ``progress``."""
    token = _PROGRESS.set(progress)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def progressed() -> None:
    """The calling task did its work: a batch handled and committed, or a pass that found nothing left to
    do. A task retried after a failure is healthy again from here (``streams.supervisor``), not only when
    it ends; nothing happens outside ``reporting``. Called on every pass, so it must stay cheap."""
    if (progress := _PROGRESS.get()) is not None:
        progress()


async def watch(
    component: str,
    probe: Callable[[], Awaitable[object]],
    stop: asyncio.Event,
    *,
    every_s: float = 1.0,
    timeout_s: float = 2.0,
    grace_s: float = 3.0,
) -> None:
    """Until ``stop``: ``probe`` every ``every_s``; once it has failed (raised, or no answer within
    ``timeout_s``) for ``grace_s`` in a row, ``component`` is degraded with the reason; its first success
    recovers it. A frozen broker answers nothing: the time-out, not an error, is what shows it."""
    failing_since: float | None = None
    while not stop.is_set():
        try:
            async with asyncio.timeout(timeout_s):
                await probe()
        except Exception as exc:
            now = time.monotonic()
            failing_since = now if failing_since is None else failing_since
            if now - failing_since >= grace_s:
                reason = f"no answer within {timeout_s:g}s" if isinstance(exc, TimeoutError) else str(exc)
                if not HEALTH.degraded(component):  # said once, when it starts
                    log_.warning("%s degraded: %s", component, reason)
                HEALTH.degrade(component, reason)
        else:
            if failing_since is not None and HEALTH.degraded(component):
                log_.warning("%s recovered after %.0fs", component, time.monotonic() - failing_since)
            failing_since = None
            HEALTH.recover(component)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
    HEALTH.recover(component)


def storage_full(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) is a full disk or quota: a failure that waiting can cure."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, LogFullError):
            return True
        if isinstance(current, OSError) and current.errno in _FULL_ERRNOS:
            return True
        if any(word in str(current).lower() for word in _FULL_WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it was raised from) is the broker not answering: ``LogUnavailableError``, or a
    Kafka client error the client itself counts as retriable (a refused or broken connection, a request
    timed out, a node or group coordinator not ready), or its time-out. Only explicit causes are
    followed: an error raised while another was being handled is not that other error."""
    # aiokafka is imported only by the Kafka log (0.05-0.1 s of every start otherwise): until it is, no
    # error of its can have been raised
    kafka = sys.modules.get("aiokafka.errors")
    current: BaseException | None = exc
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, LogUnavailableError):
            return True
        if kafka is not None and isinstance(current, kafka.KafkaTimeoutError):
            return True
        if kafka is not None and isinstance(current, kafka.KafkaError) and current.retriable:
            return True
        current = current.__cause__
    return False


def heals(exc: BaseException) -> bool:
    """Whether waiting can cure ``exc``: full storage, or a broker that does not answer. Anything else (a
    log that lost records, keys or settings that are not this deployment's, a bug) cannot."""
    return storage_full(exc) or unreachable(exc)
