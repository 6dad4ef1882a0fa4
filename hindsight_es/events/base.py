"""The envelope every event shares, and the vector encoding events carry.

Frozen pydantic models with a ``type`` discriminator; times are UTC-aware. Evolve a schema by bumping
``schema_version`` and adding an upcaster in ``codec.py``; never change the meaning of a stored field.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID, uuid4

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, field_validator

from hindsight_es.types import BankId, Time


def _decode_vector(value: Any) -> object:
    if isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if isinstance(value, (list, tuple)):
        return np.asarray(value, dtype="<f4").tobytes()
    if isinstance(value, np.ndarray):
        return value.astype("<f4").tobytes()
    return value


# A float32 little-endian vector; base64 in JSON so a rebuild decodes it without float parsing.
VectorBytes = Annotated[
    bytes,
    BeforeValidator(_decode_vector),
    PlainSerializer(lambda b: base64.b64encode(b).decode("ascii"), return_type=str, when_used="json"),
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """Envelope shared by every event."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_id: UUID = Field(default_factory=uuid4)
    type: str
    schema_version: int = 1
    bank_id: BankId
    occurred_at: Time = Field(default_factory=utcnow)
    causation_id: UUID | None = None
    actor: str = Field(default="user", min_length=1, max_length=256)

    @field_validator("occurred_at")
    @classmethod
    def _to_utc(cls, value: datetime) -> datetime:
        return value.astimezone(UTC)
