"""The Python snippet of the README (and of docs/operations.md), run as written in a fresh directory."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_cli import env

REPO = Path(__file__).resolve().parents[2]


def snippet(path: Path) -> str:
    blocks = re.findall(r"```python\n(.*?)```", path.read_text(), re.S)
    return next(b for b in blocks if "local(Settings())" in b)


@pytest.mark.parametrize("page", ["README.md", "docs/operations.md"])
def test_the_python_snippet_runs_as_written_in_a_fresh_directory(tmp_path: Path, page: str) -> None:
    code = snippet(REPO / page)
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env()
    )
    assert run.returncode == 0, run.stderr
    assert "Paris" in run.stdout  # the memory of "we moved to Paris" (its statement, or the turn itself)
    assert (tmp_path / "hindsight-data" / "log.sqlite3").exists()
