"""``hindsight-es bench partition-load`` at a tiny scale, in bulk: the log written, folded, snapshotted and
loaded back, in this process and in a fresh one timed from its start. The figures print; no timing asserted."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(work_dir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["HINDSIGHT_LOG_LEVEL"] = "WARNING"
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--embedder", "minilm", "bench", "partition-load"]
    argv += ["--events", "1200", "--banks", "2", "--history", "bulk", "--work-dir", str(work_dir)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, cwd=work_dir)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr + proc.stdout
    return " ".join(proc.stdout.split())


def test_partition_load_in_bulk_folds_snapshots_and_loads_in_a_fresh_process(tmp_path: Path) -> None:
    out = run(tmp_path)
    found = re.search(r"partition 0: ([\d,]+) memory events, 2 banks, ([\d,]+) memories", out)
    assert found, out
    events, memories = (int(g.replace(",", "")) for g in found.groups())
    assert events >= 1200 and 0 < memories < events  # supersessions and forgets are events too
    assert re.search(r"load from it: \d+\.\d+s", out)
    fresh = re.search(
        r"fresh process \(a worker's imports\): state held ([\d.]+)s .*\(imports ([\d.]+)s, load ([\d.]+)s", out
    )
    assert fresh, out
    held, imports, loaded = (float(g) for g in fresh.groups())
    assert held >= imports + loaded - 0.02  # the state is held after the imports and the load (2-decimal rounding)
    assert run(tmp_path).count(f"{events:,} memory events") == 1  # the log reused, not written again
