"""The service's long-running tasks under supervision: a failure that waiting cures (``health.heals``: full
storage, a broker that does not answer) is retried after a back-off while ``/healthz`` says why; any
other is raised and stops the service. A retried task is healthy again at its first success: it reports
its progress (``health.progressed``), or it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from hindsight_es.health import HEALTH, heals, reporting, storage_full

__all__ = ["RETRY_FIRST_S", "RETRY_MAX_S", "Task", "recovered", "supervised"]
log_ = logging.getLogger("hindsight.service")
RETRY_FIRST_S, RETRY_MAX_S = 1.0, 60.0
Task = Callable[[asyncio.Event], Coroutine[Any, Any, None]]


async def supervised(name: str, task: Task, stop: asyncio.Event) -> None:
    """Run ``task`` until ``stop``. When it fails in a way waiting cures (``heals``) it is started again after
    a back-off (``RETRY_FIRST_S`` doubling to ``RETRY_MAX_S``, from the first again once it has worked
    since) while ``HEALTH`` says why; the log says so once when the failures start (each retry after that
    at DEBUG) and once when the task works again (``recovered``: its first ``progressed`` or its end).
    Any other failure is raised (and stops the service). A restarted task resumes
    from its committed positions, so nothing is lost or decided twice."""
    delay = RETRY_FIRST_S
    while True:
        try:
            with reporting(lambda: recovered(name)):  # the task and the tasks it starts
                await task(stop)
            HEALTH.recover(name)
            return
        except Exception as exc:
            if not heals(exc):
                raise
            if stop.is_set():  # it failed while stopping: nothing to retry
                HEALTH.recover(name)
                return
            first = not HEALTH.degraded(name)
            if first:  # it worked since its last failure (if any): a new outage starts the back-off over
                delay = RETRY_FIRST_S
            HEALTH.degrade(name, f"{exc} (retrying in {delay:g}s)")
            log_.log(
                logging.ERROR if first else logging.DEBUG,
                "%s: %s, retrying in %gs (then doubling to %gs) until it works again: %s",
                name,
                "storage full" if storage_full(exc) else "the broker does not answer",
                delay,
                RETRY_MAX_S,
                exc,
            )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
        if stop.is_set():
            HEALTH.recover(name)
            return
        delay = min(delay * 2, RETRY_MAX_S)


def recovered(name: str) -> None:
    """``name`` works again after failures ``supervised`` retried: its ``/healthz`` line goes, and the log
    says so once (nothing when it had not failed). Cheap when it had not: called on every poll."""
    if not HEALTH.degraded(name):
        return
    problem = next((p for p in HEALTH.problems() if p.component == name), None)
    if problem is not None:
        log_.warning("%s: working again after %.0fs (%d failures)", name, time.time() - problem.since, problem.failures)
        HEALTH.recover(name)
