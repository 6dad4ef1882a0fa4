"""``bench recall --concurrency N``: recalls/s and latency under N concurrent clients, each in its own process.

The bank (built by ``bench recall``) is served by a real ``hindsight-es up``; every client is a separate
process (``load_client recall``) that calls ``POST /v1/banks/{bank}/recall`` over the HTTP API in a closed
loop (one call at a time) for ``--seconds``, so the load generator's own CPU is visible beside the server's
rather than hidden in the server's event loop. With ``--ingest-rate R`` another process retains R turns
per second into the same bank meanwhile (an open loop: the schedule does not slow down when the server does).

Before the server starts, whatever the layout's log holds that the bank actor or a projection has not
applied yet (a freshly built layout has only its vectors projected) is drained in this process, as ``up``
would on its start: otherwise the server spends the timed window replaying the archive, working memory
and the actor's inputs, and that CPU is counted against the recalls.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hindsight_es.app.bench.cmd_mcp import _free_port, percentile, serving
from hindsight_es.app.bench.load_client import queries
from hindsight_es.app.bench.workers import cpu_s
from hindsight_es.app.cli.common import console, run_async
from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError

READY_TIMEOUT_S = 300.0  # a client process's imports on a loaded machine
START_MARGIN_S = 0.5  # between the last client's "ready" and the common start


def descendants(pid: int) -> list[int]:
    """The live processes ``pid`` started, and theirs (``up``'s readers), from /proc."""
    try:
        children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []
    return children + [d for c in children for d in descendants(c)]


async def _all_readers(url: str, readers: int, timeout_s: float = READY_TIMEOUT_S) -> None:
    """Wait until ``readers`` distinct processes answer ``/healthz`` (``up`` and its readers, each warm
    before it listens), so none of them loads its models in the timed window."""
    import httpx

    from hindsight_es.app.gateway.app import PID_HEADER

    seen: set[str] = set()
    deadline = time.monotonic() + timeout_s
    while len(seen) < readers:
        if time.monotonic() > deadline:
            raise HindsightError(f"{len(seen)} of {readers} reader processes answered within {timeout_s:g} s")
        async with httpx.AsyncClient() as http:  # a new connection each time: the kernel picks the process
            with contextlib.suppress(httpx.HTTPError):
                seen.add((await http.get(f"{url}/healthz", timeout=5)).headers.get(PID_HEADER, ""))
        await asyncio.sleep(0.05)


def _cpu_delta(before: dict[int, float | None], after: dict[int, float | None]) -> float | None:
    deltas = [after[p] - b for p, b in before.items() if b is not None and after.get(p) is not None]  # type: ignore[operator]
    return sum(deltas) if deltas else None


def run_load(settings: Settings, bank: str, concurrency: int, seconds: float, ingest_rate: float) -> dict[str, Any]:
    """Serve ``bank`` from a real ``up`` and drive it with ``concurrency`` client processes; the figures.

    Every client process reports "ready" once imported and connected, and all start at one instant
    after the last is ready, so no client's start-up falls in the timed window. The server's and the
    clients' CPU seconds are read from /proc at the window's start and end."""
    token = secrets.token_urlsafe(24)
    drained = run_async(lambda: _drain(settings))

    async def go() -> dict[str, Any]:
        async with serving(settings, _free_port(), token, listen_s=300) as (mcp_url, server):
            url = mcp_url.removesuffix("/mcp")
            await _all_readers(url, settings.readers)
            await _warm(url, token, bank)
            argv = [sys.executable, "-m", "hindsight_es.app.bench.load_client"]
            common = ["--url", url, "--token", token, "--bank", bank, "--seconds", str(seconds)]
            spawn = functools.partial(subprocess.Popen, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            procs = [spawn([*argv, "recall", *common, "--seed", str(n)]) for n in range(concurrency)]
            if ingest_rate > 0:
                procs.append(spawn([*argv, "ingest", *common, "--rate", str(ingest_rate)]))
            try:
                for p in procs:
                    assert p.stdout is not None
                    line = await asyncio.wait_for(asyncio.to_thread(p.stdout.readline), READY_TIMEOUT_S)
                    if line.strip() != "ready":
                        raise HindsightError(f"a bench client process did not start (exit code {p.wait()})")
            except BaseException:
                for p in procs:
                    p.kill()
                raise
            start = time.time() + START_MARGIN_S
            for p in procs:
                assert p.stdin is not None
                p.stdin.write(f"{start!r}\n")
                p.stdin.flush()
            servers = [server.pid, *descendants(server.pid)]  # `up` and its readers (HINDSIGHT_READERS)
            pids = [*servers, *(p.pid for p in procs)]
            await asyncio.sleep(max(0.0, start - time.time()))
            cpu0 = {pid: cpu_s(pid) for pid in pids}
            await asyncio.sleep(max(0.0, start + seconds - time.time()))
            cpu1 = {pid: cpu_s(pid) for pid in pids}
            outs = [await asyncio.to_thread(p.communicate) for p in procs]
            if failed := [p.returncode for p in procs if p.returncode]:
                raise HindsightError(f"{len(failed)} bench client processes failed (exit codes {failed})")
            results = [json.loads(out.strip().splitlines()[-1]) for out, _ in outs]
        clients = results[:concurrency]
        times = [t for r in clients for t in r["ms"]]
        if not times:
            raise HindsightError("no recall completed within the run")
        server_cpu = _cpu_delta({pid: cpu0[pid] for pid in servers}, cpu1)
        clients_cpu = _cpu_delta({p.pid: cpu0[p.pid] for p in procs[:concurrency]}, cpu1)
        report: dict[str, Any] = {
            "concurrency": concurrency,
            "server_processes": len(servers),
            "seconds": seconds,
            "recalls": len(times),
            "recalls_per_s": len(times) / seconds,
            "errors": sum(r["errors"] for r in clients),
            "errors_said": list(dict.fromkeys(m for r in results for m in r.get("said", []))),
            "p50_ms": percentile(times, 50),
            "p95_ms": percentile(times, 95),
            "p99_ms": percentile(times, 99),
            "server_cpu_s": server_cpu,
            "server_cpu_ms_per_recall": None if server_cpu is None else server_cpu * 1000 / len(times),
            "clients_cpu_ms_per_recall": None if clients_cpu is None else clients_cpu * 1000 / len(times),
            "load_average": os.getloadavg()[0],
            "drained": drained,
        }
        if ingest_rate > 0:
            ingest = results[-1]
            report["ingest"] = {
                "rate": ingest_rate,
                "retained": ingest["retained"],
                "errors": ingest["errors"],
                "p95_ms": percentile(ingest["ms"], 95) if ingest["ms"] else None,
            }
        return report

    return run_async(go)


def print_load(report: dict[str, Any]) -> None:
    if report["drained"]:
        console.print(
            f"  before serving: {report['drained']:,} records of the log drained through the actor and projections"
        )
    console.print(
        f"{report['concurrency']} clients × {report['seconds']:g}s: {report['recalls_per_s']:.1f} recalls/s "
        f"({report['recalls']:,} recalls, {report['errors']} errors), p50 {report['p50_ms']:.1f} ms, "
        f"p95 {report['p95_ms']:.1f} ms, p99 {report['p99_ms']:.1f} ms"
    )
    if report["server_cpu_ms_per_recall"] is not None:
        console.print(
            f"  CPU per recall: server {report['server_cpu_ms_per_recall']:.1f} ms "
            f"({report['server_processes']} process{'es' if report['server_processes'] > 1 else ''}) "
            f"({report['server_cpu_s']:.1f} s over the run), clients {report['clients_cpu_ms_per_recall']:.1f} ms; "
            f"load average {report['load_average']:.1f}"
        )
    if ingest := report.get("ingest"):
        console.print(
            f"  beside it: {ingest['retained']:,} turns retained at {ingest['rate']:g}/s "
            f"({ingest['errors']} errors, retain p95 {ingest['p95_ms'] or 0:.1f} ms)"
        )
    for message in report.get("errors_said", []):
        console.print(f"  an error: {message}", markup=False)


WARM_UP_RECALLS = 20


async def _drain(settings: Settings) -> int:
    """Records of the layout's log that the actor and the projections applied here, before serving."""
    from hindsight_es.log import started_log
    from streams.service import catch_up_all

    async with started_log(settings) as log:
        return await catch_up_all(settings, log)


async def _warm(url: str, token: str, bank: str) -> None:
    """Recalls before the clients start: the server's first queries load models and open tables."""
    from hindsight_es.remote import AsyncHindsightClient

    async with AsyncHindsightClient(url, token, retries=0, timeout_s=120) as api:
        for query in queries(WARM_UP_RECALLS, 1000):
            await api.recall(bank, query, limit=10)


def check_free(settings: Settings) -> None:
    """No service may run on the data directory: the bench starts its own ``up``."""
    from streams.service import ServiceLock

    lock = ServiceLock(settings)
    acquired = lock.acquire()
    lock.release()
    if not acquired:
        raise HindsightError(f"a service is running on {settings.data_dir}: stop it first (the bench starts its own)")
