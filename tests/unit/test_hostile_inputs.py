"""Hostile caller input is refused with a reason (``InvalidInputError``), never a raw Python error:
times that overflow UTC or sit at the calendar's edge, lone surrogates, numbers given as times, NaN."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import BaseModel, ValidationError

from hindsight_es.app.cli.jsonl import read_turns
from hindsight_es.client import make_turn
from hindsight_es.config import Settings
from hindsight_es.errors import InvalidInputError
from hindsight_es.remote.requests import RecallRequest, RetainRequest

SETTINGS = Settings()


@pytest.mark.parametrize(
    "when",
    [
        datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))),  # overflows on conversion to UTC
        datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-1))),
        datetime(1, 1, 1, tzinfo=UTC),  # no headroom left for arithmetic on it
    ],
)
def test_boundary_times_are_refused_with_a_reason(when: datetime) -> None:
    with pytest.raises(InvalidInputError, match="occurred_at.*out of range"):
        make_turn(SETTINGS, "b", "hello", occurred_at=when)


def test_a_turn_dated_after_tomorrow_is_refused_and_one_a_few_hours_ahead_is_kept() -> None:
    """A retain dated 2030 was stored as said then: the newest word on everything until that date. Clocks that
    disagree, and a local time sent as UTC, stay within a day."""
    with pytest.raises(InvalidInputError, match="occurred_at 2030-01-01.*ahead of this machine's clock"):
        make_turn(SETTINGS, "b", "hello", occurred_at=datetime(2030, 1, 1, tzinfo=UTC))
    with pytest.raises(InvalidInputError, match="ahead of this machine's clock"):
        make_turn(SETTINGS, "b", "hello", occurred_at="2999-06-01T10:00:00+08:00")  # as JSON gives it
    soon = datetime.now(UTC) + timedelta(hours=14)
    assert make_turn(SETTINGS, "b", "hello", occurred_at=soon).occurred_at == soon


@pytest.mark.parametrize("field", ["text", "turn_id", "session_id", "speaker"])
def test_a_lone_surrogate_is_refused_naming_the_field(field: str) -> None:
    fields = {"text": "hello", field: "bad \ud800"}
    text = fields.pop("text")
    with pytest.raises(InvalidInputError, match=f"{field}.*surrogate"):
        make_turn(SETTINGS, "b", text, **fields)


def test_nan_metadata_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="metadata"):
        make_turn(SETTINGS, "b", "hello", metadata={"score": math.nan})


def test_every_bad_line_is_reported_by_number_and_the_good_ones_kept() -> None:
    lines = [
        b'{"text": "good one", "turn_id": "g1"}',
        b'{"text": "x", "occurred_at": "0001-01-01T00:00:00+01:00"}',
        b'{"text": "bad \\ud800"}',
        b'{"text": "ok", "turn_id": "t\\udfff"}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"text": "x", "occurred_at": 12345}',
        b'{"text": "x", "metadata": {"a": NaN}}',
        b'{"text": "x", "metadata": {"a": Infinity}}',
        b'{"text": "x", "occurred_at": "9999-12-31T23:59:59-01:00"}',
        b'{"text": "good two", "turn_id": "g2", "occurred_at": "2026-03-01T09:00:00+01:00"}',
    ]
    turns, problems = read_turns(SETTINGS, lines, bank="b")
    assert [t.turn_id for t in turns] == ["g1", "g2"]
    assert turns[1].occurred_at == datetime(2026, 3, 1, 8, tzinfo=UTC)
    assert [p.split(":")[0] for p in problems] == [f"line {n}" for n in range(2, 10)]
    joined = "\n".join(problems)
    for expected in ("out of range", "surrogate", "nested too deep", "not a number", "NaN"):
        assert expected in joined, (expected, joined)


def test_a_byte_order_mark_opening_the_file_is_no_bad_line() -> None:
    """Found on a tour: a JSONL file saved as UTF-8 with a BOM (Windows Notepad, Excel) lost its first turn,
    "not JSON: Unexpected UTF-8 BOM", and publish exited 2. A BOM anywhere else is still the line's own."""
    lines = [b'\xef\xbb\xbf{"text": "I live in Porto.", "turn_id": "a"}\r\n', b'\xef\xbb\xbf{"text": "x"}\r\n']
    turns, problems = read_turns(SETTINGS, lines, bank="b")
    assert [(t.turn_id, t.text) for t in turns] == [("a", "I live in Porto.")]
    assert len(problems) == 1 and problems[0].startswith("line 2: not JSON")


class _Strict(BaseModel):
    body: RetainRequest


@pytest.mark.parametrize(
    ("model", "body", "field"),
    [
        (RetainRequest, {"text": "hi", "explicit": 1}, "explicit"),
        (RetainRequest, {"text": "hi", "wait": "yes"}, "wait"),
        (RetainRequest, {"text": "hi", "occurred_at": 12345}, "occurred_at"),
        (RetainRequest, {"text": "hi", "occurred_at": "0001-01-01T00:00:00+01:00"}, "occurred_at"),
        (RecallRequest, {"query": "hi", "since": 1.5}, "since"),
        (RecallRequest, {"query": "hi", "include_archived": 1}, "include_archived"),
    ],
)
def test_http_bodies_do_not_coerce_numbers_to_times_or_booleans(model: type[BaseModel], body: dict, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(body)
    assert caught.value.errors()[0]["loc"][0] == field
    with pytest.raises(ValidationError):  # the JSON path (what the HTTP API parses) too
        model.model_validate_json(__import__("json").dumps(body))


def test_the_http_client_refuses_a_boundary_time_as_invalid_input_before_sending() -> None:
    from hindsight_es.remote import calls

    with pytest.raises(InvalidInputError, match="occurred_at.*out of range"):
        calls.retain("b", "hello", occurred_at=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=1))))
    with pytest.raises(InvalidInputError, match="explicit"):
        calls.retain("b", "hello", explicit=1)
