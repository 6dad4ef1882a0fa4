"""The load generator: ``clients`` processes, each a closed loop of recalls over HTTP for ``seconds``.

Every client is its own process (spawned, so it shares nothing with the driver), opens one keep-alive
connection (stdlib ``http.client``), waits at a barrier for the others and then sends one request
after another, cycling through its share of the queries. It reports each latency (request sent to
response read) and the CPU it spent sending them (from the barrier on, so its start-up is left out),
so the cost of generating the load is visible beside the server's.
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


def _client(requests: list[Request], barrier: Any, seconds: float, out: Any) -> None:
    import http.client
    import json
    import os
    from urllib.parse import urlsplit

    # http.client, not httpx: the stdlib client costs a fraction of the CPU per request, so on a small
    # machine the clients take less of it from the server under test.
    bodies = [(urlsplit(url), json.dumps(body).encode()) for url, body in requests]
    host = bodies[0][0]
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    headers = {"Content-Type": "application/json"}
    latencies, errors = [], 0
    barrier.wait()  # every client is ready: all start together
    cpu0 = os.times()
    began = time.time()
    end = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < end:
        url, data = bodies[i % len(bodies)]
        i += 1
        t0 = time.perf_counter()
        try:
            conn.request("POST", url.path, body=data, headers=headers)
            resp = conn.getresponse()
            resp.read()
            ok = resp.status < 400
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()  # reconnects on the next request
        t1 = time.perf_counter()
        if ok:
            latencies.append((t1 - t0) * 1000)
        else:
            errors += 1
    ended = time.time()
    conn.close()
    cpu = os.times()
    out.put((latencies, errors, cpu.user + cpu.system - cpu0.user - cpu0.system, began, ended))


def run_load(requests: list[Request], clients: int, seconds: float) -> LoadResult:
    """Run ``clients`` client processes for ``seconds``; client i starts at query i * n / clients.

    The rate is the requests completed over the span from the first client's start to the last one's
    end (the clients start together at a barrier, so the span is ``seconds`` plus the last reply)."""
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    barrier = ctx.Barrier(clients)
    procs = []
    for c in range(clients):
        offset = c * len(requests) // clients
        share = requests[offset:] + requests[:offset]
        p = ctx.Process(target=_client, args=(share, barrier, seconds, out), daemon=True)
        p.start()
        procs.append(p)
    latencies: list[float] = []
    errors, cpu, starts, ends = 0, 0.0, [], []
    for _ in procs:
        lat, err, c, began, ended = out.get(timeout=seconds + 600)
        latencies += lat
        errors += err
        cpu += c
        starts.append(began)
        ends.append(ended)
    for p in procs:
        p.join(timeout=30)
    return LoadResult(clients, max(ends) - min(starts), latencies, errors, cpu)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]
