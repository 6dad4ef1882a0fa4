"""A benchmark run without ``--work-dir`` leaves nothing behind in the temporary directory (each run used to
leave its store there: 19-100 MB a run); one with ``--work-dir`` keeps its store. A real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _bench(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update(HINDSIGHT_LOG_LEVEL="WARNING", TMPDIR=str(tmp), HINDSIGHT_EMBEDDER="minilm")
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "bench", "banks", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=tmp)


def ours(tmp: Path) -> list[str]:
    """What the run left in the temporary directory (other libraries leave their own files there)."""
    return [p.name for p in tmp.iterdir() if p.name.startswith("hindsight-")]


def test_a_bench_without_a_work_dir_removes_its_store_and_one_with_keeps_it(tmp_path: Path) -> None:
    bank = {
        "bank": "scratch",
        "kind": "item",
        "messages": [
            {"id": "scratch/1", "text": "The new kettle is matte black."},
            {"id": "scratch/2", "text": "It cost 45 euros at the market."},
        ],
        "questions": [{"question": "What colour is the kettle?", "evidence": ["scratch/1"]}],
    }
    data = tmp_path / "set.jsonl"
    data.write_text(json.dumps(bank) + "\n", encoding="utf-8")
    scratch = tmp_path / "tmp"
    scratch.mkdir()

    proc = _bench(scratch, "--data", str(data))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "set.jsonl" in proc.stdout  # it ran and reported
    assert ours(scratch) == []  # its temporary store is gone

    kept = tmp_path / "kept"
    proc = _bench(scratch, "--data", str(data), "--work-dir", str(kept))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert (kept / "log.sqlite3").exists() and ours(scratch) == []
