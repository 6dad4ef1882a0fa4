"""Upcasters: a record of an old schema version -> the next version's record (``codec.upcast`` chains them).

- ``MemoryRetained`` 1 -> 2: nothing to change (version 2 only added optional fields).
- ``MemoryRetained`` 2 -> 3: the float32 vector packed (``vectors.from_float32``).
- ``MemoryRestored`` 1 -> 2: its ``revived`` upcast like any ``MemoryRetained``.

A log mixing versions decodes to the same events as one written at the current version.
"""

from __future__ import annotations

import base64
from typing import Any

from hindsight_es.events import vectors
from hindsight_es.events.codec import register_upcaster, upcast


@register_upcaster("MemoryRetained", 1)
def _retained_v1(record: dict[str, Any]) -> dict[str, Any]:
    return {**record, "schema_version": 2}


@register_upcaster("MemoryRetained", 2)
def _retained_v2(record: dict[str, Any]) -> dict[str, Any]:
    vector = record.get("vector")
    if isinstance(vector, str):
        packed = vectors.from_float32(base64.b64decode(vector, validate=True))
        vector = base64.b64encode(packed).decode("ascii")
    # a list of floats (a hand-written record) is packed by the field's validator
    return {**record, "vector": vector, "schema_version": 3}


@register_upcaster("MemoryRestored", 1)
def _restored_v1(record: dict[str, Any]) -> dict[str, Any]:
    revived = record.get("revived")
    if isinstance(revived, dict):
        revived = upcast({"type": "MemoryRetained", **revived})
    return {**record, "revived": revived, "schema_version": 2}
