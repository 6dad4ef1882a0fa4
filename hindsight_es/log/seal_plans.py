"""What ``Sealer.seal_all`` seals in a record of each event type: the objects holding personal fields,
the erasable unit each belongs to (``turn:<id>`` or ``memory:<id>``) with its tags, and the fields."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hindsight_es.events.sealing import MEMORY_FIELDS, TURN_FIELDS
from hindsight_es.log.keys import UnitTags

__all__ = ["Plan", "plan"]

Json = dict[str, Any]


Plan = list[tuple[Json, str, UnitTags, tuple[str, ...]]]


def _turn_plan(turn: Json) -> Plan:
    tags = UnitTags(session_id=turn.get("session_id"))
    return [(turn, f"turn:{turn.get('turn_id')}", tags, TURN_FIELDS)]


def _memory_plan(memory: Json) -> Plan:
    tags = UnitTags(session_id=memory.get("session_id"), turn_ids=tuple(memory.get("source_turn_ids") or ()))
    return [(memory, f"memory:{memory.get('memory_id')}", tags, MEMORY_FIELDS)]


def _extraction_plan(record: Json) -> Plan:
    plan: Plan = []
    for extraction in record.get("extractions") or ():
        turn = extraction.get("turn") or {}
        plan += _turn_plan(turn)
        tags = UnitTags(session_id=turn.get("session_id"))
        plan.append((extraction, f"turn:{turn.get('turn_id')}", tags, ("candidates", "guard")))
    return plan


def _correction_plan(record: Json) -> Plan:
    return [(record, f"memory:{record.get('memory_id')}", UnitTags(), ("text",))]


_PLANS: dict[str, Callable[[Json], Plan]] = {
    "TurnRecorded": _turn_plan,
    "MemoryRetained": _memory_plan,
    "MemoryRestored": lambda r: _memory_plan(r["revived"]) if isinstance(r.get("revived"), dict) else [],
    "ExtractionCompleted": _extraction_plan,
    "CorrectionRequested": _correction_plan,
}


def plan(record: Json) -> Plan:
    make = _PLANS.get(str(record.get("type")))
    return make(record) if make is not None else []
