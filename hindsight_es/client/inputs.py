"""Caller input -> events: validation with messages that name the field, and stable turn ids."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID, uuid4

from pydantic import ValidationError

from hindsight_es.config import Settings
from hindsight_es.errors import InvalidInputError
from hindsight_es.events import Event, TurnRecorded
from hindsight_es.events.identity import turn_event_id
from hindsight_es.memory.trust import ROLE_SOURCE
from hindsight_es.text import control_character, first_error

__all__ = ["build", "check_agent", "check_text", "make_turn", "memory_uuid", "turn_event_id"]
E = TypeVar("E", bound=Event)
AGENT_ID = re.compile(r"^[\w.:@\-]{1,128}$")


def check_text(settings: Settings, text: Any, what: str = "text") -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"{what} is empty")
    if (problem := control_character(text)) is not None:
        raise InvalidInputError(f"{what}: {problem}")
    if len(text) > settings.max_text_chars:
        raise InvalidInputError(
            f"{what} of {len(text)} chars exceeds the limit of {settings.max_text_chars} (HINDSIGHT_MAX_TEXT_CHARS)"
        )
    return text


def check_agent(agent: str | None) -> str | None:
    if agent is not None and not AGENT_ID.match(agent):
        raise InvalidInputError(f"agent {agent!r} is not an agent id (letters, digits and . : @ - _)")
    return agent


def build(cls: type[E], **fields: Any) -> E:
    """An event from caller input; a validation failure is an ``InvalidInputError`` naming the field."""
    for name, value in fields.items():
        check_encodable(value, name)
    try:
        return cls(**fields)
    except ValidationError as exc:
        raise InvalidInputError(first_error(exc)) from exc


def check_encodable(value: Any, where: str) -> None:
    """Refuse text that cannot be written as UTF-8 (a lone surrogate such as ``"\\ud800"`` from JSON)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInputError(
                f"{where}: a lone surrogate (U+{ord(value[exc.start]):04X}) at character {exc.start} is not text"
            ) from None
    elif isinstance(value, dict):
        for key, item in value.items():
            check_encodable(key, f"{where} key")
            check_encodable(item, f"{where}.{key}" if isinstance(key, str) else where)
    elif isinstance(value, (list, tuple)):
        for item in value:
            check_encodable(item, where)


# How far ahead of this machine's clock a turn may be dated: clocks that disagree by minutes and a local time
# sent as UTC (at most 14 hours) stay within it; a date later than that is a mistake that would rank the turn
# as the newest word on everything (recency, "now" questions, supersession order) until that date.
FUTURE_SLACK = timedelta(days=1)


def make_turn(
    settings: Settings,
    bank_id: str,
    text: str,
    *,
    session_id: str = "default",
    turn_id: str | None = None,
    occurred_at: datetime | None = None,
    **fields: Any,
) -> TurnRecorded:
    """Validate and build a ``TurnRecorded``; raises ``InvalidInputError`` with the reason. Without a
    ``source`` (or with None), the turn's source is its role's (``trust.ROLE_SOURCE``)."""
    check_text(settings, text)
    for name, value in (("text", text), ("session_id", session_id), ("turn_id", turn_id), ("bank_id", bank_id)):
        check_encodable(value, name)
    turn_id = turn_id or str(uuid4())
    extra = {"occurred_at": occurred_at} if occurred_at is not None else {}
    if fields.get("source") is None:  # whose word it is follows who spoke, unless the caller says
        fields["source"] = ROLE_SOURCE.get(fields.get("role") or "user", "user")  # a bad role: build names it
    turn = build(
        TurnRecorded,
        event_id=turn_event_id(bank_id, session_id, turn_id),
        bank_id=bank_id,
        session_id=session_id,
        turn_id=turn_id,
        text=text,
        **extra,
        **fields,
    )
    if turn.occurred_at > (now := datetime.now(UTC)) + FUTURE_SLACK:
        raise InvalidInputError(
            f"occurred_at {turn.occurred_at.isoformat()} is more than a day ahead of this machine's clock "
            f"({now.isoformat(timespec='seconds')}): a turn cannot have been said yet (a local time given "
            "without its zone is read as UTC)"
        )
    return turn


def memory_uuid(value: str | UUID) -> UUID:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError as exc:
        raise InvalidInputError(f"{value!r} is not a memory id (a UUID, as recall returns it)") from exc
