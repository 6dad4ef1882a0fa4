"""How the dashboard shows and reads times: shown with their zone, read as ISO 8601 (UTC when a browser's
``datetime-local`` field gives none, as the pages say)."""

from __future__ import annotations

from datetime import UTC, datetime

from hindsight_es.errors import InvalidInputError


def when(value: datetime | str | None) -> str:
    """A time with its zone, to the second (stored times are UTC): two events of one minute, such as a memory
    and the one that superseded it, must not read the same. The year has its four digits (year 1 too)."""
    if value is None:
        return "–"
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return f"{moment.year:04d}-" + moment.strftime("%m-%d %H:%M:%S %Z")


def parse_time(value: str | None, field: str) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInputError(f"{field}: {value!r} is not a time (ISO 8601)") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
