"""``bench chaos`` in small: the service and the publisher killed (-9) during ingest on the embedded log,
cross-bank probes and fuzzed MCP calls, through real processes. The figures must be the ones a healthy
build gives: nothing lost, duplicated or different from one in-process actor, ``replay verify`` clean,
no leak, no crash, no hang."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.e2e.test_cli import env


def test_kills_probes_and_fuzz_lose_nothing_leak_nothing_and_crash_nothing(tmp_path):
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--data-dir", str(tmp_path), "--embedder", "minilm"]
    argv += ["bench", "chaos", "--turns", "150", "--kills", "1", "--banks", "4", "--probes", "20", "--fuzz", "40"]
    done = subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=900, env=env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    kills, probes, fuzz = figures["kills"], figures["probes"], figures["fuzz"]
    assert kills["service_kills"] == 1 and kills["turns"] == 150
    assert (kills["lost"], kills["duplicated"], kills["extra"], kills["differing_banks"]) == (0, 0, 0, 0), kills
    assert kills["verify_ok"], kills["verify"]
    assert kills["tracebacks"] == 0
    assert probes["leaks"] == 0 and probes["refused"] == probes["probes"], probes  # every probe refused
    assert (fuzz["failures"], fuzz["hangs"]) == (0, 0), fuzz
    assert fuzz["server_alive"] and fuzz["healthz"] == 200 and fuzz["tracebacks"] == 0, fuzz
    assert fuzz["tool_errors"] >= 1  # the hostile values were refused, as tool errors
