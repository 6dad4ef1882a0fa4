"""An episode follows its turn's typed memories, when it says nothing else. Pure.

A turn yields an episode (the utterance) and typed memories (facts, preferences, ...), retained or
restating active ones. The episode *says nothing else* when every word of it, but for at most
``SLACK`` words of greeting or filler (a CJK character counts as a word), is a word of the words those
typed memories were drawn from (their ``quote``, else their text), and fewer words are left over than
are covered. Such an episode:

- is retired with the first of them to go: when a decision supersedes or forgets one of them, the
  episode is superseded by the same new memory, or forgotten, by an event naming that typed memory in
  ``along_with``. What the others said stays in them; kept, the episode would go on saying the
  replaced or forgotten words ("I live in Berlin and work at Siemens." after a move to Lisbon, or
  after "lives in Berlin" was forgotten);
- comes back with them: once all of them are active again (restored, released, a rollback), a
  ``MemoryRestored`` brings it back, and a rollback lists it among the memories it restores. While
  one of them stays replaced or forgotten, so does the episode.

An episode with content of its own stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from uuid import UUID

from hindsight_es.events import ContentErased, Event, MemoryForgotten, MemorySuperseded
from hindsight_es.events.changes import changes
from hindsight_es.memory.forgetting import restored
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import Envelope
from hindsight_es.memory.state import BankState, MemoryInfo

SLACK = 2  # words an episode may say beyond its typed memories ("hi", "thanks", "好的") and still follow them
RETIRED = ("superseded", "forgotten", "retracted")
TAKEN_ALONG = ("superseded", "forgotten")  # the statuses an episode follows its memories into
_WORDS = re.compile(r"[0-9a-z]+|[^\W_]")  # Latin words and digit runs; any other letter (CJK) on its own


class _Along(Envelope):
    event_id: UUID
    memory_id: UUID
    along_with: UUID


def words(text: str) -> list[str]:
    return _WORDS.findall(text.casefold())


def says_nothing_else(episode: str, texts: Iterable[str]) -> bool:
    """Whether ``texts`` (the typed memories of its turn) say all the episode says, but ``SLACK`` words."""
    said = {w for text in texts for w in words(text)}
    own = words(episode)
    left = sum(w not in said for w in own)
    return left <= SLACK and left < len(own) - left


def follow(state: BankState, cause: Event, decided: Sequence[Event]) -> list[Event]:
    """The events that retire or bring back the episodes whose typed memories ``decided`` changed."""
    status, last = _after(decided)
    out: list[Event] = []
    for episode in _episodes(state, status):
        typed = _typed(state, episode)
        if not typed or episode.memory_id in status:
            continue  # a turn with an episode only, or an episode this decision already changed
        now = [status.get(m.memory_id, m.status) for m in typed]
        if episode.status == "active":
            changed = [m for m in typed if m.memory_id in last and status[m.memory_id] in TAKEN_ALONG]
            if changed and says_nothing_else(episode.text, (m.said for m in typed)):
                out.append(_retired(cause, episode, changed[-1].memory_id, last[changed[-1].memory_id]))
        elif episode.along_with is not None and episode.status in TAKEN_ALONG and all(s == "active" for s in now):
            again = next(m.memory_id for m in typed if m.memory_id in status)
            if (back := restored(cause, episode, {}, f"back with {again}, its turn's memory")) is not None:
                out.append(back)
    return out


def revived_with(state: BankState, memories: Iterable[MemoryInfo], gone: set[UUID]) -> list[MemoryInfo]:
    """The episodes retired along with ``memories`` that come back when they do (a rollback's plan): those
    whose typed memories are then all active (brought back, or active and not in ``gone``), except those
    in ``gone``."""
    back = list(memories)
    active = {m.memory_id for m in back}
    out: dict[UUID, MemoryInfo] = {}
    for memory in back:
        for episode in _episodes_of(state, memory):
            if episode.along_with is None or episode.status not in TAKEN_ALONG or episode.memory_id in gone:
                continue
            typed = _typed(state, episode)
            if all(m.memory_id in active or (m.status == "active" and m.memory_id not in gone) for m in typed):
                out[episode.memory_id] = episode
    return list(out.values())


def _after(decided: Sequence[Event]) -> tuple[dict[UUID, str], dict[UUID, Event]]:
    """The status each memory ``decided`` changes ends in, and the event that set it."""
    status: dict[UUID, str] = {}
    last: dict[UUID, Event] = {}
    for event in decided:
        for memory_id, fields in changes(event):
            if "status" in fields:
                status[memory_id], last[memory_id] = fields["status"], event
    return status, last


def _episodes(state: BankState, changed: Iterable[UUID]) -> Iterator[MemoryInfo]:
    """The episodes of the turns that yielded the changed memories, each once, in the order met."""
    seen: set[UUID] = set()
    for memory_id in changed:
        memory = state.memories.get(memory_id)
        if memory is None or memory.kind == "episode":
            continue
        for episode in _episodes_of(state, memory):
            if episode.memory_id not in seen:
                seen.add(episode.memory_id)
                yield episode


def _episodes_of(state: BankState, memory: MemoryInfo) -> Iterator[MemoryInfo]:
    """The episodes retained by the inputs that retained or restated ``memory``."""
    for cause in (memory.retained_by, *memory.restated_by):
        for memory_id in state.yields.get(cause, ()) if cause is not None else ():
            other = state.memories.get(memory_id)
            if other is not None and other.kind == "episode" and other.retained_by == cause:
                yield other


def _typed(state: BankState, episode: MemoryInfo) -> list[MemoryInfo]:
    """The typed memories the episode's turn retained or restated."""
    ids = state.yields.get(episode.retained_by, ()) if episode.retained_by is not None else ()
    return [m for m in (state.memories.get(i) for i in dict.fromkeys(ids)) if m is not None and m.kind != "episode"]


def _retired(cause: Event, episode: MemoryInfo, typed: UUID, how: Event) -> Event:
    """The episode goes the way ``how`` sent its turn's last typed memory ``typed``."""
    envelope: _Along = {
        "event_id": derive_id(cause.event_id, f"along/{episode.memory_id}"),
        "bank_id": cause.bank_id,
        "occurred_at": cause.occurred_at,
        "causation_id": cause.event_id,
        "actor": cause.actor,
        "memory_id": episode.memory_id,
        "along_with": typed,
    }
    if isinstance(how, MemorySuperseded):
        return MemorySuperseded(
            **envelope,
            superseded_by=how.superseded_by,
            valid_to=how.valid_to,
            reason=f"says only what {typed} said, superseded: {how.reason or '-'}",
        )
    reason = how.reason if isinstance(how, (MemoryForgotten, ContentErased)) else ""
    gone = "erased" if isinstance(how, ContentErased) else "forgotten"  # the episode is forgotten: its words stay
    return MemoryForgotten(**envelope, reason=f"says only what {typed} said, {gone}: {reason or '-'}")


__all__ = ["SLACK", "follow", "revived_with", "says_nothing_else", "words"]
