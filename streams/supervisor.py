"""The service's long-running tasks under supervision: a failure that waiting cures (``health.heals``: full
storage, a broker that does not answer) is retried after a back-off while ``/healthz`` says why; any
other is raised and stops the service. A retried task is healthy again at its first success: it reports
its progress (``health.progressed``), or it ends. While the broker does not answer, it is probed during
the back-off, and the next attempt starts as soon as it answers again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from hindsight_es.health import HEALTH, heals, reporting, storage_full

__all__ = ["PROBE_EVERY_S", "RETRY_FIRST_S", "RETRY_MAX_S", "Probe", "Task", "backoff", "recovered", "supervised"]
log_ = logging.getLogger("hindsight.service")
RETRY_FIRST_S, RETRY_MAX_S = 1.0, 60.0
# A broker that did not answer is asked again this often while a retry waits (one metadata request, as
# ``health.watch`` sends every second): the retry follows within this of the broker answering again.
PROBE_EVERY_S, PROBE_TIMEOUT_S = 2.0, 2.0
Task = Callable[[asyncio.Event], Coroutine[Any, Any, None]]
Probe = Callable[[], Awaitable[object]]


async def supervised(name: str, task: Task, stop: asyncio.Event, *, answers: Probe | None = None) -> None:
    """Run ``task`` until ``stop``. When it fails in a way waiting cures (``heals``) it is started again after
    a back-off (``RETRY_FIRST_S`` doubling to ``RETRY_MAX_S``, from the first again once it has worked
    since) while ``HEALTH`` says why; the log says so once when the failures start (each retry after that
    at DEBUG) and once when the task works again (``recovered``: its first ``progressed`` or its end).
    After a broker that did not answer, ``answers`` (a metadata request) ends the wait once it answers
    again (``backoff``). Any other failure is raised (and stops the service). A restarted task resumes
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
            full = storage_full(exc)
            log_.log(
                logging.ERROR if first else logging.DEBUG,
                "%s: %s, retrying in %gs (then doubling to %gs) until it works again: %s",
                name,
                "storage full" if full else "the broker does not answer",
                delay,
                RETRY_MAX_S,
                exc,
            )
        await backoff(delay, stop, None if full else answers)
        if stop.is_set():
            HEALTH.recover(name)
            return
        delay = min(delay * 2, RETRY_MAX_S)


async def backoff(delay_s: float, stop: asyncio.Event, answers: Probe | None = None) -> None:
    """Wait ``delay_s``, or until ``stop``. With ``answers``: probe at once, then every ``PROBE_EVERY_S``, and
    end the wait at the first answer after a probe that got none. A broker that answers the first probe
    although the attempt failed did not come back: its failure is something else (a group coordinator not
    ready), and the wait runs its course, so attempts against a broker that answers stay paced by the
    back-off. A probe logs nothing: the log's lines are the attempts'."""
    deadline = time.monotonic() + delay_s
    unanswered = False
    while not stop.is_set() and (left := deadline - time.monotonic()) > 0:
        if answers is not None:
            if await _answered(answers):
                if unanswered:
                    return
                answers = None  # answering all along: no more probes in this wait
            else:
                unanswered = True
            left = deadline - time.monotonic()
        pause = min(PROBE_EVERY_S, left) if answers is not None else left
        if pause > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), pause)


async def _answered(probe: Probe) -> bool:
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):  # a frozen broker holds the request open
            await probe()
    except Exception:  # whatever the cause, it did not answer; the next attempt says why
        return False
    return True


def recovered(name: str) -> None:
    """``name`` works again after failures ``supervised`` retried: its ``/healthz`` line goes, and the log
    says so once (nothing when it had not failed). Cheap when it had not: called on every poll."""
    if not HEALTH.degraded(name):
        return
    problem = next((p for p in HEALTH.problems() if p.component == name), None)
    if problem is not None:
        log_.warning("%s: working again after %.0fs (%d failures)", name, time.time() - problem.since, problem.failures)
        HEALTH.recover(name)
