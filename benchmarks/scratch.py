"""A copy of a store to measure on, so a benchmark never changes the one it was given."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def copied(data_dir: Path) -> Iterator[Path]:
    """``data_dir`` copied into a temporary directory, removed afterwards."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "store"
        shutil.copytree(data_dir, copy)
        yield copy
