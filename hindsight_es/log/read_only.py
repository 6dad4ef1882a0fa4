"""Opening the SQLite files of a data directory this process may only read (``Settings.read_only``).

SQLite's ``mode=ro`` still needs a WAL database's ``-shm`` file, which it cannot create in a read-only
directory; a file with no write-ahead content left (the service closed it: the last connection checkpoints
and removes the ``-wal``) is opened ``immutable`` instead, which reads the main file alone and takes no lock.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hindsight_es.errors import LogError

__all__ = ["connect_read_only"]


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that can only read ``path`` and writes nothing beside it; ``LogError`` if it cannot
    be read (a write-ahead file with content that needs a ``-shm`` file nobody may create)."""
    uri = path.resolve().as_uri()
    con = sqlite3.connect(f"{uri}?mode=ro", uri=True, check_same_thread=False, isolation_level=None)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()  # mode=ro fails on first read, not connect
        return con
    except sqlite3.OperationalError as exc:
        con.close()
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size > 0:  # immutable would ignore those records: refuse instead
            raise LogError(
                f"cannot read {path} read-only: its write-ahead file {wal} holds records and SQLite needs a "
                f"-shm file beside it that cannot be created here ({exc}); copy the data directory after "
                "stopping the service, or with the -shm file"
            ) from exc
    return sqlite3.connect(f"{uri}?immutable=1", uri=True, check_same_thread=False, isolation_level=None)
