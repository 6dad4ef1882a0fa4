"""``hindsight-es bench ingest`` at a tiny scale, as a real subprocess: the figures print and add up.

No timing assertions: the numbers depend on the machine; only their presence and consistency are checked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120
NUMBER = r"([\d,]+(?:\.\d+)?)"


def bench(data_dir: Path, *args: str, broker: str | None = None, **extra_env: str) -> str:
    """Run ``bench ingest`` with ``args``; returns its stdout, whitespace collapsed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.update({"COLUMNS": "200", "HINDSIGHT_LOG_LEVEL": "WARNING", **extra_env})
    argv = [
        sys.executable,
        "-m",
        "hindsight_es.app.cli.main",
        "--data-dir",
        str(data_dir),
        *(["--broker", broker] if broker else []),
        "bench",
        "ingest",
        *args,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, cwd=data_dir.parent)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return " ".join(proc.stdout.split())


def number(pattern: str, text: str) -> float:
    found = re.search(pattern.replace("#", NUMBER), text)
    assert found, f"{pattern!r} not in: {text}"
    return float(found.group(1).replace(",", ""))


def check_freshness(out: str, turns: int, rate: float) -> None:
    assert number(r"published # turns in", out) == turns
    assert 0 < number(r"turns in [\d.]+s: # turns/s", out) <= rate * 1.5
    assert number(r"freshness \(publish -> recallable\) over # turns", out) == turns
    p50, p95, p99, worst = (number(rf"{q} # ms", out) for q in ("p50", "p95", "p99", "max"))
    assert 0 < p50 <= p95 <= p99 <= worst
    assert number(r"recallable: #/", out) == turns  # every turn became recallable
    assert number(r"turns; # not within", out) == 0


def test_freshness_mode_measures_every_turn_on_the_embedded_log(tmp_path: Path) -> None:
    out = bench(tmp_path / "data", "--rate", "20", "--seconds", "2")
    assert "pipeline warm" in out
    check_freshness(out, turns=40, rate=20)


def test_throughput_mode_prints_turns_per_second(tmp_path: Path) -> None:
    out = bench(tmp_path / "data", "--turns", "20")
    assert number(r"published # turns in", out) == 20
    assert number(r"records\) in [\d.]+s: # turns/s end to end", out) > 0
    assert number(r"actor \+ 3 projections, # records", out) >= 20


def test_freshness_mode_runs_on_kafka(tmp_path: Path, kafka_broker: str) -> None:
    # The test broker's topics are shared by every Kafka test, whose memories carry 384-d MiniLM vectors:
    # a projection of them needs a table of that size (and theirs must not meet 896-d hybrid vectors).
    out = bench(
        tmp_path / "data",
        "--rate",
        "10",
        "--seconds",
        "1",
        broker=kafka_broker,
        HINDSIGHT_KAFKA_SESSION_TIMEOUT_MS="1500",
        HINDSIGHT_KAFKA_HEARTBEAT_INTERVAL_MS="300",
        HINDSIGHT_EMBEDDER="minilm",
    )
    check_freshness(out, turns=10, rate=10)
