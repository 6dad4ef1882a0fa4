"""Disputes instead of silent supersession: when a less trusted source contradicts a more trusted memory.

``find`` looks, for a turn of lower rank (``trust.rank``), for the more trusted active memory it
contradicts, in this order: its candidates' keys (same key, another value); the claims it makes about
the bank's owner (third person "the user…"/"用户…", or the assistant's second person "your…", read as
first person by the rule extractor: "the user lives in Moscow" claims ``user/location``); an LLM's
judgement that it updates or contradicts one; and, with no key, a similar statement with a
contradiction signal (``contradiction``). A question and a speaker's first person ("I live in Oslo" in a
document is its author's) claim nothing about the owner. ``resolve`` is the owner's (or an operator's)
accept or reject. Pure, like every decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from uuid import UUID

from hindsight_es.events import DisputeResolutionRequested, DisputeResolved, Event, MemorySuperseded
from hindsight_es.events.candidates import Candidate
from hindsight_es.memory import contradiction
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import caused
from hindsight_es.memory.state import BankState, MemoryInfo
from hindsight_es.memory.trust import is_owner, owners, rank

MAX_COMPARED = 200  # memories a statement is compared with, the ones sharing most of its words first
COMMON = 400  # a word this many indexed memories share says nothing about which one a statement is about
_SENTENCES = re.compile(r"(?<=[.!?。！？；;\n])\s*")
_FIRST_PERSON = re.compile(r"^\s*(?:i|i'm|i've|i'd|my|me)\b|(?<![们])我(?!们)", re.I)
_ABOUT_USER_EN = (
    (re.compile(r"\b(?:the|this) (?:user|customer|account holder)(?:'s|’s)", re.I), "my"),
    (re.compile(r"\b(?:the|this) (?:user|customer|account holder) (?:is|was)\b", re.I), "I am"),
    (re.compile(r"\b(?:the|this) (?:user|customer|account holder)\b", re.I), "I"),
    (re.compile(r"^\s*user\b", re.I), "I"),
)
# The assistant's own first person is its own, not the owner's: swapped out before "you" becomes "I".
_ABOUT_YOU_EN = (
    (re.compile(r"\bI'm\b|\bI am\b"), "it is"),
    (re.compile(r"\bI\b"), "it"),
    (re.compile(r"\b(?:my|mine)\b", re.I), "its"),
    (re.compile(r"\byour\b", re.I), "my"),
    (re.compile(r"\byou(?:'re| are)\b", re.I), "I am"),
    (re.compile(r"\byou\b", re.I), "I"),
)
_THIRD_VERB = re.compile(
    r"\bI (lives|likes|loves|hates|prefers|works|eats|drinks|uses|owns|takes|has|wants|needs|speaks|drives|studies)\b"
)
_BASE = {"has": "have", "studies": "study"}


@lru_cache(maxsize=1)
def _extractor():  # type: ignore[no-untyped-def]  # the rule extractor, deterministic: claims read as the owner's
    from hindsight_es.extraction import RuleExtractor

    return RuleExtractor()


def owner_claims(text: str, provenance: str) -> list[Candidate]:
    """What a non-owner's text claims about the owner, as the owner's own keyed statements."""
    said = text
    for pattern, repl in (_ABOUT_YOU_EN if provenance == "assistant" else ()) + _ABOUT_USER_EN:
        said = pattern.sub(repl, said)
    said = _THIRD_VERB.sub(lambda m: "I " + _BASE.get(m[1], m[1][:-1]), said)
    said = re.sub(r"该用户|这位用户|此用户|用户", "我", said)
    if provenance == "assistant":
        said = said.replace("我", "它").replace("你", "我").replace("您", "我")
    if said == text:
        return []
    return [c for c in _extractor().extract(said, source="user") if c.key and c.key.startswith("user/")]


_PRONOUN = re.compile(r"^\W*(?:(?:oh |ok |yes |right )*(?:it|this|that|they|these|those)\b|它|这|那)", re.I)


def _statements(text: str) -> list[str]:
    """The sentences that assert something; one that opens with a pronoun carries the sentence before it."""
    out: list[str] = []
    previous = ""
    for sentence in (s for s in _SENTENCES.split(text) if s.strip()):
        said = (
            f"{previous} {sentence}" if previous and _PRONOUN.match(re.sub(r"^\W*\w+,\s*", "", sentence)) else sentence
        )
        if not contradiction.is_question(sentence):
            out.append(said)
        previous = sentence
    return out


def _keyed(state: BankState, key: str | None, value: str | None, level: int) -> MemoryInfo | None:
    head = state.heads.get(key) if key else None
    held = state.memories.get(head) if head is not None else None
    if held is not None and held.status == "active" and rank(held) > level and held.value != value:
        return held
    return None


def find(
    state: BankState, text: str, candidates: Sequence[Candidate], provenance: str, level: int
) -> tuple[UUID, str] | None:
    """The more trusted memory a turn of rank ``level`` contradicts, and why; None when it contradicts none.
    ``candidates`` as extracted: a ``user/…`` key of a sentence not in the first person ("use FedEx from
    now on") is compared with the owner's, though only the owner may write it."""
    if level >= 2:
        return None
    for cand in candidates:
        # in the words it was drawn from: a rule statement ("The user lives in …") is our template, not the speaker's
        if cand.key and cand.key.startswith("user/") and _FIRST_PERSON.search(cand.said):
            continue
        if (held := _keyed(state, cand.key, cand.value, level)) is not None:
            return held.memory_id, f"new value for {cand.key} ({cand.value!r}, held {held.value!r})"
    for claim in owner_claims(text, provenance):
        if (held := _keyed(state, claim.key, claim.value, level)) is not None:
            return held.memory_id, f"claims {claim.key} is {claim.value!r} about the owner, who said {held.value!r}"
    for cand in candidates:
        judged = cand.judgement
        if judged is not None and judged.relation in ("updates", "contradicts") and judged.memory_id is not None:
            held = state.memories.get(judged.memory_id)
            if held is not None and held.status == "active" and rank(held) > level:
                return held.memory_id, f"{judged.relation} it, as {judged.model or 'the LLM'} judged: {judged.reason}"
    for sentence in _statements(text):
        if provenance != "user" and _FIRST_PERSON.search(sentence):
            continue  # a document's or another speaker's "I" is not the owner
        for held in _nearest(state, sentence, level):
            for older in _statements(held.said):
                if (why := contradiction.contradicts(sentence, older)) is not None:
                    return held.memory_id, f"contradicts it: {why}"
    return None


def _nearest(state: BankState, sentence: str, level: int) -> list[MemoryInfo]:
    """Active memories of a higher rank that share content words with ``sentence``, most shared first."""
    counts: dict[UUID, int] = {}
    for token in contradiction.content(sentence):
        ids = state.anchors.get(token, ())
        if len(ids) > COMMON:
            continue
        for memory_id in ids:
            counts[memory_id] = counts.get(memory_id, 0) + 1
    found = [state.memories[m] for m in counts if m in state.memories]
    found = [m for m in found if m.status == "active" and rank(m) > level]
    found.sort(key=lambda m: (-counts[m.memory_id], -m.valid_from.timestamp(), str(m.memory_id)))
    return found[:MAX_COMPARED]


def open_disputes(state: BankState, target: UUID, pending: Sequence[UUID] = ()) -> tuple[UUID, ...]:
    held = state.memories.get(target)
    current = held.disputed_by if held is not None else ()
    return tuple(dict.fromkeys((*current, *pending)))


def authorized(state: BankState, command: DisputeResolutionRequested) -> bool:
    return command.operator or is_owner(command.actor, owners(state))


def resolve(state: BankState, command: DisputeResolutionRequested) -> list[Event]:
    """Accept (the challenger becomes active and confirmed and supersedes what it disputed) or reject (it
    is forgotten). Only the bank's owners and operators may; anyone else's request changes nothing."""
    if not authorized(state, command):
        return []
    events: list[Event] = []
    closed: dict[UUID, list[UUID]] = {}
    for memory_id in dict.fromkeys(command.memory_ids):
        memory = state.memories.get(memory_id)
        if memory is None or memory.status != "disputed" or memory.disputes is None:
            continue
        target = memory.disputes
        closed.setdefault(target, []).append(memory_id)
        remaining = tuple(m for m in open_disputes(state, target) if m not in closed[target])
        accepted = command.outcome == "accept"
        events.append(
            DisputeResolved(
                event_id=derive_id(command.event_id, f"resolved/{memory_id}"),
                **caused(command),
                memory_id=memory_id,
                disputes=target,
                outcome="accepted" if accepted else "rejected",
                reason=command.reason,
                open_disputes=remaining,
            )
        )
        held = state.memories.get(target)
        if accepted and held is not None and held.status == "active":
            events.append(
                MemorySuperseded(
                    event_id=derive_id(command.event_id, f"superseded/{memory_id}"),
                    **caused(command),
                    memory_id=target,
                    superseded_by=memory_id,
                    valid_to=command.occurred_at,
                    reason="dispute accepted" + (f": {command.reason}" if command.reason else ""),
                )
            )
    return events
