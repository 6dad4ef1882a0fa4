"""`--broker` pointed at something that is not Kafka, as an operator mistypes it: every command says, in one
line and at once, which address it tried and what answers there, instead of "the log did not start"."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_cli import cli, flat, no_traceback
from tests.log.test_kafka_probe import serving_http


@pytest.fixture
def web_server() -> Iterator[str]:
    with serving_http() as address:
        yield address


@pytest.mark.parametrize(
    "argv",  # recall reads the stores, not the log: test_cli_broker_down
    [("replay", "state", "--bank", "acme"), ("publish", "--bank", "acme", "--text", "hi"), ("worker",)],
)
def test_a_web_server_given_as_the_broker_is_named_with_the_likely_cause(
    tmp_path: Path,
    web_server: str,
    argv: tuple[str, ...],
) -> None:
    started = time.monotonic()
    # The time-out is set far above the bound asserted below, so a loaded machine's slow start-up (11.7 s once
    # on CI, against a 10 s default) cannot pass for waiting on it, nor a wait pass for a slow start-up.
    proc = cli(tmp_path / "data", "--broker", web_server, *argv, timeout=300, HINDSIGHT_REQUEST_TIMEOUT_S="120")
    elapsed = time.monotonic() - started
    assert proc.returncode not in (0, 2), proc.stderr
    no_traceback(proc)
    said = flat(proc.stderr)
    assert f"cannot reach the Kafka broker at '{web_server}'" in said and "answers HTTP" in said, said
    assert "did not start within" not in said
    assert elapsed < 60, elapsed  # it did not wait for the 120 s time-out
