"""The warm runner of one-shot commands (tests/e2e/warm.py) answers as a fresh interpreter does."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e import test_cli
from tests.e2e.test_cli import cli


def fresh(data: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    os.environ["HINDSIGHT_TEST_FRESH_CLI"] = "1"
    try:
        return cli(data, *args, **extra)
    finally:
        del os.environ["HINDSIGHT_TEST_FRESH_CLI"]


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (("--help",), {}),
        (("publish", "--text", "I live in Berlin", "--bank", "alice"), {"HINDSIGHT_PARTITIONS": "abc"}),  # exit 2
        (("recall", "nobody", "where"), {}),  # exit 1: an unknown bank
        (("publish", "--text", "I live in Berlin", "--bank", "alice"), {"TZ": "Asia/Shanghai"}),
        (("replay", "state", "--bank", "alice", "--as-of", "2030-01-01 08:00"), {"TZ": "Asia/Shanghai"}),
    ],
)
def test_a_warm_command_prints_and_exits_as_a_fresh_one(tmp_path: Path, args: tuple[str, ...], extra: dict) -> None:
    warm_data, fresh_data = tmp_path / "warm" / "data", tmp_path / "fresh" / "data"
    for data in (warm_data, fresh_data):
        data.parent.mkdir()
    if args[0] == "replay":  # something to show, the same in both
        for data in (warm_data, fresh_data):
            assert cli(data, "publish", "--text", "I live in Berlin", "--bank", "alice").returncode == 0
    warm, cold = cli(warm_data, *args, **extra), fresh(fresh_data, *args, **extra)
    assert warm.returncode == cold.returncode, (warm.stderr, cold.stderr)
    if args[0] == "replay":  # the ids differ between the two stores; the local time of "as of" must not
        assert "as of 2030-01-01 08:00:00 CST: 2 memories" in test_cli.flat(warm.stdout)
        assert "as of 2030-01-01 08:00:00 CST: 2 memories" in test_cli.flat(cold.stdout)
        return
    assert warm.stdout.replace(str(warm_data), "<data>") == cold.stdout.replace(str(fresh_data), "<data>")
    assert warm.stderr.replace(str(warm_data), "<data>") == cold.stderr.replace(str(fresh_data), "<data>")
