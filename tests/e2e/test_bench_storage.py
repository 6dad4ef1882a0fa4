"""``hindsight-es bench storage`` at a tiny scale, as a real subprocess: the figures add up, and each vector is
stored compactly (packed in the log, int8 codes in the archive)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]
DIM = 896  # the default (hybrid) embedder's


def test_bench_storage_reports_bytes_per_memory(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["HINDSIGHT_LOG_LEVEL"] = "WARNING"
    data = tmp_path / "data"
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "bench", "storage", "--turns", "12", "--json"]
    proc = subprocess.run(
        [*argv, "--work-dir", str(data)], capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    r = json.loads(proc.stdout)
    memories, per = r["memories_retained"], r["per_memory"]
    assert memories >= 12  # a memory per turn at least (the synthetic turns are no filler)
    # One vector per memory, packed: a byte per dimension and a 4-byte scale, base64 in the JSON record.
    assert per["retained_vector"] == 4 * math.ceil((DIM + 4) / 3) + len('"vector":"",')
    assert r["hot"] > 0 and r["archive"] > 0 and r["log_disk_bytes"] > r["bytes"] > 0
    assert abs(per["all"] - (r["log_disk_bytes"] + r["hot"] + r["archive"]) / memories) < 0.1
    files = list((data / "archive").rglob("topic=hindsight.memories/*/*.parquet"))
    assert files and all(pq.read_schema(f).field("vector").type == pa.list_(pa.int8()) for f in files)
