"""Trust from identity: each relation to the bank (owner, other user, assistant, tool, document), and disputes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np

from hindsight_es.events import (
    DisputeResolutionRequested,
    DisputeResolved,
    MemoryDisputed,
    MemoryQuarantined,
    MemoryReinforced,
    MemoryRetained,
    MemorySuperseded,
    SetOwnersRequested,
    TurnRecorded,
)
from hindsight_es.extraction import RuleExtractor
from hindsight_es.memory import BankState, Prepared, decide, evolve
from hindsight_es.memory.trust import owners

T0 = datetime(2026, 2, 1, tzinfo=UTC)
RULES = RuleExtractor()


def turn(text: str, *, source: str = "user", actor: str = "alice", minutes: int = 0) -> TurnRecorded:
    return TurnRecorded(
        bank_id="b",
        session_id="s",
        turn_id=str(uuid4()),
        text=text,
        source=source,
        role={"document": "tool"}.get(source, source),
        actor=actor,
        occurred_at=T0 + timedelta(minutes=minutes),
    )


def run(state: BankState, event, with_rules: bool = True):
    prepared = None
    if isinstance(event, TurnRecorded):
        cands = RULES.extract(event.text, source=event.source)
        prepared = Prepared(cands, np.ones((len(cands), 4), np.float32), "e", RULES.id)
    out = decide(state, event, prepared)
    for e in out:
        evolve(state, e)
    return out


def retained(events) -> list[MemoryRetained]:
    return [e for e in events if isinstance(e, MemoryRetained)]


def test_an_undeclared_bank_is_owned_by_its_first_user_principal():
    state = BankState("b")
    first = run(state, turn("I live in Berlin."))
    assert owners(state) == ("alice",) and {m.provenance for m in retained(first)} == {"user"}
    assert all(m.confirmed and m.trust == "trusted" for m in retained(first))


def test_declared_owners_decide_whose_user_turns_are_the_owners_word():
    state = BankState("b")
    run(state, SetOwnersRequested(bank_id="b", owners=("bob",), actor="operator"))
    out = run(state, turn("I live in Berlin.", actor="alice"))
    assert {m.provenance for m in retained(out)} == {"other_user"} and not any(m.confirmed for m in retained(out))
    assert {m.key for m in retained(out)} == {None, "member:alice/location"}  # not the owner's user/location


def test_another_user_cannot_supersede_the_owner_it_disputes():
    state = BankState("b")
    (_, fact) = retained(run(state, turn("We deploy on AWS.")))
    out = run(state, turn("We deploy on GCP.", actor="mallory", minutes=1))
    disputed = [e for e in out if isinstance(e, MemoryDisputed)]
    assert disputed and all(d.disputes == fact.memory_id for d in disputed)
    assert state.memories[fact.memory_id].status == "active" and state.heads["team/cloud_provider"] == fact.memory_id


def test_the_assistant_cannot_supersede_the_owner_and_its_inferences_wait_for_confirmation():
    state = BankState("b")
    (_, fact) = retained(run(state, turn("We deploy on AWS.")))
    out = run(state, turn("We agreed to move everything to Azure.", source="assistant", minutes=1))
    assert [type(e) for e in out if not isinstance(e, MemoryRetained)] == [MemoryDisputed, MemoryDisputed]
    assert state.memories[fact.memory_id].status == "active"
    # an inference about something the user never said is kept, unconfirmed, until the user says it
    (inferred,) = retained(run(state, turn("Your sister Ana lives in Lisbon.", source="assistant", minutes=2)))
    assert inferred.provenance == "assistant" and not inferred.confirmed
    confirm = run(state, turn("Your sister Ana lives in Lisbon.", minutes=3))
    assert [e.confirmed for e in confirm if isinstance(e, MemoryReinforced)] == [True]
    assert state.memories[inferred.memory_id].confirmed


def test_the_assistant_claiming_what_the_user_said_is_disputed_without_a_key():
    state = BankState("b")
    (owner,) = retained(run(state, turn("I'm allergic to penicillin.")))[:1]
    out = run(state, turn("As you told me, your penicillin allergy was ruled out.", source="assistant", minutes=1))
    assert any(isinstance(e, MemoryDisputed) for e in out)
    assert state.memories[owner.memory_id].status == "active"


def test_tools_and_documents_dispute_by_key_by_claim_and_by_contradiction():
    state = BankState("b")
    run(state, turn("I live in Shanghai."))
    run(state, turn("My flight is on Tuesday.", minutes=1))
    run(state, turn("我们每周一开例会。", minutes=1))
    cases = [
        ("assistant", "You moved to Moscow, you live in Moscow now."),  # a claim about the owner, read as theirs
        ("tool", "Flight rescheduled to Thursday."),  # no key: similar, with a changed weekday
        ("document", "例会改到周五了。"),
    ]
    for i, (source, text) in enumerate(cases, 2):
        out = run(state, turn(text, source=source, minutes=i))
        assert any(isinstance(e, MemoryDisputed) for e in out), text
    assert not any(m.provenance != "user" and m.status == "active" for m in state.memories.values())


def test_a_documents_first_person_is_its_author_not_the_owner():
    state = BankState("b")
    run(state, turn("I live in Berlin."))
    out = run(state, turn("I live in Oslo and I love skiing.", source="document", minutes=1))
    assert not any(isinstance(e, MemoryDisputed) for e in out)
    assert all(m.key is None or not m.key.startswith("user/") for m in retained(out))
    assert state.heads["user/location"] != retained(out)[0].memory_id


def test_the_owner_resolves_a_dispute_anyone_else_is_ignored():
    state = BankState("b")
    (_, fact) = retained(run(state, turn("We deploy on AWS.")))
    out = run(state, turn("We deploy on GCP.", source="tool", minutes=1))
    challenger = next(e for e in out if isinstance(e, MemoryDisputed)).memory_id
    ignored = DisputeResolutionRequested(bank_id="b", memory_ids=(challenger,), outcome="accept", actor="mallory")
    assert [e.type for e in run(state, ignored)] == ["CommandIgnored"]
    accept = DisputeResolutionRequested(bank_id="b", memory_ids=(challenger,), outcome="accept", actor="alice")
    resolved = run(state, accept)
    assert [type(e) for e in resolved][:2] == [DisputeResolved, MemorySuperseded]
    assert state.memories[challenger].status == "active" and state.memories[challenger].confirmed
    assert state.memories[fact.memory_id].status == "superseded"
    assert fact.memory_id in state.memories and challenger not in state.memories[fact.memory_id].disputed_by


def test_a_rejected_dispute_is_forgotten_and_the_trusted_memory_stays():
    state = BankState("b")
    (_, fact) = retained(run(state, turn("We deploy on AWS.")))
    out = run(state, turn("We deploy on GCP.", source="document", minutes=1))
    challengers = tuple(e.memory_id for e in out if isinstance(e, MemoryDisputed))  # the turn's episode and fact
    reject = DisputeResolutionRequested(bank_id="b", memory_ids=challengers, outcome="reject", operator=True)
    resolved = run(state, reject)
    assert {(type(e), e.outcome) for e in resolved} == {(DisputeResolved, "rejected")}
    challenger = challengers[0]
    assert state.memories[challenger].status == "forgotten" and state.memories[fact.memory_id].status == "active"
    assert state.memories[fact.memory_id].disputed_by == ()


def test_a_declared_trust_lowers_never_raises():
    state = BankState("b")
    out = run(state, turn("The launch is on May 3.", source="document").model_copy(update={"trust": "trusted"}))
    assert {m.trust for m in retained(out)} == {"untrusted"}


def test_a_documents_words_are_read_as_written_not_as_the_rule_statement_built_from_them():
    # the rule extractor states the blog's first person as "The user likes standing desk": the guard and the
    # dispute check read the sentence it came from, which is the author's, not a claim about the owner
    state = BankState("b")
    run(state, turn("I sit at my desk all day."))
    out = run(state, turn("Blog post: I switched to a standing desk last year and my back pain disappeared.",
                          source="document", minutes=1))  # fmt: skip
    assert retained(out) and all(m.text for m in retained(out))
    assert not any(isinstance(e, MemoryQuarantined | MemoryDisputed) for e in out)


def test_a_turn_of_the_assistant_a_tool_or_the_system_is_never_the_users_word():
    """An agent logging its reply often leaves ``source`` at its default ("user"): the role bounds it."""
    state = BankState("b")
    run(state, turn("I live in Berlin."))
    cities = {"assistant": "Paris", "system": "Rome", "tool": "Oslo"}
    for role, provenance in (("assistant", "assistant"), ("system", "assistant"), ("tool", "tool")):
        text = f"I live in {cities[role]}."
        said = TurnRecorded(bank_id="b", session_id="s", turn_id=role, role=role, text=text, actor="alice")
        assert said.source == "user"  # left at its default
        out = run(state, said)
        assert {m.provenance for m in retained(out)} == {provenance}
        assert {m.source for m in retained(out)} == {provenance} and not any(m.confirmed for m in retained(out))
        assert state.heads["user/location"] != retained(out)[-1].memory_id  # Berlin stays the user's word


def test_the_credential_less_local_doors_are_one_owner():
    """The CLI ("user"), the HTTP API and MCP without tokens, and MCP over stdio are one person on one
    machine; a token's principal is not one of them."""
    state = BankState("b")
    run(state, turn("I live in Berlin.", actor="user"))  # hindsight-es publish
    for door in ("http:local", "mcp:stdio", "mcp:http", "ui:local"):
        out = run(state, turn(f"I like tea number {door}.", actor=door))
        assert {m.provenance for m in retained(out)} == {"user"}, door
    out = run(state, turn("I live in Paris.", actor="mcp:stdio", minutes=2))  # the owner's correction
    assert {m.provenance for m in retained(out)} == {"user"} and any(isinstance(e, MemorySuperseded) for e in out)
    out = run(state, turn("I live in Rome.", actor="mcp:token-ab12", minutes=3))
    assert {m.provenance for m in retained(out)} == {"other_user"}


def test_a_token_is_one_principal_at_every_door():
    """The same token over MCP, the HTTP API and the dashboard is one person: the owner at each door, and
    another user's keys are namespaced by the token, not the door (a correction over HTTP supersedes what
    the same person said over MCP)."""
    state = BankState("b")
    run(state, turn("I live in Berlin.", actor="mcp:token-ab12"))
    moved = run(state, turn("I live in Lisbon now.", actor="http:token-ab12", minutes=1))
    assert {m.provenance for m in retained(moved)} == {"user"} and state.heads["user/location"] in {
        m.memory_id for m in retained(moved)
    }
    other = retained(run(state, turn("I live in Madrid.", actor="mcp:token-cd34", minutes=2)))
    again = retained(run(state, turn("I live in Porto.", actor="ui:token-cd34", minutes=3)))
    assert {m.key for m in other + again} == {None, "member:token-cd34/location"}
    assert state.heads["member:token-cd34/location"] == next(m.memory_id for m in again if m.key)
    local = BankState("b")
    run(local, turn("I live in Berlin.", actor="mcp:stdio"))
    assert {m.provenance for m in retained(run(local, turn("I live in Rome.", actor="http:local", minutes=1)))} == {
        "user"
    }
