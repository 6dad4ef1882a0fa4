"""What each memory event changes on the memories it names, shared by ``evolve`` and the projections.

``changes(event)`` lists ``(memory_id, {field: new value})``; applying them in log order to a
memory row (or to the actor's ``MemoryInfo``) gives its status, validity and supersession links.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from hindsight_es.events import (
    EVENT_TYPES,
    ContentErased,
    DisputeResolved,
    Event,
    MemoryArchived,
    MemoryDisputed,
    MemoryForgotten,
    MemoryPromoted,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryReleased,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    SourceRetracted,
)
from hindsight_es.events.memory import erased_text

ACTIVE: dict[str, Any] = {"status": "active", "valid_to": None, "superseded_by": None}
# The memory events about one memory (their ``memory_id``); SourceRetracted names several.
ABOUT_ONE = (
    MemoryRetained,
    MemoryReinforced,
    MemorySuperseded,
    MemoryForgotten,
    MemoryArchived,
    MemoryRestored,
    MemoryQuarantined,
    MemoryReleased,
    MemoryPromoted,
    MemoryDisputed,
    DisputeResolved,
)


def subject(event: Event) -> UUID | None:
    """The memory an event is about, or None (a turn, a command, a retraction of several)."""
    return event.memory_id if isinstance(event, ABOUT_ONE) else None


def taken_along(event: Event) -> UUID | None:
    """For an episode retired with its turn's typed memory: that memory (``along_with``), else None."""
    if isinstance(event, DisputeResolved):  # an accepted one is active: nothing to come back with
        return event.along_with if event.outcome == "rejected" else None
    return event.along_with if isinstance(event, (MemorySuperseded, MemoryForgotten)) else None


# The cases ``changes`` matches. An event of a catalogue type that is none of them (nor a subclass of one)
# changes nothing: it is answered by its exact type, before the match tests it against every case (a
# ``MemoryRetained``, most of a log, failed 13 class tests: 1.7 us, and a rebuild asks it of every event).
_CASES = (
    MemorySuperseded,
    MemoryForgotten,
    MemoryArchived,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryDisputed,
    DisputeResolved,
    MemoryRestored,
    MemoryReleased,
    MemoryPromoted,
    ContentErased,
    SourceRetracted,
)
_UNCHANGING = frozenset(cls for cls in EVENT_TYPES.values() if not issubclass(cls, _CASES))


def changes(event: Event) -> list[tuple[UUID, dict[str, Any]]]:
    if type(event) in _UNCHANGING:
        return []
    match event:
        case MemorySuperseded():
            old = (
                event.memory_id,
                {"status": "superseded", "valid_to": event.valid_to, "superseded_by": event.superseded_by},
            )
            if event.along_with is not None:  # an episode taken along: the new memory replaced the typed one
                return [old]
            return [old, (event.superseded_by, {"supersedes": event.memory_id})]
        case MemoryForgotten():
            return [(event.memory_id, {"status": "forgotten"})]
        case MemoryArchived():
            return [(event.memory_id, {"status": "archived"})]
        case MemoryQuarantined():
            return [(event.memory_id, {"status": "quarantined"})]
        case MemoryReinforced():
            return [
                (event.memory_id, {"confidence": event.confidence} | ({"confirmed": True} if event.confirmed else {}))
            ]
        case MemoryDisputed():
            return [
                (event.memory_id, {"status": "disputed", "disputes": event.disputes}),
                (event.disputes, {"disputed_by": event.open_disputes}),
            ]
        case DisputeResolved(outcome="accepted"):
            return [
                (event.memory_id, dict(ACTIVE, confirmed=True, disputes=None)),
                (event.disputes, {"disputed_by": event.open_disputes}),
            ]
        case DisputeResolved():
            return [(event.memory_id, {"status": "forgotten"}), (event.disputes, {"disputed_by": event.open_disputes})]
        case MemoryRestored(revived=MemoryRetained()):  # back from the cold archive
            return [(event.memory_id, dict(ACTIVE, supersedes=event.supersedes))]
        case MemoryRestored() | MemoryReleased():
            return [(event.memory_id, dict(ACTIVE))]
        case MemoryPromoted():
            return [(event.memory_id, {"scope": event.scope})]
        case ContentErased():
            text = erased_text(event.erased_by, event.occurred_at.isoformat(timespec="seconds"), event.reason)
            blank = {"status": "forgotten", "text": text, "quote": None, "key": None, "value": None, "entities": ()}
            return [(m, dict(blank)) for m in event.memory_ids]
        case SourceRetracted():
            return [(m, {"status": "retracted", "valid_to": event.occurred_at}) for m in event.retracted_memory_ids] + [
                (m, dict(ACTIVE)) for m in event.restored_memory_ids
            ]
    return []
