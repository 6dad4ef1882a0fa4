"""Event vocabulary and codec."""

from hindsight_es.events.codec import decode, decoded, encode, register_upcaster
from hindsight_es.events.models import *  # noqa: F403
from hindsight_es.events.models import EVENT_TYPES, AnyEvent, CommandEvent, Event, MemoryEvent

__all__ = [
    "decode",
    "decoded",
    "encode",
    "register_upcaster",
    "EVENT_TYPES",
    "AnyEvent",
    "CommandEvent",
    "Event",
    "MemoryEvent",
]
__all__ += [name for name in EVENT_TYPES]
