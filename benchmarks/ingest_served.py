"""Server CPU a turn for ingest alone: a real ``hindsight-es up`` on a copy of a store, one ingest client.

The layout ``bench recall --sizes 10000 --work-dir D`` builds is copied (the original is not changed), its log
drained as ``bench recall --concurrency`` drains it, served by ``up``, and fed ``--rate`` turns/s for
``--seconds`` by ``load_client ingest`` alone (no recall client): it prints the server's CPU over the window,
per turn, and per thread name (``/proc``: Python's threads all say ``python``; LanceDB's name theirs). What
``bench recall --concurrency N --ingest-rate R`` charges to its recalls as the ingest's share, measured apart.
A developer tool: ``python -m benchmarks.ingest_served --data-dir D/n10000 --bank bench-recall-10000``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.scratch import copied
from hindsight_es.app.bench.cmd_load import _drain, _warm
from hindsight_es.app.bench.cmd_mcp import _free_port, serving
from hindsight_es.app.bench.workers import cpu_s
from hindsight_es.app.cli.common import run_async
from hindsight_es.config import Settings


def _threads(pid: int) -> dict[str, tuple[str, int]]:
    """thread id -> (name, CPU clock ticks so far)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
        except FileNotFoundError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        out[tid] = (stat[stat.index("(") + 1 : stat.rindex(")")], int(fields[11]) + int(fields[12]))
    return out


async def _run(settings: Settings, bank: str, seconds: float, rate: float) -> None:
    token = secrets.token_urlsafe(24)
    async with serving(settings, _free_port(), token, listen_s=300) as (mcp_url, server):
        url = mcp_url.removesuffix("/mcp")
        await _warm(url, token, bank)
        argv = [sys.executable, "-m", "hindsight_es.app.bench.load_client", "ingest", "--url", url, "--token", token]
        argv += ["--bank", bank, "--seconds", str(seconds), "--rate", str(rate)]
        client = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert client.stdin is not None and client.stdout is not None
        if (await asyncio.to_thread(client.stdout.readline)).strip() != "ready":
            raise SystemExit(f"the ingest client did not start (exit code {client.wait()})")
        start = time.time() + 0.5
        client.stdin.write(f"{start!r}\n")
        client.stdin.flush()
        await asyncio.sleep(start - time.time())
        cpu0, threads0 = cpu_s(server.pid), _threads(server.pid)
        await asyncio.sleep(seconds)
        cpu1, threads1 = cpu_s(server.pid), _threads(server.pid)
        out, _ = await asyncio.to_thread(client.communicate)
    retained = out.strip().splitlines()[-1][:60]
    assert cpu0 is not None and cpu1 is not None
    turns = rate * seconds
    print(f"{retained}…")
    print(f"server CPU {cpu1 - cpu0:.2f} s over {seconds:g} s: {1000 * (cpu1 - cpu0) / turns:.1f} ms a turn")
    by_name: collections.Counter[str] = collections.Counter()
    for tid, (name, ticks) in threads1.items():
        by_name[name] += ticks - threads0.get(tid, (name, 0))[1]
    hz = os.sysconf("SC_CLK_TCK")
    print("by thread: " + ", ".join(f"{name} {ticks / hz:.2f} s" for name, ticks in by_name.most_common() if ticks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--bank", required=True)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=20.0)
    args = parser.parse_args()
    with copied(args.data_dir) as copy:
        settings = Settings(data_dir=copy, embedder="hybrid")
        run_async(lambda: _drain(settings))
        asyncio.run(_run(settings, args.bank, args.seconds, args.rate))


if __name__ == "__main__":
    main()
