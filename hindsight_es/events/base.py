"""The envelope every event shares, and the vector field events carry (``vectors`` encodes it).

Frozen pydantic models with a ``type`` discriminator; times are UTC-aware. Evolve a schema by bumping
``schema_version`` and adding an upcaster in ``codec.py``; never change the meaning of a stored field.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID, uuid4

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, field_validator
from pydantic_core import core_schema as cs

from hindsight_es.events import vectors
from hindsight_es.types import BankId, Time


def _decode_vector(value: Any) -> object:
    if isinstance(value, str):
        return base64.b64decode(value, validate=True)
    if isinstance(value, (list, tuple, np.ndarray)):
        return vectors.pack(np.asarray(value, dtype=np.float32))
    return value  # bytes: already packed


def _base64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


class _Packed:
    """A vector's schema: from JSON, base64 decoded by pydantic-core itself (the events' ``val_json_bytes``:
    no Python call per record, a replay decodes every one); from Python, ``_decode_vector``."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> cs.CoreSchema:
        return cs.json_or_python_schema(
            json_schema=cs.bytes_schema(),
            python_schema=cs.no_info_before_validator_function(_decode_vector, cs.bytes_schema()),
            serialization=cs.plain_serializer_function_ser_schema(
                _base64, return_schema=cs.str_schema(), when_used="json"
            ),
        )


# A vector as ``vectors.pack`` writes it (arrays and lists are packed on the way in); base64 in JSON
# so a rebuild decodes it without float parsing.
VectorBytes = Annotated[bytes, _Packed()]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """Envelope shared by every event."""

    model_config = ConfigDict(frozen=True, extra="forbid", val_json_bytes="base64")

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
