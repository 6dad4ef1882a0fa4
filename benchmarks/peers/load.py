"""The load generator: ``clients`` processes, each a closed loop of recalls over HTTP for ``seconds``.

Every client is its own process (spawned, so it shares nothing with the driver), opens one keep-alive
connection, waits for a common start time and then sends one request after another, cycling through
its share of the queries. It reports each latency (request sent to response read) and its own CPU
time, so the cost of generating the load is visible beside the server's.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any

Request = tuple[str, dict[str, Any]]  # url, JSON body


@dataclass(frozen=True, slots=True)
class LoadResult:
    clients: int
    seconds: float
    latencies_ms: list[float]
    errors: int
    client_cpu_s: float

    @property
    def per_second(self) -> float:
        return len(self.latencies_ms) / self.seconds if self.seconds else 0.0


def _client(requests: list[Request], start_at: float, seconds: float, out: Any) -> None:
    import os

    import httpx

    latencies, errors = [], 0
    with httpx.Client(timeout=120.0) as http:
        while time.time() < start_at:
            time.sleep(min(0.01, max(0.0, start_at - time.time())))
        end = time.perf_counter() + seconds
        i = 0
        while time.perf_counter() < end:
            url, body = requests[i % len(requests)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = http.post(url, json=body)
                r.read()
                ok = r.status_code < 400
            except httpx.HTTPError:
                ok = False
            t1 = time.perf_counter()
            if ok:
                latencies.append((t1 - t0) * 1000)
            else:
                errors += 1
    cpu = os.times()
    out.put((latencies, errors, cpu.user + cpu.system))


def run_load(requests: list[Request], clients: int, seconds: float) -> LoadResult:
    """Run ``clients`` client processes for ``seconds``; client i starts at query i * n / clients."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start_at = time.time() + 1.5 + 0.05 * clients  # every client has imported httpx and connected by then
    procs = []
    for c in range(clients):
        offset = c * len(requests) // clients
        share = requests[offset:] + requests[:offset]
        p = ctx.Process(target=_client, args=(share, start_at, seconds, out), daemon=True)
        p.start()
        procs.append(p)
    latencies: list[float] = []
    errors, cpu = 0, 0.0
    for _ in procs:
        lat, err, c = out.get(timeout=seconds + 300)
        latencies += lat
        errors += err
        cpu += c
    for p in procs:
        p.join(timeout=30)
    return LoadResult(clients, seconds, latencies, errors, cpu)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]
