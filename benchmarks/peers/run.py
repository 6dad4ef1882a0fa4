"""Peers side by side: the same generated memories and questions into every system, then ingest
throughput, retrieval quality, recall latency and recalls/s under 1 and 20 clients (systems interleaved
round by round), memory (server and database processes) and disk; hindsight's ratio to each peer.

    benchmarks/peers/.venv/bin/python -m benchmarks.peers.run --sizes 10000 --rounds 3 --clients 1,20

See benchmarks/peers/README.md for the setup, the columns and the configuration differences.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.peers import report
from benchmarks.peers.corpus import Corpus, generate
from benchmarks.peers.load import Request, run_load
from benchmarks.peers.measure import PeakSampler, cpu_seconds, memory
from benchmarks.peers.servers import Server

SYSTEMS = ["hindsight", "hindsight-minilm", "lancedb", "mem0-pgvector", "mem0-qdrant", "vectorize"]
BANK = "peers"
LOCOMO_SCRIPT = Path("/work/shared/bench/locomo_retrieval.py")


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def recall_requests(server: Server, corpus: Corpus, k: int) -> list[Request]:
    """What a client sends: the thin server's /query, or (Vectorize) its own API's recall endpoint."""
    endpoint = server.stats().get("endpoint")
    if server.system == "vectorize" and endpoint:
        from benchmarks.peers.systems.vectorize import recall_request

        return [recall_request(endpoint, BANK, q.question, k) for q in corpus.queries]
    return [(f"{server.url}/query", {"conversation_id": BANK, "question": q.question, "k": k}) for q in corpus.queries]


def quality(server: Server, corpus: Corpus, k: int = 10) -> dict[str, Any]:
    rows = []
    for q in corpus.queries:
        ranked = server.query(BANK, q.question, k)
        rank = ranked.index(q.answer) + 1 if q.answer in ranked else None
        rows.append((q.lang, rank))
    out: dict[str, Any] = {}
    for lang in ("all", "en", "zh"):
        ranks = [r for lg, r in rows if lang == "all" or lg == lang]
        if not ranks:
            continue
        n = len(ranks)
        out[lang] = {
            "n": n,
            "hit@1": sum(1 for r in ranks if r == 1) / n,
            "hit@5": sum(1 for r in ranks if r and r <= 5) / n,
            "hit@10": sum(1 for r in ranks if r and r <= 10) / n,
            "mrr@10": sum(1 / r for r in ranks if r) / n,
        }
    return out


def measure_size(size: int, systems: list[str], args: argparse.Namespace, work: Path) -> dict[str, Any]:
    log(f"corpus: {size:,} memories, {args.queries} questions")
    corpus = generate(size, args.queries)
    servers = {s: Server(s, work / f"{size}" / s) for s in systems}
    results: dict[str, Any] = {s: {"latency": {str(c): [] for c in args.clients}} for s in systems}
    try:
        for name, server in servers.items():
            log(f"{name}: starting")
            server.start()
            roots = server.roots()
            base_rss = memory(roots)
            log(f"{name}: ingesting {size:,}")
            with PeakSampler(server.roots()) as peak:
                seconds = server.ingest(BANK, corpus.memories)
            stats = server.stats()
            results[name].update(
                ingest_s=seconds,
                ingest_per_s=size / seconds,
                ingest_peak_rss=peak.peak,
                idle_rss_before_ingest=base_rss.rss,
                disk_bytes=stats["disk_bytes"],
                notes=stats["notes"],
                details=stats.get("details", {}),
            )
            log(f"{name}: {size / seconds:,.0f} memories/s; quality on {len(corpus.queries)} questions")
            results[name]["quality"] = quality(server, corpus)
            log(f"{name}: hit@5 {results[name]['quality']['all']['hit@5']:.3f}")
        requests = {name: recall_requests(server, corpus, args.k) for name, server in servers.items()}
        for rnd in range(args.rounds):
            order = systems[rnd % len(systems) :] + systems[: rnd % len(systems)]
            for name in order:
                server = servers[name]
                run_load(requests[name][:20], 1, min(2.0, args.seconds))  # warm-up, discarded
                for clients in args.clients:
                    roots = server.roots()
                    cpu0 = cpu_seconds(roots)
                    res = run_load(requests[name], clients, args.seconds)
                    cpu = cpu_seconds(roots) - cpu0
                    results[name]["latency"][str(clients)].append(
                        {
                            "latencies_ms": res.latencies_ms,
                            "errors": res.errors,
                            "per_s": res.per_second,
                            "server_cpu_ms": 1000 * cpu / max(1, len(res.latencies_ms)),
                            "client_cpu_ms": 1000 * res.client_cpu_s / max(1, len(res.latencies_ms)),
                        }
                    )
                    log(f"round {rnd + 1} {name} x{clients}: {res.per_second:,.1f} recalls/s, {res.errors} errors")
        for name, server in servers.items():
            mem = memory(server.roots())
            results[name].update(serving_rss=mem.rss, serving_pss=mem.pss, processes=mem.count)
    finally:
        for server in servers.values():
            server.stop()
    return results


def locomo(systems: list[str], data: Path, work: Path) -> dict[str, Any]:
    """LoCoMo dev evidence recall through the harness's --http contract, one fresh server per system."""
    out: dict[str, Any] = {}
    for name in systems:
        server = Server(name, work / "locomo" / name)
        try:
            server.start()
            dest = work / "locomo" / f"{name}.json"
            cmd = [sys.executable, str(LOCOMO_SCRIPT), "--data", str(data), "--http", server.url]
            cmd += ["--name", name, "--out", str(dest)]
            log(f"locomo: {name}")
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            out[name] = json.loads(dest.read_text())["results"][name]
        finally:
            server.stop()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000", help="comma-separated corpus sizes (memories in one bank)")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help=f"subset of {','.join(SYSTEMS)}")
    ap.add_argument("--rounds", type=int, default=3, help="latency rounds; systems interleaved within each")
    ap.add_argument("--clients", default="1,20", help="concurrent client processes per latency run")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of one latency run")
    ap.add_argument("--queries", type=int, default=500, help="questions with a known answer (quality and load)")
    ap.add_argument("--k", type=int, default=10, help="results asked for per recall")
    ap.add_argument("--locomo", type=Path, help="also score LoCoMo evidence recall on this locomo_dev.json")
    ap.add_argument("--work-dir", type=Path, help="where the systems keep their data (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the data directories")
    ap.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    ap.add_argument("--out", type=Path, help="also write the JSON summary (with every latency) to this file")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the servers are stopped on the way out
    args.clients = [int(c) for c in args.clients.split(",") if c.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        ap.error(f"unknown systems {', '.join(unknown)}; choose from {', '.join(SYSTEMS)}")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = args.work_dir or Path(tempfile.mkdtemp(prefix="hindsight-peers-"))
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o755)  # the database user must reach its data directory
    started = time.time()
    doc: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": report.machine(),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "sizes": {},
    }
    try:
        for size in sizes:
            doc["sizes"][str(size)] = measure_size(size, systems, args, work)
        if args.locomo:
            doc["locomo"] = locomo(systems, args.locomo, work)
    finally:
        if not args.keep and not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    doc["wall_s"] = time.time() - started
    if args.out:
        args.out.write_text(json.dumps({**report.summary(doc), "raw": doc["sizes"]}))
    if args.json:
        print(json.dumps(report.summary(doc), indent=2))
    else:
        print(report.tables(doc))


if __name__ == "__main__":
    main()
