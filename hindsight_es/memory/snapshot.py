"""A bank's decision state as plain JSON values and back: the body of a format-3 partition snapshot, as
earlier releases wrote it (gzipped JSON); still read, so an upgrade does not cost a full fold. New
snapshots are format 4 (``memory.columnar``).

Data only (strings, numbers, lists), never code, so a snapshot read from shared storage cannot execute
anything. Memories are written as rows under the field names of ``MemoryInfo``; ``state_from_json``
refuses (``ValueError``) a body written with other fields or another ``FORMAT``, and the caller then
folds the memory log instead.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from uuid import UUID, SafeUUID

from hindsight_es.memory.indexing import LastTurn
from hindsight_es.memory.state import BankState, MemoryInfo

FORMAT = 3
_FIELDS = tuple(f.name for f in dataclasses.fields(MemoryInfo))
UUIDS = {"memory_id", "supersedes", "superseded_by", "along_with", "retained_by", "disputes"}
UUID_TUPLES = {"restated_by", "disputed_by"}
TIMES = {"valid_from", "valid_to", "last_used_at"}
TUPLES = {"source_turn_ids", "entities", "evidence"}
_NEW, _SET, _UNKNOWN = object.__new__, object.__setattr__, SafeUUID.unknown


class Ids(dict[str, UUID]):
    """UUIDs by their text, each built once: a partition's snapshot names the same ids many times, and
    ``UUID(text)`` (which validates) was most of the time of loading one."""

    def __missing__(self, text: str) -> UUID:
        value = _NEW(UUID)
        _SET(value, "int", int(text.replace("-", ""), 16))
        _SET(value, "is_safe", _UNKNOWN)
        self[text] = value
        return value


_ABSENT: Any = object()


class LazySets(dict[str, set[UUID]]):
    """``state.anchors`` as read from a snapshot: each token's ids stay the snapshot's list of texts until
    the token is first looked up. A decision looks up the few tokens of its statement; building every
    set up front was half the time of loading a bank (a memory sits under about seven tokens)."""

    def _decoded(self, token: str, value: Any) -> set[UUID]:
        if isinstance(value, list):
            decoded = {_uuid(m) for m in value}
            dict.__setitem__(self, token, decoded)
            return decoded
        return value  # type: ignore[no-any-return]

    def _all(self) -> None:
        for token, value in list(dict.items(self)):
            self._decoded(token, value)

    def __getitem__(self, token: str) -> set[UUID]:
        return self._decoded(token, dict.__getitem__(self, token))

    def get(self, token: str, default: Any = None) -> Any:
        value = dict.get(self, token, _ABSENT)
        return default if value is _ABSENT else self._decoded(token, value)

    def setdefault(self, token: str, default: Any = None) -> Any:
        value = dict.get(self, token, _ABSENT)
        if value is _ABSENT:
            dict.__setitem__(self, token, default)
            return default
        return self._decoded(token, value)

    def pop(self, token: str, default: Any = _ABSENT) -> Any:
        value = dict.pop(self, token, _ABSENT)
        if value is _ABSENT:
            if default is _ABSENT:
                raise KeyError(token)
            return default
        return self._decoded(token, value) if isinstance(value, list) else value

    def values(self) -> Any:
        self._all()
        return dict.values(self)

    def items(self) -> Any:
        self._all()
        return dict.items(self)

    def copy(self) -> dict[str, set[UUID]]:
        self._all()
        return dict(dict.items(self))

    def __eq__(self, other: object) -> bool:
        self._all()
        if isinstance(other, LazySets):
            other._all()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None

    def __reduce__(self) -> Any:
        return dict, (self.copy(),)


def _uuid(text: str) -> UUID:
    value = _NEW(UUID)
    _SET(value, "int", int(text.replace("-", ""), 16))
    _SET(value, "is_safe", _UNKNOWN)
    return value


def _column(name: str, values: list[Any]) -> list[Any]:
    if name in UUIDS:
        return [None if v is None else str(v) for v in values]
    if name in TIMES:
        return [None if v is None else v.isoformat() for v in values]
    if name in UUID_TUPLES:
        return [[str(u) for u in v] for v in values]
    if name in TUPLES:
        return [list(v) for v in values]
    return values


def _values(name: str, cells: list[Any], ids: Ids) -> list[Any]:
    if name in UUIDS:
        return [None if c is None else ids[c] for c in cells]
    if name in TIMES:
        return [None if c is None else datetime.fromisoformat(c) for c in cells]
    if name in UUID_TUPLES:
        return [tuple(ids[u] for u in c) for c in cells]
    if name in TUPLES:
        return [tuple(c) for c in cells]
    return cells


def state_to_json(state: BankState) -> dict[str, Any]:
    """The state as JSON values (``json.dumps`` takes it as is); memories by column."""
    memories = list(state.memories.values())
    return {
        "bank_id": state.bank_id,
        "memories": {n: _column(n, [getattr(m, n) for m in memories]) for n in _FIELDS},
        "heads": {k: str(v) for k, v in state.heads.items()},
        "handled": sorted(str(h) for h in state.handled),
        "last_turn": {s: list(t) for s, t in state.last_turn.items()},
        "texts": [[k, t, str(m)] for (k, t), m in state.texts.items()],
        "session_seen": {s: t.isoformat() for s, t in state.session_seen.items()},
        "yields": {str(k): [str(m) for m in v] for k, v in state.yields.items()},
        "owners": list(state.owners),
        "owners_set": state.owners_set,
        "first_user_actor": state.first_user_actor,
        "anchors": {w: sorted(str(m) for m in v) for w, v in state.anchors.items()},
    }


def state_from_json(body: dict[str, Any], ids: Ids | None = None) -> BankState:
    """The state ``state_to_json`` wrote; ``ValueError`` (or ``KeyError``/``TypeError``) for anything else."""
    ids = Ids() if ids is None else ids
    state = BankState(body["bank_id"])
    columns = body["memories"]
    if list(columns) != list(_FIELDS):
        raise ValueError("the memories do not have MemoryInfo's fields")
    for row in zip(*(_values(n, columns[n], ids) for n in _FIELDS), strict=True):
        memory = MemoryInfo(*row)
        state.memories[memory.memory_id] = memory
    state.heads = {k: ids[v] for k, v in body["heads"].items()}
    state.handled = {ids[h] for h in body["handled"]}
    state.last_turn = {s: LastTurn(*t) for s, t in body["last_turn"].items()}
    state.texts = {(k, t): ids[m] for k, t, m in body["texts"]}
    state.session_seen = {s: datetime.fromisoformat(t) for s, t in body["session_seen"].items()}
    state.yields = {ids[k]: [ids[m] for m in v] for k, v in body["yields"].items()}
    state.owners = tuple(body["owners"])
    state.owners_set = bool(body["owners_set"])
    state.first_user_actor = body["first_user_actor"]
    anchors = body["anchors"]
    if not isinstance(anchors, dict) or not all(isinstance(v, list) for v in anchors.values()):
        raise ValueError("anchors are not lists of memory ids")
    state.anchors = LazySets(anchors)
    return state


def layout() -> dict[str, Any]:
    """What a body must have been written with to be read back: checked before any state is built."""
    return {"format": FORMAT, "memory_fields": list(_FIELDS)}
