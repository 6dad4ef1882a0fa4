"""A benchmark's data directory when the run names none: a new temporary one, removed when the process
exits (a run with ``--work-dir`` keeps its directory, to reuse or inspect). Benchmarks that kill and restart
processes (``chaos``, the worker benches) keep theirs and print where it is."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

__all__ = ["scratch"]


def scratch(prefix: str) -> Path:
    """A new empty directory under the system's temporary directory, removed at interpreter exit."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, True)
    return path
