"""Memory and CPU of a system's processes: its server process, every child (a drain subprocess), and
the processes it reports (a database server, an API server), each with all of its children.

RSS counts a page shared by several processes (PostgreSQL's shared buffers, a forked child's copy of
its parent) once per process; PSS divides each shared page between the processes sharing it, so the
PSS sum is what the system costs the machine. Both are reported.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import psutil


def processes(roots: list[int]) -> list[psutil.Process]:
    seen: dict[int, psutil.Process] = {}
    for pid in roots:
        try:
            root = psutil.Process(pid)
            for p in [root, *root.children(recursive=True)]:
                seen.setdefault(p.pid, p)
        except psutil.NoSuchProcess:
            continue
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class Memory:
    rss: int
    pss: int
    count: int


def memory(roots: list[int]) -> Memory:
    rss = pss = n = 0
    for p in processes(roots):
        try:
            info = p.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
        n += 1
    return Memory(rss, pss, n)


def cpu_seconds(roots: list[int]) -> float:
    """User + system CPU of the live processes (children that exited and were waited for included)."""
    total = 0.0
    for p in processes(roots):
        try:
            t = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


class PeakSampler:
    """Samples the RSS sum of ``roots`` every ``interval`` s in a thread; ``peak`` is the highest seen."""

    def __init__(self, roots: list[int], interval: float = 0.5) -> None:
        self.roots, self.interval = roots, interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            total = 0
            for p in processes(self.roots):
                try:
                    total += p.memory_info().rss
                except psutil.NoSuchProcess:
                    continue
            self.peak = max(self.peak, total)
            self._stop.wait(self.interval)

    def __enter__(self) -> PeakSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
