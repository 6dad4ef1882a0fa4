"""Checks an input record must pass before anything is decided or projected from it."""

from __future__ import annotations

from hindsight_es.config import TOPIC_TURNS
from hindsight_es.errors import DecodeError
from hindsight_es.events.models import Event, TurnRecorded
from hindsight_es.text import control_character


def check_input(event: Event, *, topic: str, key: str | None, max_text_chars: int) -> Event:
    """Raise ``DecodeError`` naming the problem: wrong topic, key not the bank, text over the limit or holding a
    character no text may (``text.control_character``: a turn from a producer that did not check it)."""
    if topic == TOPIC_TURNS and not isinstance(event, TurnRecorded):
        raise DecodeError(f"{event.type} does not belong on {TOPIC_TURNS}")
    if key is not None and key != event.bank_id:
        raise DecodeError(f"record key {key!r} is not the event's bank {event.bank_id!r}")
    if isinstance(event, TurnRecorded) and len(event.text) > max_text_chars:
        raise DecodeError(f"text of {len(event.text)} chars exceeds the limit of {max_text_chars}")
    if isinstance(event, TurnRecorded) and (problem := control_character(event.text)) is not None:
        raise DecodeError(f"text: {problem}")
    return event
