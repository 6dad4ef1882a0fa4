"""What a turn moves to another time: the earlier keyless memory it revises, superseded by the turn. Pure.

An appointment, a visit, a trip, a meeting has no key ("I have a dentist appointment on Tuesday", "周六约了
看房"), so when the owner moves it ("Actually the dentist moved my appointment to Thursday", "看房改到周日
了", "体检推迟到下下周一了") no key says which memory is replaced, and both were recalled as current. A sentence
of the owner's that says something was moved (a verb of moving to a time: moved, rescheduled, postponed,
pushed, 改到, 推迟, 提前, …), about the same thing as an active keyless memory of the owner (an episode, a plan,
a decision), with a time of one kind (weekday, month, number) that differs on the two sides
(``contradiction.contradicts``), revises it: the turn's first keyless candidate (a plan, else its episode)
is judged to update it, so deciding it supersedes that memory and keeps it in history. Said of a relative
on one side only ("my sister's appointment moved to Friday"), it is another thing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from uuid import UUID

from hindsight_es.extraction import anchors
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction.speech import one_off
from hindsight_es.memory import contradiction
from hindsight_es.memory.prepared import Prepared
from hindsight_es.memory.state import BankState, MemoryInfo
from hindsight_es.types import MemoryKind

COMMON = 400  # a word this many memories share says nothing about which one a sentence is about
COMPARED = 50  # memories a sentence is compared with, those sharing most of its words first
_KEYLESS: frozenset[MemoryKind] = frozenset({"episode", "plan", "decision"})
# A verb of moving a thing in time, then (within its clause) where to: "moved my appointment to Thursday",
# "pushed the call back to 3pm", "rescheduled for Friday", "got postponed until May"; 改到, 推迟到, 提前, 延期, 挪到.
_MOVED = re.compile(
    r"\b(?:mov(?:e|ed|es|ing)|re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|delay\w*|bump(?:ed|s)?|shift(?:ed|s)?"
    r"|chang(?:e|ed|es)|brought|bring)\b[^,;.!?]{0,40}?\b(?:to|until|till|for)\b"
    r"|改到|改在|改成|推迟|推后|延期|延后|延到|提前|挪到|换到|调到|顺延|改期",
    re.I,
)
_TIMES = ("weekday", "month", "number")
# Moved for one occasion ("the release got moved to Friday this sprint only", "这周的钢琴课改到周日"): the
# standing time stands.
_ONCE = re.compile(
    r"\bthis\s+\w+\s+only\b|\bonly\s+(?:for\s+)?this\s+\w+\b|这一?(?:周|星期|礼拜)|仅此一次|就这一次", re.I
)
_KIN = re.compile(rf"\b(?:{px._REL_EN})\b|{px._REL_ZH}", re.I)


def revised(state: BankState, text: str, prepared: Prepared, turn_id: str) -> Prepared:
    """``prepared`` with its first keyless candidate judged to update the memory the turn moves, if any."""
    taker = next(
        (i for i, c in enumerate(prepared.candidates) if c.key is None and c.judgement is None and c.kind in _KEYLESS),
        None,
    )
    if taker is None or _MOVED.search(text) is None or contradiction.is_question(text):
        return prepared
    for sentence in (s for s in re.split(r"(?<=[.!?。！？；;\n])\s*", text) if _MOVED.search(s)):
        if contradiction.is_question(sentence) or one_off(sentence) or _ONCE.search(sentence):
            continue
        for older in _nearest(state, sentence, turn_id):
            why = _moves(sentence, older.said)
            if why is not None:
                candidates = list(prepared.candidates)
                candidates[taker] = anchors.updating(candidates[taker], _held(older), why)
                return replace(prepared, candidates=candidates)
    return prepared


def _moves(newer: str, older: str) -> str | None:
    """Why ``newer`` moves what ``older`` says to another time, or None."""
    if _kin(newer) != _kin(older):
        return None
    why = contradiction.contradicts(newer, older)
    if why is None:
        return None
    mine, theirs = contradiction.values(newer), contradiction.values(older)
    if not any(kind in mine and kind in theirs and not mine[kind] & theirs[kind] for kind in _TIMES):
        return None
    return f"moves it to another time: {why}"


def _kin(text: str) -> frozenset[str]:
    return frozenset(m[0].lower() for m in _KIN.finditer(text))


def _nearest(state: BankState, sentence: str, turn_id: str) -> list[MemoryInfo]:
    """Active keyless memories of the owner's word sharing content words with ``sentence``, most shared first,
    then the most recent; never the turn's own."""
    counts: dict[UUID, int] = {}
    for token in contradiction.content(sentence):
        ids = state.anchors.get(token, ())
        if len(ids) > COMMON:
            continue
        for memory_id in ids:
            counts[memory_id] = counts.get(memory_id, 0) + 1
    found = [state.memories[m] for m in counts if m in state.memories]
    found = [
        m
        for m in found
        if m.status == "active"
        and m.key is None
        and m.kind in _KEYLESS
        and m.provenance == "user"
        and turn_id not in m.source_turn_ids
    ]
    found.sort(key=lambda m: (-counts[m.memory_id], -m.valid_from.timestamp(), str(m.memory_id)))
    return found[:COMPARED]


def _held(m: MemoryInfo) -> anchors.Held:
    return anchors.Held(m.memory_id, m.key or "", m.value or "", m.session_id)
