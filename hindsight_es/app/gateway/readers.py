"""Reader processes: ``HINDSIGHT_READERS=N`` makes ``up`` (or ``serve``) start N-1 ``serve`` on its port.

One process keeps about 1.2 to 1.5 of 2 cores busy with recalls however many threads serve them (in
process, 1 to 4 threads: 95 to 100 recalls/s of a 10k bank; two processes side by side: 124/s): part of
each recall is serialized in its hand-offs between the HTTP loop, the read threads, the query models and
LanceDB's one event loop. On 2 cores a second process answers about 30% more over HTTP.

The readers share nothing with the process that started them but the stores and the log, as any
``serve`` replica does (turns and commands they take are appended to the log, which ``up``'s pipeline or
the workers apply). Each opens the port with SO_REUSEPORT, and the kernel hands each new connection to
one of them. The starter restarts a reader that exits and stops them when it stops; a reader whose
starter is killed stops by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import Any

from hindsight_es.app.gateway.http import http_task
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.waiting import until_done_or_stopped

log_ = logging.getLogger("hindsight.gateway")
RESTART_DELAY_S = 1.0  # between a reader's exit and its restart: a reader that fails at start is not a busy loop
STOP_GRACE_S = 10.0  # a reader answers its requests in hand after SIGTERM; then it is killed
PARENT_ENV = "HINDSIGHT_READER_OF"  # set in a reader's environment: the pid of the process that started it
ORPHAN_CHECK_S = 1.0  # how often a reader looks whether its starter is still there


def reader_argv(settings: Settings) -> list[str]:
    """The command of one reader: ``serve`` with ``up``'s data directory, broker and embedder (the other
    settings come from the environment it inherits)."""
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--data-dir", str(settings.data_dir)]
    if settings.broker:
        argv += ["--broker", settings.broker]
    return [*argv, "--embedder", settings.embedder, "serve"]


def http_tasks(settings: Settings, hs: Hindsight) -> dict[str, Callable[[asyncio.Event], Coroutine[Any, Any, None]]]:
    """``up``'s HTTP tasks: its own server (``http.http_task``: the port is opened now) and, with
    ``settings.readers`` above 1, the task that keeps the readers running."""
    tasks = {"mcp-http": http_task(settings, hs)}
    if settings.readers > 1:
        tasks["readers"] = readers_task(settings)
    return tasks


def readers_task(settings: Settings) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    """The task that keeps ``settings.readers - 1`` reader processes running until ``stop``."""
    env = {
        **os.environ,
        "HINDSIGHT_MCP_PORT": str(settings.mcp_port),
        "HINDSIGHT_READERS": str(settings.readers),
        PARENT_ENV: str(os.getpid()),
    }

    async def keep(n: int, stop: asyncio.Event) -> None:
        while not stop.is_set():
            proc = await asyncio.create_subprocess_exec(
                *reader_argv(settings), env=env, stdin=asyncio.subprocess.DEVNULL
            )
            try:
                if await _until_exit_or_stop(proc, stop):
                    log_.warning("reader %d (pid %d) exited with %s; restarting it", n, proc.pid, proc.returncode)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), RESTART_DELAY_S)
            finally:  # stopped, or cancelled (this process stops after a failure): the reader goes too
                await _stop(proc)

    async def run(stop: asyncio.Event) -> None:
        await asyncio.gather(*(keep(n, stop) for n in range(1, settings.readers)))

    return run


def answered_by(settings: Settings) -> str:
    """What a starter's banner adds when its readers answer beside it on its port."""
    return f", answered by {settings.readers} processes (HINDSIGHT_READERS)" if settings.readers > 1 else ""


def is_reader() -> bool:
    """Whether another process started this one as its reader (a reader starts none itself)."""
    return PARENT_ENV in os.environ


async def stop_when_orphaned(stop: asyncio.Event) -> None:
    """In a reader (``PARENT_ENV`` set): set ``stop`` once the process that started it is gone (killed with
    -9, it could not stop its readers), so no reader outlives it holding the port."""
    parent = os.environ.get(PARENT_ENV)
    if not parent:
        return
    while not stop.is_set():
        if os.getppid() != int(parent):
            log_.warning("the `up` or `serve` that started this reader (pid %s) is gone: stopping", parent)
            stop.set()
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), ORPHAN_CHECK_S)


async def _until_exit_or_stop(proc: asyncio.subprocess.Process, stop: asyncio.Event) -> bool:
    """Wait for the reader to exit (True) or for ``stop`` (False)."""
    await until_done_or_stopped(proc.wait(), stop)
    return proc.returncode is not None


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM (it answers the requests in hand), then SIGKILL after ``STOP_GRACE_S``."""
    if proc.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), STOP_GRACE_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
