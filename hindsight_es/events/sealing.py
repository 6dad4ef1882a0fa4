"""The shape of sealed content in a record (``log.sealed`` seals and opens it) and what it reads as
where it cannot be opened: the erased placeholder.

A sealed object holds ``"sealed": {"unit", "f", "n", "c"[, "dim"]}`` in place of its personal fields
(``FIELDS[f]``). Only a log holding the writers' key store opens it; everything else (a bare adapter, a
foreign reader of the topic, a record whose key was destroyed) sees the placeholder, so a sealed record
always decodes and never carries plaintext out of the process that may read it.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hindsight_es.events import vectors
from hindsight_es.events.memory import erased_text

__all__ = [
    "FIELDS",
    "KIND",
    "MARK",
    "MEMORY_FIELDS",
    "TURN_FIELDS",
    "Erased",
    "blank",
    "placeholder_text",
    "sealed_objects",
    "unopened",
]

Json = dict[str, Any]
MARK = b'"sealed":{'  # JSON-escaped text can never contain it (its quotes would be \")
TURN_FIELDS = ("text", "speaker", "metadata")
MEMORY_FIELDS = ("text", "quote", "key", "value", "entities", "context", "speaker", "vector")
FIELDS = {"turn": TURN_FIELDS, "memory": MEMORY_FIELDS, "extraction": ("candidates", "guard"), "text": ("text",)}
KIND = {fields: kind for kind, fields in FIELDS.items()}


@dataclass(frozen=True, slots=True)
class Erased:
    """The tombstone of a destroyed key."""

    at: str  # ISO-8601 UTC
    by: str
    reason: str


def placeholder_text(erased: Erased | None) -> str:
    return erased_text(None, None) if erased is None else erased_text(erased.by, erased.at, erased.reason)


def blank(target: Json, fields: Sequence[str], erased: Erased | None, dim: int) -> None:
    """``target``'s personal ``fields`` as erased content reads (a vector as ``dim`` zeros)."""
    if "vector" in fields:
        target.update(text=placeholder_text(erased), key=None, value=None, entities=[], context=None, speaker=None)
        target["quote"] = None
        target["vector"] = base64.b64encode(vectors.pack(np.zeros(dim, np.float32))).decode("ascii")
    elif "candidates" in fields:
        target.update(candidates=[], guard=None)
    elif fields == ("text",):
        target["text"] = placeholder_text(erased)
    else:  # a turn: metadata says who erased it (``events.is_erased_turn``)
        mark = (
            {} if erased is None else {"erased_by": erased.by, "erased_at": erased.at, "erased_reason": erased.reason}
        )
        target.update(text=placeholder_text(erased), speaker=None, metadata=mark)


def sealed_objects(record: Json) -> list[Json]:
    """The objects of a record holding a ``sealed`` box (innermost first)."""
    kind = record.get("type")
    if kind == "ExtractionCompleted":
        found = [o for x in record.get("extractions") or () for o in (x.get("turn") or {}, x)]
    elif kind == "MemoryRestored":
        found = [record.get("revived") or {}]
    else:
        found = [record]
    return [o for o in found if isinstance(o, dict) and isinstance(o.get("sealed"), dict)]


def unopened(record: Json) -> int:
    """Replace each sealed box of ``record`` by the placeholder (no key at hand); returns how many."""
    objects = sealed_objects(record)
    for target in objects:
        box = target.pop("sealed")
        fields = FIELDS.get(str(box.get("f")), TURN_FIELDS)
        dim = box.get("dim", 0)
        blank(target, fields, None, dim if isinstance(dim, int) and 0 <= dim <= 1 << 16 else 0)
    return len(objects)
