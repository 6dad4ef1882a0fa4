"""Schemathesis against the OpenAPI document of a real ``hindsight-es up``: no 5xx, every answer fits the
document, and nothing is written to the log by a refused request.

Generated requests (valid ones and ones that break the schema) go to every operation with the
operator's token. "Nothing written" is read from the log itself (its SQLite file, read-only): the
turns and commands topics' ends before and after each refused request. Recall recording and the
janitor are off, so only the requests themselves append.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import positive_data_acceptance

from hindsight_es.client.inputs import FUTURE_SLACK
from tests.e2e.served import OPS, TOKENS, Up, running_up

EXAMPLES_PER_OPERATION = 6  # about 20 operations: over a hundred requests, generated afresh each run


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    quiet = {"HINDSIGHT_RECORD_RECALLS": "false", "HINDSIGHT_JANITOR_ENABLED": "false"}
    with running_up(tmp_path_factory.mktemp("http-fuzz"), tokens=TOKENS, **quiet) as up:
        yield up


def inputs_written(up: Up) -> int:
    """Records in the turns and commands topics (what a request may append), read from the log file."""
    with sqlite3.connect(f"file:{up.data / 'log.sqlite3'}?mode=ro", uri=True) as db:
        row = db.execute(
            "SELECT coalesce(sum(next_offset), 0) FROM ends WHERE topic IN ('hindsight.turns', 'hindsight.commands')"
        ).fetchone()
    return int(row[0])


def _unboundable_time(case: Any) -> bool:
    """A request whose times break a bound JSON Schema cannot state (``types.Time``, ``client.inputs``): a time
    outside years 2 to 9998 once converted to UTC (a schema can bound the year as written, not after its zone),
    or a turn's ``occurred_at`` more than a day ahead of now."""
    body = case.body if isinstance(case.body, dict) else {}
    values = [*body.items(), *(case.query or {}).items()]
    for name, value in values:
        try:
            when = datetime.fromisoformat(value) if isinstance(value, str) else None
            utc = when.astimezone(UTC) if when is not None and when.tzinfo is not None else None
        except (ValueError, OverflowError):
            return isinstance(value, str) and value[:1].isdigit()  # a zone that carries it out of datetime's range
        if utc is None:
            continue
        if not 2 <= utc.year <= 9998 or (name == "occurred_at" and utc > datetime.now(UTC) + FUTURE_SLACK):
            return True
    return False


def operations(up: Up) -> list[Any]:
    return [result.ok() for result in schemathesis.openapi.from_url(f"{up.base}/openapi.json").get_all_operations()]


@pytest.mark.parametrize("mode", [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE])
def test_the_api_answers_every_request_within_its_document(fuzzed: Up, mode: schemathesis.GenerationMode) -> None:
    """Each operation's generated requests, valid (positive) or not (negative)."""
    tried: dict[str, int] = {}
    for operation in operations(fuzzed):

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def check(case: Any) -> None:
            if isinstance(case.body, dict) and case.body.get("wait") and "timeout_s" in case.body:
                case.body["timeout_s"] = 2  # waiting for an input the actor answers with nothing lasts the time-out
            before = inputs_written(fuzzed)
            # A rollback's time range must run forwards (since < until), a time must lie in years 2 to 9998 in UTC
            # and a turn cannot be dated more than a day ahead of the server's clock: rules JSON Schema cannot
            # state, so a 400 or 422 for them is right and a schema-valid request may be refused there. Every
            # other check still runs.
            refusable = "/rollback" in case.operation.label or _unboundable_time(case)
            excluded = [positive_data_acceptance] if refusable else []
            response = case.call_and_validate(headers={"Authorization": f"Bearer {OPS}"}, excluded_checks=excluded)
            tried[case.operation.label] = tried.get(case.operation.label, 0) + 1
            if response.status_code >= 400:
                assert inputs_written(fuzzed) == before, f"{case.method} {case.formatted_path} was refused but wrote"

        check()
    assert len(tried) >= 20 and sum(tried.values()) >= 100, tried
