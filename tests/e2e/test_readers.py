"""``HINDSIGHT_READERS=2``: ``up`` and one ``serve`` it starts answer on one port, as separate processes.
The reader is restarted when it is killed (-9), stopped when ``up`` stops, and stops by itself when
``up`` is killed (-9). Real processes, real HTTP, the real port shared with SO_REUSEPORT."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import httpx

from hindsight_es.app.gateway.app import PID_HEADER
from hindsight_es.remote import HindsightClient
from tests.e2e.served import OPS, TOKENS, free_port, running_up
from tests.e2e.test_cli import command, env, wait_for

BANK = "alice"


def answering(base: str, n: int, deadline_s: float = 180) -> set[int]:
    """The pids of the processes answering ``/healthz``, once ``n`` distinct ones have (a new connection
    each time: the kernel picks the process per connection)."""
    seen: set[int] = set()
    deadline = time.monotonic() + deadline_s
    while len(seen) < n:
        assert time.monotonic() < deadline, f"only {sorted(seen)} answered within {deadline_s}s"
        with contextlib.suppress(httpx.HTTPError):
            seen.add(int(httpx.get(f"{base}/healthz", timeout=5).headers[PID_HEADER]))
        time.sleep(0.05)
    return seen


def mcp_call(base: str, tool: str, arguments: dict[str, object], n: int) -> str:
    """A tool called over MCP's streamable HTTP in one request, on a connection of its own (as a client whose
    idle connection was closed sends its next request): the text it answered, or the error it got."""
    headers = {"Authorization": f"Bearer {OPS}", "Accept": "application/json, text/event-stream"}
    message = {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    with httpx.Client(headers=headers, timeout=60) as http:
        answer = http.post(f"{base}/mcp", json=message)
    assert answer.status_code == 200, (answer.status_code, answer.text)
    lines = [line.removeprefix("data:") for line in answer.text.splitlines() if line.startswith("data:")]
    return json.dumps(json.loads(lines[-1] if lines else answer.text)["result"], ensure_ascii=False)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def is_reader(pid: int) -> bool:
    return b"serve" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")


def gone(pid: int, deadline_s: float) -> bool:
    deadline = time.monotonic() + deadline_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_up_and_a_reader_answer_on_one_port_and_the_reader_is_restarted(tmp_path: Path) -> None:
    with running_up(tmp_path, tokens=TOKENS, HINDSIGHT_READERS="2") as up:
        pids = answering(up.base, 2)
        (reader,) = [p for p in pids if is_reader(p)]
        (parent,) = pids - {reader}
        assert Path(f"/proc/{reader}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(parent)  # ppid

        with HindsightClient(up.base, OPS) as hs:
            hs.retain(BANK, "We adopted a cat named Miso.", session_id="s1", wait=True)
        for _ in range(12):  # a new connection each: both processes answer, from the same stores
            with HindsightClient(up.base, OPS) as hs:
                assert any("Miso" in h.text for h in hs.recall(BANK, "what is our cat called?").hits)

        for n in range(12):  # MCP too, a new connection each: no request depends on a session another process holds
            said = mcp_call(up.base, "recall", {"bank_id": BANK, "query": "what is our cat called?"}, n)
            assert "Miso" in said, said

        os.kill(reader, signal.SIGKILL)
        assert gone(reader, 10)
        restarted = answering(up.base, 2) - {parent}
        assert restarted and reader not in restarted and all(is_reader(p) for p in restarted)
        with HindsightClient(up.base, OPS) as hs:
            assert any("Miso" in h.text for h in hs.recall(BANK, "what is our cat called?").hits)
    assert all(gone(p, 15) for p in restarted)  # `up` stopped (SIGINT, exit 0) and stopped its reader
    assert "restarting it" in up.errors.read_text()


def started(tmp_path: Path, role: str) -> tuple[subprocess.Popen[bytes], Path, str]:
    """``role`` (``up`` or ``serve``) with two readers on a free port: the process, its stderr, its URL."""
    data, errors, port = tmp_path / "data", tmp_path / f"{role}.err", free_port()
    data.mkdir()
    with open(errors, "wb") as err:
        proc = subprocess.Popen(
            command(data, role),
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env(HINDSIGHT_MCP_PORT=str(port), HINDSIGHT_READERS="2"),
            cwd=tmp_path,
        )
    return proc, errors, f"http://127.0.0.1:{port}"


def test_a_reader_stops_when_up_is_killed(tmp_path: Path) -> None:
    up, errors, base = started(tmp_path, "up")
    try:
        wait_for(errors, "hindsight up:", up, 90)
        (reader,) = [p for p in answering(base, 2) if is_reader(p)]
        up.kill()
        up.wait(timeout=10)
        assert gone(reader, 15), "the reader outlived the `up` that started it"
        assert "is gone: stopping" in errors.read_text()
    finally:
        if up.poll() is None:
            up.kill()


def test_serve_starts_its_readers_too_and_stops_them(tmp_path: Path) -> None:
    serve, errors, base = started(tmp_path, "serve")
    try:
        pids = answering(base, 2)
        assert serve.pid in pids
        serve.send_signal(signal.SIGINT)
        assert serve.wait(timeout=30) == 0, errors.read_text()
        assert all(gone(p, 15) for p in pids)
        assert "Traceback" not in errors.read_text(), errors.read_text()
    finally:
        if serve.poll() is None:
            serve.kill()
