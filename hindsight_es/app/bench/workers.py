"""Worker processes for the scale-out benchmarks: ``hindsight-es worker`` started, pinned, killed (-9),
restarted and stopped, each with its own data directory, all on one broker and one set of stores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from hindsight_es.config import Settings

# The settings a worker inherits from the bench's own (the broker, the stores, the model, the timeouts).
INHERITED = (
    "broker",
    "partitions",
    "embedder",
    "stores_uri",
    "s3_endpoint",
    "s3_region",
    "s3_access_key_id",
    "s3_secret_access_key",
    "s3_allow_http",
    "seal_content",
    "kafka_session_timeout_ms",
    "kafka_heartbeat_interval_ms",
    "kafka_fetch_max_wait_ms",
    "poll_max_records",
    "snapshot_every",
    "traces",
)


class Workers:
    def __init__(self, settings: Settings, root: Path, *, pin: bool = False) -> None:
        self.settings, self.root, self.pin = settings, root, pin
        self.procs: dict[int, subprocess.Popen[bytes]] = {}

    def env(self, i: int) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
        for name in INHERITED:
            value = getattr(self.settings, name)
            if value is not None:
                env[f"HINDSIGHT_{name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
        env.update(
            HINDSIGHT_DATA_DIR=str(self.root / f"worker-{i}"),
            HINDSIGHT_JANITOR_ENABLED="false",
            HINDSIGHT_LOG_LEVEL="WARNING",
            HINDSIGHT_RECORD_RECALLS="false",
        )
        return env

    def start(self, i: int) -> None:
        out = open(self.root / f"worker-{i}.log", "ab")  # noqa: SIM115 - the process holds it
        argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "worker"]
        proc = subprocess.Popen(argv, env=self.env(i), stdout=out, stderr=out)
        if self.pin:  # one core each (os.sched_setaffinity), so N workers get N cores and no more
            cores = sorted(os.sched_getaffinity(0))
            os.sched_setaffinity(proc.pid, {cores[i % len(cores)]})
        self.procs[i] = proc

    def kill(self, i: int) -> None:
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait(10)

    def alive(self) -> list[int]:
        return [i for i, p in self.procs.items() if p.poll() is None]

    def rss_mb(self) -> dict[int, float]:
        """Resident memory of each live worker (from /proc)."""
        out = {}
        for i in self.alive():
            try:
                status = Path(f"/proc/{self.procs[i].pid}/status").read_text()
            except OSError:
                continue
            kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
            out[i] = kb / 1024
        return out

    def cpu_s(self) -> dict[int, float]:
        """CPU seconds (user + system) each live worker has used so far (from /proc)."""
        return {i: used for i in self.alive() if (used := cpu_s(self.procs[i].pid)) is not None}

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)


def cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system, every thread) of a live process, from /proc; None where there is none."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14, 15 of stat(5)
