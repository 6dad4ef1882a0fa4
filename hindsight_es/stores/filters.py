"""The only place that writes LanceDB filters: every value reaches SQL through ``quote``.

A ``MemoryFilter`` names what a read wants (a bank, statuses, kinds, a time range, an agent, a script,
ids) and ``sql()`` turns it into the ``WHERE`` clause of a ``memories`` search; position rows (the
projection's tracking records, ``tracking.POSITION_BANK``) are never matched by a filter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from hindsight_es.stores.tracking import POSITION_BANK

ANY_AGENT = "*"  # no owner clause; an agent id sees its own and unowned memories, None only unowned ones
Range = tuple[datetime | None, datetime | None]


def quote(value: str) -> str:
    """A SQL string literal for LanceDB filters (the only escaping there is: a doubled quote)."""
    if not isinstance(value, str):
        raise TypeError(f"a filter value must be a str, not {type(value).__name__}")
    if "\x00" in value:
        raise ValueError("a filter value may not contain NUL")
    return "'" + value.replace("'", "''") + "'"


def one_of(column: str, values: Sequence[str]) -> str:
    """``column IN ('a', 'b')``; an empty list matches nothing."""
    if not values:
        return "false"
    return f"{column} IN ({', '.join(quote(v) for v in values)})"


def _timestamp(value: datetime) -> str:
    if value.tzinfo is None:
        raise ValueError("filter times must carry a zone")
    return f"timestamp {quote(value.isoformat())}"


def time_range(column: str, since: datetime | None, until: datetime | None) -> list[str]:
    """``since <= column < until``, each side only if given."""
    clauses = [] if since is None else [f"{column} >= {_timestamp(since)}"]
    return clauses + ([] if until is None else [f"{column} < {_timestamp(until)}"])


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """Which rows of the ``memories`` table a read wants; every field narrows it (ANDed)."""

    bank_id: str | None = None  # None: every bank
    statuses: Sequence[str] | None = ("active",)  # None: any status
    kinds: Sequence[str] | None = None
    since: datetime | None = None  # valid_from in [since, until)
    until: datetime | None = None
    within: Range | None = None  # a second range on valid_from, e.g. the one a query names
    agent: str | None = ANY_AGENT  # ANY_AGENT: no owner clause; None: unowned only; an id: its own and unowned
    script: str | None = None  # "cjk" | "latin"
    memory_ids: Sequence[str] | None = None
    session_id: str | None = None
    past_offset: int | None = None  # only rows last written by a memory event past this log offset
    trusted_only: bool = False  # only the owner's word and what the owner confirmed (``memory.trust``)

    def sql(self) -> str:
        parts = [f"bank_id != {quote(POSITION_BANK)}" if self.bank_id is None else f"bank_id = {quote(self.bank_id)}"]
        if self.statuses is not None:
            parts.append(one_of("status", self.statuses))
        if self.kinds:
            parts.append(one_of("kind", self.kinds))
        parts += time_range("valid_from", self.since, self.until)
        if self.within is not None:
            parts += time_range("valid_from", *self.within)
        if self.agent != ANY_AGENT:  # never another agent's private memories
            parts.append("owner IS NULL" if self.agent is None else f"(owner IS NULL OR owner = {quote(self.agent)})")
        if self.script is not None:
            parts.append(f"script = {quote(self.script)}")
        if self.memory_ids is not None:
            parts.append(one_of("memory_id", self.memory_ids))
        if self.session_id is not None:
            parts.append(f"session_id = {quote(self.session_id)}")
        if self.past_offset is not None:
            parts.append(f"offset > {int(self.past_offset)}")
        if self.trusted_only:  # rows from before provenance: a user source was the owner
            parts.append("(confirmed = true OR provenance = 'user' OR (provenance IS NULL AND source = 'user'))")
        return " AND ".join(parts)


@dataclass(frozen=True, slots=True)
class TurnFilter:
    """Which rows of the ``turns`` table (working memory) a read wants."""

    bank_id: str | None = None
    session_id: str | None = None

    def sql(self) -> str:
        parts = [f"bank_id != {quote(POSITION_BANK)}" if self.bank_id is None else f"bank_id = {quote(self.bank_id)}"]
        if self.session_id is not None:
            parts.append(f"session_id = {quote(self.session_id)}")
        return " AND ".join(parts)
