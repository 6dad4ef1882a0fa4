"""Reading turns from JSON lines: every bad line is reported with its number and skipped."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from hindsight_es.client import make_turn
from hindsight_es.config import Settings
from hindsight_es.errors import InvalidInputError
from hindsight_es.events import TurnRecorded

FIELDS = {
    "bank_id",
    "session_id",
    "turn_id",
    "text",
    "role",
    "speaker",
    "source",
    "trust",
    "occurred_at",
    "metadata",
    "actor",
    "owner",
    "scope",
}


def parse_line(settings: Settings, raw: bytes, *, bank: str | None, session: str) -> TurnRecorded:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"not UTF-8 ({exc.reason} at byte {exc.start})") from exc
    try:
        data: Any = json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"not JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError:
        raise InvalidInputError("JSON nested too deep") from None
    if not isinstance(data, dict):
        raise InvalidInputError("not a JSON object")
    unknown = set(data) - FIELDS
    if unknown:
        raise InvalidInputError(f"unknown fields {sorted(unknown)}; allowed: {sorted(FIELDS)}")
    bank_id = data.pop("bank_id", None) or bank
    if not bank_id:
        raise InvalidInputError("no bank_id (give one per line or --bank)")
    text = data.pop("text", None)
    if not isinstance(text, str):
        raise InvalidInputError("text must be a string")
    data.setdefault("session_id", session)
    return make_turn(settings, bank_id, text, **data)


def _no_constant(name: str) -> Any:
    raise InvalidInputError(f"{name} is not a JSON number (metadata values are finite numbers, text, booleans or null)")


def read_turns(
    settings: Settings, lines: Iterable[bytes], *, bank: str | None = None, session: str = "default"
) -> tuple[list[TurnRecorded], list[str]]:
    turns: list[TurnRecorded] = []
    problems: list[str] = []
    for number, raw in enumerate(lines, start=1):
        if number == 1:  # a byte order mark, as Notepad and Excel save UTF-8, opens the file, not the first turn
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        if not raw.strip():
            continue
        try:
            turns.append(parse_line(settings, raw.rstrip(b"\r\n"), bank=bank, session=session))
        except InvalidInputError as exc:
            problems.append(f"line {number}: {exc}")
        except Exception as exc:
            problems.append(f"line {number}: cannot be read ({type(exc).__name__}: {exc})")
    return turns, problems
