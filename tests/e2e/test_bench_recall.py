"""``hindsight-es bench recall`` at a tiny scale, as real processes: one serving process, then a real ``up``
with client processes and an ingest process beside them. The figures print and add up.

No timing assertions: the numbers depend on the machine; only their presence and consistency are checked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 600


def bench(work_dir: Path, *args: str) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["HINDSIGHT_LOG_LEVEL"] = "WARNING"
    env["HINDSIGHT_READERS"] = "1"  # the bench's `up` alone, not a reader per core beside the other tests
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--embedder", "minilm", "bench", "recall"]
    argv += ["--sizes", "400", "--work-dir", str(work_dir), "--json", *args]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=work_dir)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_bench_recall_times_the_first_recall_then_serves_concurrent_clients_beside_ingest(tmp_path: Path) -> None:
    [alone] = bench(tmp_path, "--queries", "10")
    assert alone["active"] >= 400 and alone["rows"] > alone["active"]  # inactive rows beside the active ones
    assert alone["first"] > 0 and 0 < alone["p50"] <= alone["p95"] <= alone["p99"]

    [load] = bench(tmp_path, "--concurrency", "2", "--seconds", "3", "--ingest-rate", "4")  # the bank reused
    assert load["active"] == alone["active"]
    # The layout was built with its vectors alone: the actor's inputs, the archive and the working memory
    # were drained before the server started, not replayed by it inside the timed window.
    assert load["drained"] > 0
    assert load["concurrency"] == 2 and load["errors"] == 0 and load["recalls"] > 0
    assert abs(load["recalls_per_s"] - load["recalls"] / 3) < 1e-9
    assert 0 < load["p50_ms"] <= load["p95_ms"] <= load["p99_ms"]
    assert load["server_cpu_s"] > 0  # the server's CPU over the timed window, from /proc
    assert load["server_cpu_ms_per_recall"] == load["server_cpu_s"] * 1000 / load["recalls"]
    assert load["clients_cpu_ms_per_recall"] > 0
    assert load["ingest"]["errors"] == 0 and load["ingest"]["retained"] == 12  # 3 s at 4 turns/s


def test_bench_recall_builds_in_bulk_one_bank_and_many_banks_through_the_rebuild(tmp_path: Path) -> None:
    [one] = bench(tmp_path, "--history", "bulk", "--queries", "10")
    assert one["layout"] == "n400" and one["banks"] == 1
    assert 400 <= one["active"] < one["rows"]  # superseded and forgotten rows beside the active ones
    assert one["events"] > one["rows"] and one["rebuild_s"] > 0 and one["write_s"] > 0  # written, then rebuilt
    assert one["first"] > 0 and 0 < one["p50"] <= one["p95"] <= one["p99"] and one["rss_mb"] > 0
    [again] = bench(tmp_path, "--history", "bulk", "--queries", "10")  # reused as it stands
    assert again["active"] == one["active"] and again["seconds"] == 0 and again["events"] == 0

    [many] = bench(tmp_path, "--history", "bulk", "--banks", "3", "--per-bank", "40", "--queries", "10")
    assert many["layout"] == "b3x40" and many["banks"] == 3
    assert 3 * 40 <= many["active"] < many["rows"] and many["events"] > many["rows"]
    assert 0 < many["p50"] <= many["p95"]
