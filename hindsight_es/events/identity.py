"""Stable ids of inputs: the same input published twice (or redelivered) has the same event id.

A client names each turn (bank, session, turn id), so its id is derived from that name. A record from
a foreign producer may carry no ``event_id`` at all: ``stable_id`` derives one from what it does carry,
so every decode of that record gives the same id and the bank actor decides it once.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid5

_TURN_NS = uuid5(NAMESPACE_URL, "https://hindsight.local/turns")
_CONTENT_NS = uuid5(NAMESPACE_URL, "https://hindsight.local/content")


def turn_event_id(bank_id: str, session_id: str, turn_id: str) -> UUID:
    """Stable id of a turn, so publishing the same turn twice is decided once."""
    return uuid5(_TURN_NS, f"{bank_id}/{session_id}/{turn_id}")


def stable_id(record: dict[str, Any]) -> UUID | None:
    """The id of a decoded record without one: a turn's from its name, anything else's from its content
    (canonical JSON). None when a turn lacks the fields of its name (validation then names them)."""
    if record.get("type") == "TurnRecorded":
        bank, session, turn = (record.get(k) for k in ("bank_id", "session_id", "turn_id"))
        if not (isinstance(bank, str) and isinstance(session, str) and isinstance(turn, str)):
            return None
        return turn_event_id(bank, session, turn)
    return uuid5(_CONTENT_NS, json.dumps(record, sort_keys=True, ensure_ascii=False, default=str))
