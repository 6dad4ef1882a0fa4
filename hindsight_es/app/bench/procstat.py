"""A process's own figures from /proc, for benchmarks that time a fresh process: its age and peak RSS.

Kept apart from the bench commands so a fresh process can read them without importing the CLI."""

from __future__ import annotations

import os
from pathlib import Path


def peak_rss_mb() -> float:
    """This process's peak resident memory since it started (exec'd).

    ``VmHWM`` from /proc where there is one: ``getrusage``'s ``ru_maxrss`` keeps the peak of the process
    image an exec replaced, so a server started by ``bench recall`` right after building a 100k bank
    reported the builder's 2.4 GB (forked, then exec'd) instead of its own ~0.9 GB.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource  # POSIX only

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def process_age_s() -> float:
    """Seconds since this process started (its start time in /proc, in clock ticks since boot)."""
    stat = Path("/proc/self/stat").read_text()
    start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


__all__ = ["peak_rss_mb", "process_age_s"]
