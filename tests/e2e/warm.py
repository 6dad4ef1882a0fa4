"""One-shot ``hindsight-es`` commands in fresh processes forked from a warm interpreter.

A command run as ``python -m hindsight_es.app.cli.main`` spends some 2.5 of its 3.5 s importing lancedb, fastembed,
aiokafka, duckdb and the package itself (docs/benchmarks.md, "Start-up"); the end-to-end tests start several hundred
of them. Here each pytest worker starts one server process that imports those modules once, runs nothing, and forks
a child per command: the child is a new process (its own pid, stdio, working directory, environment and exit code,
killed on a time-out) that runs the command module as ``__main__``, as ``-m`` would, and leaves through the
interpreter's own shutdown steps (non-daemon threads joined, atexit handlers run, stdio flushed).

What this does not cover, the tests that start ``up``, ``serve``, ``worker`` and ``mcp`` with ``subprocess`` do
(a fresh interpreter each), and ``HINDSIGHT_TEST_FRESH_CLI=1`` runs every command in a fresh interpreter instead.
Only modules are loaded before the fork, never a model, a store or a connection: lancedb resets its runtime in a
forked child (it warns so; the server silences that warning), onnxruntime sessions are created after the fork.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
MODULE = "hindsight_es.app.cli.main"
# what the commands import on their way; a module missing here is imported in the child, only slower
PRELOAD = (
    MODULE,
    "hindsight_es.stores",
    "hindsight_es.client.browse",
    "hindsight_es.recall.context",
    "hindsight_es.app.cli.erase",
    "fastembed",
    "aiokafka",
    "duckdb",
)


# ------------------------------------------------------------------ the server (its own process)


def _child(argv: list[str], env: dict[str, str], cwd: str) -> int:
    """Run the command as ``python -m`` would, in this forked process; its exit code."""
    import runpy

    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    time.tzset()  # a fresh interpreter reads TZ at its start; the C library cached the server's
    for fd, name, mode in ((0, "stdin", "r"), (1, "stdout", "w"), (2, "stderr", "w")):
        errors = "backslashreplace" if name == "stderr" else "strict"
        stream = open(fd, mode, encoding="utf-8", errors=errors, closefd=False)  # noqa: SIM115
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    sys.argv = [MODULE, *argv]
    code: int = 0
    try:
        runpy.run_module(MODULE, run_name="__main__", alter_sys=True)
    except SystemExit as exit_:
        if exit_.code is None:
            code = 0
        elif isinstance(exit_.code, int):
            code = exit_.code
        else:
            print(exit_.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    # the interpreter's shutdown: wait for non-daemon threads, then atexit, then flush
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    return code


def serve(path: str) -> None:
    import importlib
    import warnings

    warnings.filterwarnings("ignore", message=".*fork support is experimental.*")
    for name in PRELOAD:
        importlib.import_module(name)
    # what it imported stays; the module itself is run as __main__ in each child, as `-m` runs it
    del sys.modules[MODULE]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the path appears once the server accepts
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    running: dict[int, socket.socket] = {}
    parent = os.getppid()
    while os.getppid() == parent:  # the pytest worker that started it is alive
        for _key, _ in selector.select(timeout=0.02):
            conn, _addr = listener.accept()
            message, fds, _flags, _ = socket.recv_fds(conn, 1 << 20, 3)
            request = json.loads(message)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                selector.close()
                listener.close()
                conn.close()
                for other in running.values():
                    other.close()
                for target, fd in enumerate(fds):
                    os.dup2(fd, target)
                    os.close(fd)
                code = 1
                try:
                    code = _child(request["argv"], request["env"], request["cwd"])
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(code)  # never back into this loop
            for fd in fds:
                os.close(fd)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            running[pid] = conn
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            conn = running.pop(pid)
            with contextlib.suppress(OSError):  # the caller gave up (a time-out) and closed its end
                conn.sendall(json.dumps({"code": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
            conn.close()


# ------------------------------------------------------------------ the client (in the pytest worker)

_lock = threading.Lock()
_server: dict[str, Any] = {}


def _socket_path() -> str:
    with _lock:
        proc = _server.get("proc")
        if proc is not None and proc.poll() is None:
            return str(_server["path"])
        root = tempfile.mkdtemp(prefix="hs-warm-")
        path = os.path.join(root, "s")
        env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
        log = open(os.path.join(root, "server.log"), "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.e2e.warm", path],
            env=env,
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
        atexit.register(proc.kill)
        deadline = time.monotonic() + 120
        while not os.path.exists(path):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the warm CLI server did not start: {Path(root, 'server.log').read_text()}")
            time.sleep(0.05)
        _server.update(proc=proc, path=path)
        return path


def _read_line(conn: socket.socket, deadline: float) -> dict[str, Any] | None:
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        conn.settimeout(left)
        try:
            chunk = conn.recv(4096)
        except TimeoutError:
            return None
        if not chunk:
            raise RuntimeError("the warm CLI server closed the connection")
        data += chunk
    result: dict[str, Any] = json.loads(data)
    return result


def run(
    argv: list[str], *, env: dict[str, str], cwd: Path, input: bytes | None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """Like ``subprocess.run([python, -m, MODULE, *argv], capture_output=True)``: stdout, stderr, exit code."""
    args = [sys.executable, "-m", MODULE, *argv]
    if not cwd.is_dir():  # as subprocess says it
        raise FileNotFoundError(2, "No such file or directory", str(cwd))
    with tempfile.TemporaryFile() as stdin, tempfile.TemporaryFile() as stdout, tempfile.TemporaryFile() as stderr:
        stdin.write(input or b"")
        stdin.seek(0)
        deadline = time.monotonic() + timeout
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(_socket_path())
            request = json.dumps({"argv": argv, "env": env, "cwd": str(cwd)}).encode()
            socket.send_fds(conn, [request], [stdin.fileno(), stdout.fileno(), stderr.fileno()])
            started = _read_line(conn, time.monotonic() + 60)
            if started is None:
                raise RuntimeError("the warm CLI server did not fork within 60 s")
            ended = _read_line(conn, deadline)
            if ended is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(started["pid"], signal.SIGKILL)
                raise subprocess.TimeoutExpired(args, timeout)
        stdout.seek(0)
        stderr.seek(0)
        return subprocess.CompletedProcess(args, ended["code"], stdout.read().decode(), stderr.read().decode())


if __name__ == "__main__":
    serve(sys.argv[1])
