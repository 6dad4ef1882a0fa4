"""Small shared aliases and the constrained strings used across events and stores."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, AwareDatetime, BeforeValidator, StringConstraints

TopicPartition = tuple[str, int]
Vector = np.ndarray | Sequence[float]  # a query vector: an embedder's float32 array, or plain floats
RESERVED_BANK = "__positions__"  # the stores' tracking rows use it (``stores.tracking``): no bank may


def _not_reserved(bank_id: str) -> str:
    if bank_id == RESERVED_BANK:
        raise ValueError(f"{RESERVED_BANK!r} is reserved")
    return bank_id


# Times keep a year of headroom at either end of the calendar, so arithmetic on them (a window, a
# half-life) never overflows; within that, any instant that converts to UTC is accepted.
EARLIEST = datetime(2, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 12, 31, tzinfo=UTC) - timedelta(days=366)


def _time_not_number(value: Any) -> Any:
    """Refuse what pydantic would read as seconds since 1970: a number, or text that is one ("1.5")."""
    number = isinstance(value, (bool, int, float))
    # ``float`` never accepts a ':', which every ISO time with a zone holds: no failed parse (a raised and
    # caught ValueError, the most of a time's validation) for the times of every decoded event.
    if isinstance(value, str) and ":" not in value:
        try:
            float(value)
            number = True
        except ValueError:
            pass
    if number:
        raise ValueError("a time is ISO 8601 text with a zone (2026-03-01T09:00:00+01:00), not a number")
    return value


def in_range(value: datetime) -> datetime:
    """``value`` unchanged if it converts to UTC within [EARLIEST, LATEST]; else ``ValueError`` saying so."""
    try:
        utc = value.astimezone(UTC)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc <= LATEST:
        raise ValueError(f"{value.isoformat()} is out of range: times are between years 2 and 9998 (UTC)")
    return value


# A time given by a caller: ISO 8601 text with a zone (or a datetime), never a number, within range.
Time = Annotated[AwareDatetime, BeforeValidator(_time_not_number), AfterValidator(in_range)]

BankId = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[\w.:@\-]+$"), AfterValidator(_not_reserved)
]
SessionId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
TurnId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
# An agent that owns private memories in a bank (never "*", which means "every agent" in filters).
AgentId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[\w.:@\-]+$")]

Role = Literal["user", "assistant", "system", "tool"]
Source = Literal["user", "assistant", "tool", "document"]
Trust = Literal["trusted", "normal", "untrusted"]
Scope = Literal["global", "session", "task"]
# Whose word a memory is: the bank's owner ("user"), another user of a shared bank, the assistant, a
# tool, a document. Derived from the turn's authenticated principal and its relation to the bank.
Provenance = Literal["user", "other_user", "assistant", "tool", "document"]
MemoryKind = Literal["episode", "fact", "preference", "plan", "decision", "correction", "constraint", "summary"]

# Default trust of each source: what a user says beats what a tool or a retrieved document says.
DEFAULT_TRUST: dict[str, Trust] = {
    "user": "trusted",
    "assistant": "normal",
    "tool": "untrusted",
    "document": "untrusted",
}
