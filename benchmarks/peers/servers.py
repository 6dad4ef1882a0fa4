"""The driver's side of a system's server: start it in its own process, feed it, ask it, stop it."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks.peers.corpus import Memory
from benchmarks.peers.postgres import free_port

REPO = Path(__file__).resolve().parents[2]
INGEST_CHUNK = 500


@dataclass
class Server:
    system: str
    data_dir: Path
    options: dict[str, Any] = field(default_factory=dict)
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 600) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        log = open(self.data_dir.parent / f"{self.system}.server.log", "ab")  # noqa: SIM115 - lives with the server
        cmd = [sys.executable, "-m", "benchmarks.peers.server", "--system", self.system]
        cmd += ["--data", str(self.data_dir), "--port", str(self.port), "--options", json.dumps(self.options)]
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=log)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        line = self.proc.stdout.readline().decode()
        if "READY" not in line or time.monotonic() > deadline:
            self.stop()
            raise RuntimeError(f"{self.system} server did not start; see {log.name}")
        stdout = self.proc.stdout
        threading.Thread(target=lambda: [None for _ in stdout], daemon=True).start()  # never let the pipe fill
        self.http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(3600.0))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ingest(self, bank: str, memories: list[Memory]) -> float:
        """Send every memory in chunks (the last one makes them searchable); seconds, wall clock."""
        t0 = time.perf_counter()
        for start in range(0, len(memories), INGEST_CHUNK):
            chunk = memories[start : start + INGEST_CHUNK]
            turns = [{"dia_id": m.id, "text": m.text, "time": m.time.isoformat(), "session": m.session} for m in chunk]
            more = start + INGEST_CHUNK < len(memories)
            r = self.http.post("/ingest", json={"conversation_id": bank, "turns": turns, "more": more})
            r.raise_for_status()
        return time.perf_counter() - t0

    def query(self, bank: str, question: str, k: int) -> list[str]:
        r = self.http.post("/query", json={"conversation_id": bank, "question": question, "k": k})
        r.raise_for_status()
        return list(r.json()["dia_ids"])

    def stats(self) -> dict[str, Any]:
        r = self.http.get("/stats")
        r.raise_for_status()
        data: dict[str, Any] = r.json()
        return data

    def roots(self) -> list[int]:
        """The server process and the processes it reports (their children are found by ``measure``)."""
        own = [self.proc.pid] if self.proc is not None else []
        return own + list(self.stats()["pids"])

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()  # uvicorn shuts down: the adapter closes its database and API server
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
