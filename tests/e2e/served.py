"""``hindsight-es up`` as a real subprocess on a free port, for the HTTP API, client and dashboard tests."""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.test_cli import command, env, wait_for

ALICE = "alice-token-000000000001"  # bank "alice" only
OPS = "ops-token-00000000000002"  # every bank
TOKENS = {ALICE: ["alice"], OPS: "*"}


@dataclass
class Up:
    base: str  # http://127.0.0.1:PORT
    data: Path
    errors: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_up(root: Path, *, tokens: dict[str, object] | None = None, **extra_env: str) -> Iterator[Up]:
    """``up`` on ``root/data`` serving HTTP on a free port; stopped with SIGINT, which must end it cleanly."""
    data, errors, port = root / "data", root / "up.err", free_port()
    data.mkdir(parents=True, exist_ok=True)
    extra = {"HINDSIGHT_MCP_PORT": str(port), **extra_env}
    if tokens is not None:
        extra["HINDSIGHT_MCP_TOKENS"] = json.dumps(tokens)
    with open(errors, "wb") as err:
        up = subprocess.Popen(
            command(data, "up"),
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env(**extra),
            cwd=root,
        )
    try:
        wait_for(errors, "hindsight up:", up, 90)
        yield Up(f"http://127.0.0.1:{port}", data, errors)
        up.send_signal(signal.SIGINT)
        assert up.wait(timeout=20) == 0, errors.read_text()
    finally:
        if up.poll() is None:
            up.kill()
            up.wait(timeout=10)
    assert "Traceback" not in errors.read_text(), errors.read_text()
