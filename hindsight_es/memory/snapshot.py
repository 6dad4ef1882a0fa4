"""A bank's decision state as plain JSON values and back: the body of a partition snapshot.

A snapshot is a cache of ``fold(memory events)``: data only (strings, numbers, lists), never code, so
a snapshot read from shared storage cannot execute anything. Memories are written as rows under the
field names of ``MemoryInfo``; ``state_from_json`` refuses (``ValueError``) a body written with other
fields or another ``FORMAT``, and the caller then folds the memory log instead.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from uuid import UUID

from hindsight_es.memory.indexing import LastTurn
from hindsight_es.memory.state import BankState, MemoryInfo

FORMAT = 1
_FIELDS = tuple(f.name for f in dataclasses.fields(MemoryInfo))
_UUIDS = {"memory_id", "supersedes", "superseded_by", "along_with", "retained_by"}
_TIMES = {"valid_from", "valid_to", "last_used_at"}
_TUPLES = {"source_turn_ids", "entities", "evidence"}


def _cell(name: str, value: Any) -> Any:
    if value is None:
        return None
    if name in _UUIDS:
        return str(value)
    if name in _TIMES:
        return value.isoformat()
    if name == "restated_by":
        return [str(v) for v in value]
    if name in _TUPLES:
        return list(value)
    return value


def _value(name: str, cell: Any) -> Any:
    if cell is None:
        return None
    if name in _UUIDS:
        return UUID(cell)
    if name in _TIMES:
        return datetime.fromisoformat(cell)
    if name == "restated_by":
        return tuple(UUID(v) for v in cell)
    if name in _TUPLES:
        return tuple(cell)
    return cell


def state_to_json(state: BankState) -> dict[str, Any]:
    """The state as JSON values (``json.dumps`` takes it as is)."""
    return {
        "bank_id": state.bank_id,
        "memories": [[_cell(n, getattr(m, n)) for n in _FIELDS] for m in state.memories.values()],
        "heads": {k: str(v) for k, v in state.heads.items()},
        "handled": sorted(str(h) for h in state.handled),
        "last_turn": {s: list(t) for s, t in state.last_turn.items()},
        "texts": [[k, t, str(m)] for (k, t), m in state.texts.items()],
        "session_seen": {s: t.isoformat() for s, t in state.session_seen.items()},
        "yields": {str(k): [str(m) for m in v] for k, v in state.yields.items()},
    }


def state_from_json(body: dict[str, Any]) -> BankState:
    """The state ``state_to_json`` wrote; ``ValueError`` (or ``KeyError``/``TypeError``) for anything else."""
    state = BankState(body["bank_id"])
    for row in body["memories"]:
        if len(row) != len(_FIELDS):
            raise ValueError("a memory row does not have MemoryInfo's fields")
        memory = MemoryInfo(**{n: _value(n, c) for n, c in zip(_FIELDS, row, strict=True)})
        state.memories[memory.memory_id] = memory
    state.heads = {k: UUID(v) for k, v in body["heads"].items()}
    state.handled = {UUID(h) for h in body["handled"]}
    state.last_turn = {s: LastTurn(*t) for s, t in body["last_turn"].items()}
    state.texts = {(k, t): UUID(m) for k, t, m in body["texts"]}
    state.session_seen = {s: datetime.fromisoformat(t) for s, t in body["session_seen"].items()}
    state.yields = {UUID(k): [UUID(m) for m in v] for k, v in body["yields"].items()}
    return state


def layout() -> dict[str, Any]:
    """What a body must have been written with to be read back: checked before any state is built."""
    return {"format": FORMAT, "memory_fields": list(_FIELDS)}
