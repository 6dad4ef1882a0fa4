"""How the command line reads a time (``--since``, ``--until``, ``--as-of``, ``--at``): the one parser.

The rule: ISO 8601, to the day, minute or second; a time without a zone is in this machine's zone, the one
the tables print (``shown``: ``2026-12-06 18:16 CST``), so a time copied from a table means what it said.
A zone is an offset (``+08:00``, ``Z``) or, after a space, a name the tables print: this machine's zone's
abbreviation, or ``UTC`` / ``GMT``. Other abbreviations are refused, not guessed: ``CST`` is China's,
the US's and Cuba's, so only the local one is unambiguous.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone

import typer

FORMS = "ISO 8601 such as 2026-12-06, '2026-12-06 18:16', 2026-12-06T18:16:00+08:00 or ...Z"
HELP = "without a zone: local time, as the tables print it"
# How far past this machine's clock a time that events are dated with may be (clocks of two hosts differ).
CLOCK_SKEW = timedelta(minutes=1)


def local_zones() -> dict[str, timezone]:
    """This machine's zone abbreviations (standard, and summer time where it has one) with their offsets."""
    zones = {time.tzname[0]: timezone(timedelta(seconds=-time.timezone), time.tzname[0])}
    if time.daylight:
        zones.setdefault(time.tzname[1], timezone(timedelta(seconds=-time.altzone), time.tzname[1]))
    return zones


def read_time(value: str) -> datetime:
    """``value`` as an aware time under the rule above; ``ValueError`` naming the accepted forms."""
    zones = local_zones()
    text, name = value.strip(), None
    head, _, tail = text.rpartition(" ")
    if head and (tail.isalpha() or tail in zones):  # "2026-12-06 18:16 CST" (or "... +0545", a zone's name)
        text, name = head.strip(), tail
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        parsed = None
    if parsed is None or (name is not None and parsed.tzinfo is not None):
        raise ValueError(_refusal(value, zones))
    if name is None:
        return parsed if parsed.tzinfo else parsed.astimezone()  # naive: local time, as ``shown`` prints
    if name.upper() in ("UTC", "GMT", "Z"):
        return parsed.replace(tzinfo=UTC)
    if name not in zones:
        raise ValueError(_refusal(value, zones))
    local = parsed.astimezone()
    # The abbreviation in force at that moment (CEST in summer): local time. The other one of the pair
    # (CET written for a summer day) fixes its own offset, as a reader of that name means.
    return local if local.tzname() == name else parsed.replace(tzinfo=zones[name])


def _refusal(value: str, zones: dict[str, timezone]) -> str:
    names = " / ".join(dict.fromkeys([*zones, "UTC"]))
    return f"{value!r} is not a time: give {FORMS}, optionally followed by a zone name ({names}); {HELP}"


def parse_when(value: str | None, option: str) -> datetime | None:
    """A CLI time option's value (``read_time``) in UTC, as the events' times are; a bad one is a usage error
    naming the option."""
    if value is None:
        return None
    try:
        return read_time(value).astimezone(UTC)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint=option) from None


def parse_past(value: str | None, option: str) -> datetime | None:
    """``parse_when`` for a time the command dates events with (``janitor --at``): a later time than now is a
    usage error. Events dated in the future would change the state "as of now" after the fact (``replay
    state --as-of`` now would differ from the live state), and what they decide has not happened yet."""
    when = parse_when(value, option)
    if when is not None and when > datetime.now(UTC) + CLOCK_SKEW:
        raise typer.BadParameter(
            f"{value!r} is in the future: events are dated when they happen, give now or an earlier time",
            param_hint=option,
        )
    return when


__all__ = ["CLOCK_SKEW", "FORMS", "HELP", "local_zones", "parse_past", "parse_when", "read_time"]
