"""A bank's decision state and ``evolve(state, event)``: the fold of its memory events.

The state holds only what decisions need (keys, statuses, lineage), never vectors, so a bank
actor can rebuild it from ``hindsight.memories`` on start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, MutableMapping, MutableSet
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal
from uuid import UUID

from hindsight_es.events import (
    BankOwnersSet,
    ContentErased,
    Event,
    MemoriesRecalled,
    MemoryArchived,
    MemoryPromoted,
    MemoryReinforced,
    MemoryRestored,
    MemoryRetained,
    RecallsCounted,
)
from hindsight_es.events.changes import changes, taken_along
from hindsight_es.events.memory import is_erased_text
from hindsight_es.memory.contradiction import anchors
from hindsight_es.memory.indexing import CONVERSATION, LastTurn, index_text
from hindsight_es.memory.lazy import LazyMap
from hindsight_es.types import MemoryKind

_RANKED = ("user", "other_user", "assistant")  # provenances above tools and documents (``trust.RANK``)
Status = Literal["active", "superseded", "forgotten", "archived", "quarantined", "retracted", "disputed"]


@dataclass(slots=True)
class MemoryInfo:
    memory_id: UUID
    kind: MemoryKind
    text: str
    key: str | None
    value: str | None
    session_id: str | None
    source: str
    trust: str
    actor: str
    source_turn_ids: tuple[str, ...]
    valid_from: datetime
    importance: float = 0.5
    confidence: float = 0.7
    entities: tuple[str, ...] = ()
    status: Status = "active"
    valid_to: datetime | None = None
    supersedes: UUID | None = None
    superseded_by: UUID | None = None
    evidence: tuple[str, ...] = ()  # turns that restated it since (MemoryReinforced)
    scope: str = "global"
    owner: str | None = None  # the agent it is private to (None: shared)
    provenance: str = (
        "user"  # whose word it is (``trust``): user (the bank's owner), other_user, assistant, tool, document
    )
    confirmed: bool = False  # the owner stated or restated it (or accepted it in a dispute)
    disputes: UUID | None = None  # for a disputed memory: the more trusted one it contradicts
    disputed_by: tuple[UUID, ...] = ()  # open disputes of this memory
    quote: str | None = None  # the words of its turn a typed memory was drawn from (None: its text)
    # Usage, for retention only (not what the memory says, so not compared): times a recall or a context
    # block served it, and when it was last recalled, restored or promoted (its age counts from then).
    recalls: int = field(default=0, compare=False)
    last_used_at: datetime | None = field(default=None, compare=False)
    cold: bool = False  # archived out of the hot store (stays so when forgotten or retracted there)
    # An episode superseded or forgotten with its turn's typed memory: that memory (``episodes``); None
    # for anything retired on its own, and again once it is active.
    along_with: UUID | None = None
    # The input (turn or command) that retained it and the turns that restated it since: where to find
    # the episode of its turn. Bookkeeping, not what the memory says, so not compared.
    retained_by: UUID | None = field(default=None, compare=False)
    restated_by: tuple[UUID, ...] = field(default=(), compare=False)

    @property
    def said(self) -> str:
        """The words of the turn it stands for: its quote, or its text when it is the turn's own."""
        return self.quote or self.text

    @property
    def erased(self) -> bool:
        """Its content was erased: ``ContentErased`` made it forgotten and its text the placeholder."""
        return self.status == "forgotten" and is_erased_text(self.text)

    @property
    def shown_status(self) -> str:
        """The status a person reads: ``erased`` for an erased memory (as its history in the archive shows it)."""
        return "erased" if self.erased else self.status


@dataclass(slots=True)
class Lookups:
    """Memory ids by key, and the quarantined ones, for ``where``: without them each supersession and each
    untrusted candidate read every memory of a folded bank (at 100k memories most of the actor's time).
    ``_reindex`` adds every memory it sees under its key and status, so an id may stay under a value its
    memory no longer holds (``where`` answers a superset). Not in snapshots: a state read from one answers
    from the snapshot's columns for the memories it loaded (``LazyMap.stored``), and a state whose memories
    were set without ``_reindex`` is indexed whole at its first ``where``."""

    by_key: dict[str, dict[UUID, None]] = field(default_factory=dict)  # ordered sets: first seen first
    quarantined: dict[UUID, None] = field(default_factory=dict)
    complete: bool = False  # every memory of a folded state was indexed (the first ``where`` does it)
    # Memory ids by session and by source turn, for an erasure (``where`` with "session_id" or "source_turn"):
    # built by the first one a process decides and kept up from then on, so a process that never erases holds
    # no such index (two entries a memory); without it a whole bank's erasures read every memory each.
    scopes: dict[tuple[str, str], dict[UUID, None]] | None = None

    def add(self, memory: MemoryInfo) -> None:
        if memory.key is not None:
            self.by_key.setdefault(memory.key, {})[memory.memory_id] = None
        if memory.status == "quarantined":
            self.quarantined[memory.memory_id] = None
        if self.scopes is not None:
            self.add_scopes(memory)

    def add_scopes(self, memory: MemoryInfo) -> None:
        assert self.scopes is not None
        if memory.session_id is not None:
            self.scopes.setdefault(("session_id", memory.session_id), {})[memory.memory_id] = None
        for turn_id in memory.source_turn_ids:
            self.scopes.setdefault(("source_turn", turn_id), {})[memory.memory_id] = None

    def ids(self, column: str, value: object) -> dict[UUID, None]:
        if column == "memory_key":
            return self.by_key.get(str(value), {})
        if (column, value) == ("status", "quarantined"):
            return self.quarantined
        raise ValueError(f"memories are not looked up by {column} = {value!r}")


@dataclass(slots=True)
class BankState:
    bank_id: str
    # The big indexes are mutable mappings: dicts when folded, ``memory.lazy`` maps when read from a snapshot.
    memories: MutableMapping[UUID, MemoryInfo] = field(default_factory=dict)
    heads: MutableMapping[str, UUID] = field(default_factory=dict)  # key -> the active memory holding it
    handled: MutableSet[UUID] = field(default_factory=set)  # input event ids already decided (redelivery guard)
    last_turn: dict[str, LastTurn] = field(default_factory=dict)  # session -> its latest turn (see reply_context)
    # (kind, normalized text) -> active memory
    texts: MutableMapping[tuple[str, str], UUID] = field(default_factory=dict)
    session_seen: dict[str, datetime] = field(default_factory=dict)  # session -> its latest retained memory's time
    # input event id -> memories it retained or restated
    yields: MutableMapping[UUID, list[UUID]] = field(default_factory=dict)
    owners: tuple[str, ...] = ()  # principals whose user turns are the owner's word (``BankOwnersSet``)
    owners_set: bool = False  # a BankOwnersSet was folded: the owners were declared
    first_user_actor: str | None = None  # the principal of the bank's first user memory (undeclared owner)
    # content word -> active memories of rank >= 1 (not tools' or documents'), what a dispute is looked for in
    anchors: MutableMapping[str, set[UUID]] = field(default_factory=dict)
    lookups: Lookups = field(default_factory=Lookups, compare=False, repr=False)

    def active(self) -> list[MemoryInfo]:
        return [m for m in self.memories.values() if m.status == "active"]


def evolve(state: BankState, event: Event) -> BankState:
    """Apply one memory event to the state (mutates and returns it)."""
    if event.causation_id is not None:
        state.handled.add(event.causation_id)
    if isinstance(event, MemoryRetained):
        state.memories[event.memory_id] = MemoryInfo(
            memory_id=event.memory_id,
            kind=event.kind,
            text=event.text,
            quote=event.quote,
            key=event.key,
            value=event.value,
            session_id=event.session_id,
            source=event.source,
            trust=event.trust,
            actor=event.actor,
            source_turn_ids=event.source_turn_ids,
            valid_from=event.valid_from,
            importance=event.importance,
            confidence=event.confidence,
            entities=event.entities,
            scope=event.scope,
            owner=event.owner,
            retained_by=event.causation_id,
            provenance=event.provenance or event.source,
            confirmed=event.confirmed or (event.provenance is None and event.source == "user"),
        )
        if event.source == "user" and state.first_user_actor is None:
            state.first_user_actor = event.actor
        _reindex(state, state.memories[event.memory_id])
        _yielded(state, event)
        if event.kind == "episode" and event.session_id is not None and event.source in CONVERSATION:
            state.last_turn[event.session_id] = LastTurn(
                event.speaker or event.source, index_text(event.text, event.speaker), event.context
            )
    elif isinstance(event, MemoryReinforced) and (reinforced := state.memories.get(event.memory_id)) is not None:
        reinforced.evidence = event.evidence_turn_ids
        if event.causation_id is not None and event.causation_id not in reinforced.restated_by:
            reinforced.restated_by += (event.causation_id,)
            _yielded(state, event)
    if isinstance(event, ContentErased):
        _unindex(state, event)
    for memory_id, fields in changes(event):
        memory = state.memories.get(memory_id)
        if memory is not None:
            for name, value in fields.items():
                setattr(memory, name, value)
            if "status" in fields:
                memory.along_with = taken_along(event)
            _reindex(state, memory)
    if isinstance(event, ContentErased):  # what the erased turns said is gone from the reply context too
        erased = {m.session_id for i in event.memory_ids if (m := state.memories.get(i)) is not None}
        for session in erased | {event.session_id}:
            state.last_turn.pop(session or "", None)
    if isinstance(event, BankOwnersSet):
        state.owners, state.owners_set = event.owners, True
    _lifecycle(state, event)
    return state


def _unindex(state: BankState, event: ContentErased) -> None:
    """Drop the erased memories' words and texts from the indexes (``_reindex`` only sees the placeholder)."""
    for memory_id in event.memory_ids:
        if (memory := state.memories.get(memory_id)) is None:
            continue
        for token in anchors(memory.text):
            if (ids := state.anchors.get(token)) is not None:
                ids.discard(memory_id)
                if not ids:
                    del state.anchors[token]
        same = text_key(memory.kind, memory.text)
        if state.texts.get(same) == memory_id:
            del state.texts[same]
        if memory.key is not None and state.heads.get(memory.key) == memory_id:
            del state.heads[memory.key]  # a key names what it is about ("user/allergy:peanuts")


def _yielded(state: BankState, event: MemoryRetained | MemoryReinforced) -> None:
    if event.causation_id is not None:
        state.yields.setdefault(event.causation_id, []).append(event.memory_id)


def _lifecycle(state: BankState, event: Event) -> None:
    """What the forgetting lifecycle keeps beyond statuses: recalls, hot or cold, session activity."""
    match event:
        case MemoryRetained(session_id=str() as session):
            state.session_seen[session] = max(event.occurred_at, state.session_seen.get(session, event.occurred_at))
        case MemoriesRecalled():
            for memory_id in event.memory_ids:
                if (memory := state.memories.get(memory_id)) is not None:
                    memory.recalls += 1
                    _used(memory, event)
        case RecallsCounted():
            for use in event.uses:
                if (memory := state.memories.get(use.memory_id)) is not None:
                    memory.recalls += use.count
                    if memory.last_used_at is None or use.last_at > memory.last_used_at:
                        memory.last_used_at = use.last_at
        case MemoryArchived():
            if (memory := state.memories.get(event.memory_id)) is not None:
                memory.cold = True
        case MemoryRestored():
            if (memory := state.memories.get(event.memory_id)) is not None:
                memory.cold = False
                _used(memory, event)
        case MemoryPromoted():
            if (memory := state.memories.get(event.memory_id)) is not None:
                _used(memory, event)


def _used(memory: MemoryInfo, event: Event) -> None:
    if memory.last_used_at is None or event.occurred_at > memory.last_used_at:
        memory.last_used_at = event.occurred_at


def fold(bank_id: str, events: Iterable[Event], *, as_of: datetime | None = None) -> BankState:
    """The state after ``events`` (one bank's, in log order); with ``as_of``, after those that had
    occurred by then (event time, inclusive): the bank as it stood at that moment."""
    state = BankState(bank_id)
    for event in events:
        if as_of is None or event.occurred_at <= as_of:
            evolve(state, event)
    return state


def where(state: BankState, column: str, value: object) -> Iterable[MemoryInfo]:
    """The memories whose ``column`` ("memory_key", "session_id", "source_turn" (one of ``source_turn_ids``),
    or "status" for "quarantined") may hold ``value``, oldest first, for the caller to check (``Lookups``),
    without reading the others."""
    memories, lookups = state.memories, state.lookups
    if column in ("session_id", "source_turn"):
        if lookups.scopes is None:
            lookups.scopes = {}
            for memory in memories.values():
                lookups.add_scopes(memory)
        return [found for i in lookups.scopes.get((column, str(value)), {}) if (found := memories.get(i)) is not None]
    stored = memories.stored(column, value) if isinstance(memories, LazyMap) else None
    if stored is None and not lookups.complete:
        for memory in memories.values():
            lookups.add(memory)
        lookups.complete = True
    ids = dict.fromkeys(stored or ())
    ids.update(lookups.ids(column, value))
    return [found for i in ids if (found := memories.get(i)) is not None]


def text_key(kind: str, text: str) -> tuple[str, str]:
    """What makes two memories the same statement: kind and text, case, spacing and punctuation aside."""
    return kind, "".join(ch for ch in text.casefold() if ch.isalnum())


def _reindex(state: BankState, memory: MemoryInfo) -> None:
    """Keep ``heads`` pointing at the active memory of each key, and ``texts`` at the active memory of each text."""
    state.lookups.add(memory)
    same = text_key(memory.kind, memory.text)
    indexed = memory.status == "active" and (memory.confirmed or memory.provenance in _RANKED)
    for token in anchors(memory.text):
        if indexed:
            state.anchors.setdefault(token, set()).add(memory.memory_id)
        elif (ids := state.anchors.get(token)) is not None:
            ids.discard(memory.memory_id)
    if memory.status == "active":
        state.texts.setdefault(same, memory.memory_id)
    elif state.texts.get(same) == memory.memory_id:
        del state.texts[same]
    if memory.key is None:
        return
    if memory.status == "active":
        state.heads[memory.key] = memory.memory_id
    elif state.heads.get(memory.key) == memory.memory_id:
        del state.heads[memory.key]
        # A head that had only just been retained (then quarantined at once) hands the key back to the
        # memory still active under it.
        others = [m for m in where(state, "memory_key", memory.key) if m.key == memory.key and m.status == "active"]
        if others:
            state.heads[memory.key] = max(others, key=lambda m: m.valid_from).memory_id
