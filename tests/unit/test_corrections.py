"""Given a bank's memories, when a correction names one, then the new memory reads like an extracted one: the
corrected words go through the rule extraction a turn of the owner goes through (``memory.corrections``)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import uuid4

import numpy as np
import pytest

from hindsight_es.events import (
    CorrectionRequested,
    Event,
    MemoryRetained,
    MemorySuperseded,
    TurnRecorded,
)
from hindsight_es.extraction.rules import RuleExtractor
from hindsight_es.memory import BankState, decide, evolve
from hindsight_es.memory.indexing import index_text
from streams.preparing import prepare

RULES = RuleExtractor()


class LengthEmbedder:
    """A vector that tells the texts apart by their length: which text a memory's vector was embedded from."""

    id = "length@1"
    dim = 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([[len(t), 1.0] for t in texts], np.float32)


def run(state: BankState, event: Event) -> list[Event]:
    """The bank actor's path for one input: ``prepare`` (extraction and embedding), then ``decide``, folded."""
    [prepared] = prepare([event], lambda _: state, RULES, LengthEmbedder(), {})  # type: ignore[arg-type]
    out = decide(state, event, prepared)
    for e in out:
        evolve(state, e)
    return out


def said(state: BankState, text: str, key: str) -> MemoryRetained:
    """The owner says ``text`` in a turn; its typed memory of ``key``."""
    turn = TurnRecorded(bank_id="b", session_id="s1", turn_id=str(uuid4()), text=text)
    return next(e for e in run(state, turn) if isinstance(e, MemoryRetained) and e.key == key)


def correct(state: BankState, memory: MemoryRetained, text: str) -> list[Event]:
    return run(state, CorrectionRequested(bank_id="b", memory_id=memory.memory_id, text=text, reason="asked"))


@pytest.mark.parametrize(
    ("turn", "old_key", "words", "key", "statement", "kind"),
    [
        # another item: the words name it, not the old key
        ("我对花生过敏", "user/allergy:花生", "我对花生和腰果都过敏", "user/allergy:花生和腰果", "用户对花生和腰果过敏",
         "constraint"),
        ("I'm allergic to shellfish", "user/allergy:shellfish", "I'm allergic to peanuts", "user/allergy:peanuts",
         "The user is allergic to peanuts", "constraint"),
        # a new value of the same attribute; "correction" (the rules' label) keeps the corrected memory's kind
        ("I work at Amazon", "user/employer", "Correction: I'm working for Netflix, not Amazon.", "user/employer",
         "The user works at Netflix", "fact"),
        ("我在美团工作", "user/employer", "不对，我现在在京东工作", "user/employer", "用户在京东工作", "fact"),
        # a bare correction takes the key of what it corrects, as a turn's takes its session's latest
        ("I live in Hamburg", "user/location", "No, not Hamburg, it's Bremen.", "user/location",
         "The user lives in Bremen", "fact"),
    ],
)  # fmt: skip
def test_the_correction_is_the_statement_and_key_the_rules_read_in_its_words(
    turn: str, old_key: str, words: str, key: str, statement: str, kind: str
) -> None:
    state = BankState("b")
    old = said(state, turn, old_key)
    out = correct(state, old, words)
    new = out[0]
    assert isinstance(new, MemoryRetained)
    assert (new.text, new.key, new.kind, new.quote) == (statement, key, kind, words)  # the words stay its quote
    assert new.extractor == f"correction:{RULES.id}" and new.source_turn_ids == ()
    # its vector is the one prepared for the candidate it was read from (a bare correction's: the words, as a
    # turn's update keeps the vector of its words when it takes the key it updates)
    [read] = [c for c in RULES.extract(words, source="user") if c.kind != "episode"]
    assert new.embedding()[0] == len(index_text(read.text, quote=words if read.text != words else None))
    superseded = [e for e in out if isinstance(e, MemorySuperseded) and e.memory_id == old.memory_id]
    assert superseded and superseded[0].superseded_by == new.memory_id and superseded[0].reason == "asked"
    assert state.heads[key] == new.memory_id and state.memories[old.memory_id].status == "superseded"


@pytest.mark.parametrize(
    ("turn", "old_key", "words"),
    [
        # the rules read peanuts alone, what the memory said: the words say more, and stand as given
        ("I'm allergic to peanuts", "user/allergy:peanuts", "I'm allergic to peanuts and cashews"),
        # two typed memories: one memory cannot hold both
        ("I'm allergic to peanuts", "user/allergy:peanuts", "I'm allergic to peanuts. I'm also allergic to cashews."),
        # nothing typed in the words
        ("I live in Hamburg", "user/location", "the place by the harbour, not the city"),
        # a typed memory of another kind of thing: no reading of this one
        ("I live in Hamburg", "user/location", "I love sushi"),
    ],
)
def test_words_the_rules_do_not_read_as_that_memory_stand_as_given_under_the_old_key(
    turn: str, old_key: str, words: str
) -> None:
    state = BankState("b")
    old = said(state, turn, old_key)
    new = correct(state, old, words)[0]
    assert isinstance(new, MemoryRetained)
    assert (new.text, new.key, new.quote, new.extractor) == (words, old_key, None, "correction")
    assert new.embedding()[0] == len(words)  # the words' own vector
    assert state.memories[old.memory_id].status == "superseded" and state.heads[old_key] == new.memory_id


def test_the_key_the_correction_takes_has_one_active_holder_after_it() -> None:
    """Another active memory held the new key: the correction supersedes it too, as a turn's correction
    supersedes its key's holder, and the bank never holds two active memories of one key."""
    state = BankState("b")
    peanuts = said(state, "I'm allergic to peanuts", "user/allergy:peanuts")
    shellfish = said(state, "I'm allergic to shellfish", "user/allergy:shellfish")
    out = correct(state, shellfish, "I'm allergic to peanuts")
    new = out[0]
    assert isinstance(new, MemoryRetained) and new.key == "user/allergy:peanuts"
    displaced = {
        e.memory_id: e.reason for e in out if isinstance(e, MemorySuperseded) and e.superseded_by == new.memory_id
    }
    assert displaced[shellfish.memory_id] == "asked" and displaced[peanuts.memory_id] == "correction"
    holders = [m for m in state.active() if m.key == "user/allergy:peanuts"]
    assert [m.memory_id for m in holders] == [new.memory_id] == [state.heads["user/allergy:peanuts"]]


def test_another_users_memory_is_never_moved_to_the_owner() -> None:
    """A shared bank: Bob's allergy (``member:bob/…``) corrected in the first person stays Bob's key."""
    state = BankState("b")
    turn = TurnRecorded(bank_id="b", session_id="s1", turn_id="t0", text="I live in Hamburg", actor="alice")
    run(state, turn)  # the bank's first user's: alice owns it
    bob = TurnRecorded(bank_id="b", session_id="s1", turn_id="t1", text="I'm allergic to shellfish", actor="bob")
    old = next(e for e in run(state, bob) if isinstance(e, MemoryRetained) and e.key)
    assert old.key == "member:bob/allergy:shellfish"
    new = correct(state, old, "I'm allergic to peanuts")[0]
    assert isinstance(new, MemoryRetained) and (new.key, new.text) == (old.key, "I'm allergic to peanuts")


def test_a_correction_decides_the_same_when_decided_again() -> None:
    """Redelivered to another actor holding the same state: the same events; to the one that decided it, none."""
    first, again = BankState("b"), BankState("b")
    turn = TurnRecorded(bank_id="b", session_id="s1", turn_id="t1", text="我对花生过敏")
    old = next(e for e in run(first, turn) if isinstance(e, MemoryRetained) and e.key)
    run(again, turn)
    command = CorrectionRequested(bank_id="b", memory_id=old.memory_id, text="我对花生和腰果都过敏")
    assert run(first, command) == run(again, command) != []
    assert run(first, command) == []  # handled
