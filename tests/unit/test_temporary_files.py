"""The test run keeps its temporary files under pytest's rotated directory (``temporary_files_under_pytest``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path


def test_this_process_and_its_children_write_temporary_files_under_pytest(temporary_files_under_pytest):
    root = temporary_files_under_pytest
    assert Path(tempfile.gettempdir()) == root
    child = subprocess.run(
        [sys.executable, "-c", "import tempfile; print(tempfile.mkdtemp(prefix='child-'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    made = Path(child.stdout.strip())
    assert made.parent == root and made.is_dir()
    os.rmdir(made)
