"""Bytes <-> events: JSON with a ``type`` discriminator, upcasters for old schema versions."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from pydantic import TypeAdapter, ValidationError

from hindsight_es.errors import DecodeError
from hindsight_es.events import sealing
from hindsight_es.events.identity import stable_id
from hindsight_es.events.models import AnyEvent, Event
from hindsight_es.text import first_error

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(AnyEvent)
# (type, schema_version) -> function returning the record at schema_version + 1.
UPCASTERS: dict[tuple[str, int], Upcaster] = {}


def register_upcaster(event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
    def register(fn: Upcaster) -> Upcaster:
        UPCASTERS[(event_type, from_version)] = fn
        return fn

    return register


def encode(event: Event) -> bytes:
    return event.model_dump_json().encode("utf-8")


def upcast(record: dict[str, Any]) -> dict[str, Any]:
    while (step := UPCASTERS.get((record.get("type", ""), record.get("schema_version", 1)))) is not None:
        record = step(record)
    return record


def decode(data: bytes) -> Event:
    """Decode one record; raises ``DecodeError`` naming what is wrong. A record without an ``event_id``
    (a foreign producer's) gets a stable one (``identity.stable_id``), the same at every decode."""
    # One pass in pydantic-core (replays decode every record); a record without its version is upcast
    # from version 1 below, as a record of a version with an upcaster is; a sealed box reaching here (read
    # past its sealed log) takes the slow path too.
    if b'"event_id"' in data and b'"schema_version"' in data and sealing.MARK not in data:
        try:
            event = _ADAPTER.validate_json(data)
        except ValidationError:
            pass  # the slow path below names the problem
        else:
            # An old version validates against today's model only by accident: upcast it instead.
            if (event.type, event.schema_version) not in UPCASTERS:
                return event
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DecodeError(f"not UTF-8: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise DecodeError(f"not JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise DecodeError("not a JSON object")
    if sealing.MARK in data and sealing.unopened(record):  # read past its sealed log: no key at hand
        _warn_unopened()
    record = upcast(record)
    if "event_id" not in record and (derived := stable_id(record)) is not None:
        record["event_id"] = str(derived)
    try:
        return _ADAPTER.validate_python(record)
    except ValidationError as exc:
        raise DecodeError(f"invalid {record.get('type', 'event')}: {first_error(exc)}") from exc


_WARNED: list[bool] = []


def _warn_unopened() -> None:
    if not _WARNED:
        _WARNED.append(True)
        logging.getLogger("hindsight.sealed").warning(
            "a record with sealed content was decoded without its key store (read past its sealed log, or "
            "another deployment's): its personal content reads as erased"
        )


class _Stored(Protocol):
    @property
    def value(self) -> bytes: ...


R = TypeVar("R", bound=_Stored)


def decoded(records: Iterable[R]) -> Iterator[tuple[R, Event]]:
    """Each record that decodes, with its event; the others are skipped (the dead-letter topic and the
    archive keep them, with the reason)."""
    for record in records:
        try:
            yield record, decode(record.value)
        except DecodeError:
            continue
