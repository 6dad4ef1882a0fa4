"""Given memory events, when an input arrives, then these events: the bank actor's decisions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np

from hindsight_es.events import (
    CommandIgnored,
    ContentErased,
    CorrectionRequested,
    ErasureRequested,
    ForgetRequested,
    MemoryForgotten,
    MemoryReinforced,
    MemoryRestored,
    MemoryRetained,
    MemorySuperseded,
    RestoreRequested,
    RetractionRequested,
    SourceRetracted,
    TurnRecorded,
)
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import BankState, Prepared, decide, evolve, fold

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def turn(text: str, session: str = "s1", turn_id: str | None = None, minutes: int = 0, **kw) -> TurnRecorded:
    return TurnRecorded(
        bank_id="b",
        session_id=session,
        turn_id=turn_id or str(uuid4()),
        text=text,
        occurred_at=T0 + timedelta(minutes=minutes),
        **kw,
    )


def prepared(*cands: Candidate) -> Prepared:
    return Prepared(list(cands), np.ones((len(cands), 4), np.float32), "test-embedder", "test-extractor")


def fact(key: str, value: str, text: str = "", correction: bool = False) -> Candidate:
    return Candidate(
        kind="correction" if correction else "fact",
        text=text or f"{key}={value}",
        key=key,
        value=value,
        is_correction=correction,
    )


def run(state: BankState, event, prep=None):
    events = decide(state, event, prep)
    for e in events:
        evolve(state, e)
    return events


def test_turn_retains_episode_and_fact_citing_the_turn():
    state = BankState("b")
    t = turn("we use MySQL")
    events = run(state, t, prepared(Candidate(kind="episode", text="we use MySQL"), fact("team/database", "mysql")))
    assert [type(e) for e in events] == [MemoryRetained, MemoryRetained]
    assert all(e.source_turn_ids == (t.turn_id,) and e.causation_id == t.event_id for e in events)
    assert np.array_equal(events[1].embedding(), np.ones(4, np.float32)) and events[1].embedder == "test-embedder"


def test_same_key_new_value_supersedes_and_keeps_history():
    state = BankState("b")
    first = run(state, turn("a", minutes=0), prepared(fact("team/database", "mysql")))[0]
    t2 = turn("b", minutes=5)
    events = run(state, t2, prepared(fact("team/database", "postgresql", correction=True)))
    assert [type(e) for e in events] == [MemoryRetained, MemorySuperseded]
    assert events[1].memory_id == first.memory_id and events[1].superseded_by == events[0].memory_id
    assert events[1].valid_to == t2.occurred_at
    assert state.memories[first.memory_id].status == "superseded"
    assert state.heads["team/database"] == events[0].memory_id


def test_restating_the_active_value_reinforces_it_instead_of_copying():
    state = BankState("b")
    first = run(state, turn("a"), prepared(fact("user/location", "paris")))[0]
    t2 = turn("b", turn_id="t2")
    (out,) = run(state, t2, prepared(fact("user/location", "paris")))
    assert isinstance(out, MemoryReinforced) and out.memory_id == first.memory_id
    assert out.evidence_turn_ids == ("t2",) and out.confidence > first.confidence
    assert state.memories[first.memory_id].confidence == out.confidence


def test_redelivered_input_is_decided_once():
    state = BankState("b")
    t = turn("a")
    assert run(state, t, prepared(fact("user/location", "paris")))
    assert run(state, t, prepared(fact("user/location", "paris"))) == []


def test_ids_are_derived_from_the_input():
    t = turn("a")
    a = decide(BankState("b"), t, prepared(fact("k/x", "1")))
    b = decide(BankState("b"), t, prepared(fact("k/x", "1")))
    assert [e.event_id for e in a] == [e.event_id for e in b]
    assert a[0].memory_id == b[0].memory_id


def test_forget_by_id_and_by_session():
    state = BankState("b")
    m1 = run(state, turn("a", session="s1"), prepared(fact("k/a", "1")))[0]
    m2 = run(state, turn("b", session="s2"), prepared(fact("k/b", "1")))[0]
    out = run(state, ForgetRequested(bank_id="b", memory_ids=(m1.memory_id,), reason="asked"))
    assert [(type(e), e.memory_id) for e in out] == [(MemoryForgotten, m1.memory_id)]
    out = run(state, ForgetRequested(bank_id="b", session_id="s2"))
    assert [e.memory_id for e in out] == [m2.memory_id]
    (ignored,) = run(state, ForgetRequested(bank_id="b", memory_ids=(m1.memory_id,)))  # already forgotten
    assert isinstance(ignored, CommandIgnored) and ignored.command == "ForgetRequested"
    assert ignored.reason.startswith("nothing to forget")


def test_a_command_that_changes_nothing_says_what_the_bank_holds_of_each_memory_it_names():
    """Found by an operator: "unknown or already gone" did not say which, though the state knows."""
    state = BankState("b")
    m1 = run(state, turn("a"), prepared(fact("k/a", "1")))[0]
    run(state, ForgetRequested(bank_id="b", memory_ids=(m1.memory_id,)))
    stranger = uuid4()
    (ignored,) = run(state, ForgetRequested(bank_id="b", memory_ids=(m1.memory_id, stranger)))
    assert ignored.reason == (
        f"nothing to forget: memory {m1.memory_id} is already forgotten; memory {stranger} is unknown to the bank"
    )
    (by_session,) = run(state, ForgetRequested(bank_id="b", session_id="s1"))
    assert by_session.reason == "nothing to forget: no memory it selects that is not forgotten already"
    m2 = run(state, turn("b"), prepared(fact("k/b", "1")))[0]
    (active,) = run(state, RestoreRequested(bank_id="b", memory_ids=(m2.memory_id,)))
    assert active.reason == f"nothing to restore: memory {m2.memory_id} is active already"


def test_a_command_that_changed_nothing_stays_a_no_op_when_redelivered_after_later_decisions():
    """A crash between append and commit redelivers the batch: a restore of an active memory (nothing to
    do), then a forget of it, redelivered, must not restore what the forget removed."""
    state = BankState("b")
    m = run(state, turn("a"), prepared(fact("k/a", "1")))[0]
    restore = RestoreRequested(bank_id="b", memory_ids=(m.memory_id,))
    forget = ForgetRequested(bank_id="b", memory_ids=(m.memory_id,))
    assert [type(e) for e in run(state, restore)] == [CommandIgnored]
    assert [type(e) for e in run(state, forget)] == [MemoryForgotten]
    assert run(state, restore) == [] and run(state, forget) == []  # the batch again
    assert state.memories[m.memory_id].status == "forgotten"


def test_correction_supersedes_with_the_new_text():
    state = BankState("b")
    old = run(state, turn("a"), prepared(fact("user/location", "berlin")))[0]
    cmd = CorrectionRequested(bank_id="b", memory_id=old.memory_id, text="lives in Munich")
    out = run(state, cmd, prepared(Candidate(kind="fact", text="lives in Munich")))
    assert [type(e) for e in out] == [MemoryRetained, MemorySuperseded]
    assert out[0].text == "lives in Munich" and out[0].key == "user/location"
    assert state.heads["user/location"] == out[0].memory_id


def test_a_corrected_value_said_again_later_is_a_restatement_not_a_new_value():
    state = BankState("b")
    old = run(state, turn("a"), prepared(fact("team/database", "mysql")))[0]
    cmd = CorrectionRequested(bank_id="b", memory_id=old.memory_id, text="We use PostgreSQL for the billing database.")
    new = run(state, cmd, prepared(Candidate(kind="fact", text=cmd.text)))[0]
    assert (new.key, new.value, new.text) == ("team/database", "postgresql", cmd.text)
    again = run(state, turn("b", minutes=5), prepared(fact("team/database", "postgresql")))
    assert [type(e) for e in again] == [MemoryReinforced] and again[0].memory_id == new.memory_id
    assert state.heads["team/database"] == new.memory_id


def test_a_correction_names_no_source_turn_and_outlives_the_corrected_turns_erasure():
    """Its words were said in no turn: get_context must not quote it "from turn a", and erasing turn a (what
    was said there) erases the corrected memory, not the correction."""
    state = BankState("b")
    said = turn("I live in Berlin", turn_id="a")
    old = run(state, said, prepared(fact("user/location", "berlin")))[0]
    cmd = CorrectionRequested(bank_id="b", memory_id=old.memory_id, text="lives in Munich")
    new = run(state, cmd, prepared(Candidate(kind="fact", text="lives in Munich")))[0]
    assert new.source_turn_ids == () and state.memories[new.memory_id].session_id == "s1"
    erased = run(state, ErasureRequested(bank_id="b", turn_id="a", reason="asked"))
    assert [type(e) for e in erased] == [ContentErased]
    assert old.memory_id in erased[0].memory_ids and new.memory_id not in erased[0].memory_ids
    assert state.memories[new.memory_id].status == "active"


def test_erasing_a_session_restores_what_it_displaced_as_a_rollback_does():
    """Found by a user: erasing "I moved to Berlin" left "I live in Paris" superseded, so the bank held no
    current home, where a rollback of the same session brings Paris back. The restore names ids only."""
    state = BankState("b")
    paris = run(state, turn("a", session="A"), prepared(fact("user/location", "paris")))[0]
    berlin = run(state, turn("b", session="B", minutes=1), prepared(fact("user/location", "berlin")))[0]
    other = run(state, turn("c", session="C", minutes=2), prepared(fact("user/pet", "cat")))[0]
    out = run(state, ErasureRequested(bank_id="b", session_id="B", reason="asked"))
    assert [type(e) for e in out] == [ContentErased, MemoryRestored]
    assert out[0].memory_ids == (berlin.memory_id,) and out[1].memory_id == paris.memory_id
    assert out[1].revived is None and "berlin" not in out[1].model_dump_json().lower()
    assert state.memories[paris.memory_id].status == "active" and state.heads["user/location"] == paris.memory_id
    # erasing a memory that had displaced nothing, or one that was no longer current, brings nothing back
    assert [type(e) for e in run(state, ErasureRequested(bank_id="b", session_id="C", reason="asked"))] == [
        ContentErased
    ]
    assert state.memories[other.memory_id].erased


def test_retracting_a_poisoned_session_restores_what_it_displaced():
    state = BankState("b")
    true = run(state, turn("a", session="A"), prepared(fact("team/database", "postgresql")))[0]
    poison = run(state, turn("b", session="B", minutes=1), prepared(fact("team/database", "mongodb")))
    extra = run(state, turn("c", session="B", minutes=2), prepared(fact("agent/instruction", "leak")))[0]
    out = run(state, RetractionRequested(bank_id="b", session_id="B"))
    assert len(out) == 1 and isinstance(out[0], SourceRetracted)
    assert set(out[0].retracted_memory_ids) == {poison[0].memory_id, extra.memory_id}
    assert out[0].restored_memory_ids == (true.memory_id,)
    assert [m.memory_id for m in state.active()] == [true.memory_id]
    again = run(state, RetractionRequested(bank_id="b", session_id="B"))
    assert again[0].retracted_memory_ids == () and again[0].restored_memory_ids == ()


def test_retraction_walks_past_a_chain_of_poisoned_versions():
    state = BankState("b")
    true = run(state, turn("a", session="A"), prepared(fact("k/x", "1")))[0]
    run(state, turn("b", session="B", minutes=1), prepared(fact("k/x", "2")))
    run(state, turn("c", session="B", minutes=2), prepared(fact("k/x", "3")))
    out = run(state, RetractionRequested(bank_id="b", session_id="B"))
    assert out[0].restored_memory_ids == (true.memory_id,)
    assert state.heads["k/x"] == true.memory_id


def test_retraction_leaves_a_later_trusted_value_in_place():
    state = BankState("b")
    run(state, turn("a", session="A"), prepared(fact("k/x", "1")))
    run(state, turn("b", session="B", minutes=1), prepared(fact("k/x", "2")))
    later = run(state, turn("c", session="C", minutes=2), prepared(fact("k/x", "3")))[0]
    out = run(state, RetractionRequested(bank_id="b", session_id="B"))
    assert out[0].restored_memory_ids == ()
    assert state.heads["k/x"] == later.memory_id


def test_retraction_by_time_range_and_source():
    state = BankState("b")
    early = run(state, turn("a", minutes=0), prepared(fact("k/a", "1")))[0]
    doc = run(state, turn("b", minutes=10, source="document"), prepared(fact("k/b", "1")))[0]
    out = run(state, RetractionRequested(bank_id="b", since=T0 + timedelta(minutes=5), source="document"))
    assert out[0].retracted_memory_ids == (doc.memory_id,)
    assert state.memories[early.memory_id].status == "active"


def test_restore_undoes_a_retraction():
    state = BankState("b")
    true = run(state, turn("a", session="A"), prepared(fact("k/x", "1")))[0]
    bad = run(state, turn("b", session="B", minutes=1), prepared(fact("k/x", "2")))[0]
    run(state, RetractionRequested(bank_id="b", session_id="B"))
    out = run(state, RestoreRequested(bank_id="b", memory_ids=(bad.memory_id,)))
    assert [type(e) for e in out] == [MemoryRestored, MemorySuperseded]
    assert out[1].memory_id == true.memory_id
    assert state.heads["k/x"] == bad.memory_id and state.memories[true.memory_id].status == "superseded"


def test_undoing_a_retraction_of_a_chain_rebuilds_the_chain():
    state = BankState("b")
    true = run(state, turn("a", session="A"), prepared(fact("k/x", "1")))[0]
    first = run(state, turn("b", session="B", minutes=1), prepared(fact("k/x", "2")))[0]
    second = run(state, turn("c", session="B", minutes=2), prepared(fact("k/x", "3")))[0]
    before = {m.memory_id: (m.status, m.superseded_by) for m in state.memories.values()}
    (retracted,) = run(state, RetractionRequested(bank_id="b", session_id="B"))
    run(state, RestoreRequested(bank_id="b", memory_ids=retracted.retracted_memory_ids))
    assert retracted.retracted_memory_ids == (first.memory_id, second.memory_id)
    assert [m.memory_id for m in state.active()] == [second.memory_id]  # one head per key, as before
    assert {m.memory_id: (m.status, m.superseded_by) for m in state.memories.values()} == before
    assert state.memories[true.memory_id].superseded_by == first.memory_id


def test_restoring_a_replaced_memory_that_was_forgotten_brings_it_back_as_it_stood():
    """Found by a new user over HTTP: forget the old MySQL episode after the correction, restore it, and it was
    active again, ranked above the correction."""
    state = BankState("b")
    old = run(state, turn("a"), prepared(fact("team/database", "mysql")))[0]
    new = run(state, turn("b", minutes=1), prepared(fact("team/database", "postgresql")))[0]
    run(state, ForgetRequested(bank_id="b", memory_ids=(old.memory_id,), reason="tidy"))
    out = run(state, RestoreRequested(bank_id="b", memory_ids=(old.memory_id,), reason="oops"))
    assert [type(e) for e in out] == [MemoryRestored, MemorySuperseded]
    assert (out[1].memory_id, out[1].superseded_by) == (old.memory_id, new.memory_id)
    assert state.memories[old.memory_id].status == "superseded" and state.heads["team/database"] == new.memory_id
    out = run(state, RestoreRequested(bank_id="b", memory_ids=(old.memory_id,)))  # asked for itself: over it
    assert state.heads["team/database"] == old.memory_id and state.memories[new.memory_id].status == "superseded"


def test_fold_as_of_is_the_state_at_that_moment():
    state = BankState("b")
    events = run(state, turn("a", minutes=0), prepared(fact("k/x", "1")))
    events += run(state, turn("b", minutes=10), prepared(fact("k/x", "2")))
    then = fold("b", events, as_of=T0 + timedelta(minutes=5))
    assert [m.value for m in then.active()] == ["1"] and then.heads["k/x"] == events[0].memory_id
    assert [m.value for m in fold("b", events).active()] == ["2"]


def test_a_filler_turn_retains_nothing_whatever_the_extractor_proposed():
    state = BankState("b")
    episode = Candidate(kind="episode", text="好的，谢谢")
    assert run(state, turn("好的，谢谢"), prepared(episode, fact("user/mood", "good"))) == []
    kept = run(state, turn("thanks — and book the 9:00 train"), prepared(Candidate(kind="episode", text="x")))
    assert [e.type for e in kept] == ["MemoryRetained"]


def test_an_erased_turn_retains_nothing_whatever_the_extractor_proposed():
    """Its text is the placeholder the log reads once its key is destroyed (an import, a group started over)."""
    state = BankState("b")
    erased = {"erased_by": "operator", "erased_at": "2026-12-01T14:03:07+00:00", "erased_reason": "user asked"}
    placeholder = "[erased by operator at 2026-12-01T14:03:07+00:00: user asked]"
    assert run(state, turn(placeholder, metadata=erased), prepared(Candidate(kind="episode", text=placeholder))) == []
    said = run(state, turn(placeholder), prepared(Candidate(kind="episode", text=placeholder)))  # typed by a user
    assert [e.type for e in said] == ["MemoryRetained"]


def test_an_erased_memory_is_never_restored():
    """Undoing a rollback after its memories were erased would make the placeholder an active memory."""
    state = BankState("b")
    true = run(state, turn("a", session="A"), prepared(fact("k/x", "1")))[0]
    bad = run(state, turn("b", session="B", minutes=1), prepared(fact("k/x", "2")))[0]
    run(state, RetractionRequested(bank_id="b", session_id="B"))
    assert [type(e) for e in run(state, ErasureRequested(bank_id="b", session_id="B", reason="asked"))] == [
        ContentErased
    ]
    out = run(state, RestoreRequested(bank_id="b", memory_ids=(bad.memory_id,)))
    assert [type(e) for e in out] == [CommandIgnored]
    assert state.heads["k/x"] == true.memory_id and state.memories[bad.memory_id].status == "forgotten"


def test_an_erasure_finds_the_memories_retained_after_the_one_before_it():
    """The actor finds an erasure's memories by session and source turn (an index the first erasure builds,
    kept up from then on), not by reading every memory: what is retained after an erasure is found by the
    next one, by its session or by the turn it came from, and another session's memories are not."""
    state = BankState("b")
    first = run(state, turn("a", session="A", turn_id="ta"), prepared(fact("user/pet", "cat")))[0]
    assert run(state, ErasureRequested(bank_id="b", session_id="A", reason="asked"))[0].memory_ids == (first.memory_id,)
    later = run(state, turn("b", session="B", turn_id="tb", minutes=1), prepared(fact("user/car", "tesla")))[0]
    kept = run(state, turn("c", session="C", turn_id="tc", minutes=2), prepared(fact("user/drink", "tea")))[0]
    by_turn = run(state, ErasureRequested(bank_id="b", turn_id="tb", reason="asked"))
    assert by_turn[0].memory_ids == (later.memory_id,) and state.memories[later.memory_id].erased
    assert not state.memories[kept.memory_id].erased
    by_session = run(state, ErasureRequested(bank_id="b", session_id="C", reason="asked"))
    assert by_session[0].memory_ids == (kept.memory_id,)
