"""A data directory this process may not write (a backup on read-only media, a mount without write
permission): every command of ``common.READS`` answers from it and writes nothing into it; a command that
writes is one line naming the directory, exit code 2, no traceback.

Root writes through any permission, so as root the directory is made read-only by a read-only bind mount
(the test is skipped where root may not mount); as any other user, by taking its write permissions away.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hindsight_es.app.cli.common import READS
from tests.e2e.test_cli import cli, flat, no_traceback


@contextlib.contextmanager
def read_only(directory: Path) -> Iterator[None]:
    """``directory`` read-only for the block, for this process and the CLI runs it starts."""
    if os.geteuid() == 0:
        mounted = subprocess.run(["mount", "--bind", "-o", "ro", directory, directory], capture_output=True)
        if mounted.returncode != 0:
            pytest.skip(f"root may not bind-mount read-only here: {mounted.stderr.decode().strip()}")
        try:
            yield
        finally:
            subprocess.run(["umount", directory], check=True)
        return
    paths = [directory, *directory.rglob("*")]
    modes = {p: p.stat().st_mode for p in paths}
    for p in paths:
        p.chmod(modes[p] & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    try:
        yield
    finally:
        for p in reversed(paths):
            p.chmod(modes[p])


def snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    """Every file and directory under ``directory`` with its size and modification time."""
    return {str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns) for p in directory.rglob("*")}


def test_a_read_only_data_directory_is_read_by_every_read_command_and_refused_by_writers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert cli(data, "demo").returncode == 0
    found = cli(data, "recall", "demo", "database", "--json")
    memory = json.loads(found.stdout)["hits"][0]["memory_id"]
    export = tmp_path / "demo.jsonl"
    reads = {
        "stats": ["stats", "--json"],
        "recall": ["recall", "demo", "database", "--json"],
        "history": ["history", memory],
        "replay audit": ["replay", "audit", memory],
        "replay state": ["replay", "state", "demo"],
        "replay export": ["replay", "export", "demo", str(export)],
        "replay verify": ["replay", "verify"],
        "quarantine list": ["quarantine", "list"],
        "disputes list": ["disputes", "list"],
        "owners show": ["owners", "show", "demo"],
    }
    assert sorted(reads) == sorted(READS)  # a command added to READS is run here too
    before = snapshot(data)
    with read_only(data):
        answers = {}
        for name, args in reads.items():
            answers[name] = proc = cli(data, *args)
            no_traceback(proc)
            assert proc.returncode == 0, f"{name}: {proc.stderr}"
        assert json.loads(answers["recall"].stdout)["hits"][0]["memory_id"] == memory
        assert "verified" in answers["replay verify"].stdout
        assert len(export.read_text().splitlines()) > 11  # the demo's 11 turns and their memories
        for args in (["publish", "--text", "hi", "--bank", "demo"], ["up"], ["replay", "gc"]):
            proc = cli(data, *args)
            no_traceback(proc)
            assert proc.returncode == 2, proc.stderr
            assert proc.stderr.count("\n") == 1, proc.stderr
            assert f"the data directory {data} is read-only" in flat(proc.stderr), proc.stderr
            assert f"cannot run `{' '.join(args[:2] if args[0] == 'replay' else args[:1])}`" in proc.stderr
        assert snapshot(data) == before  # nothing written, created or removed
