"""Given a disputing turn, when the owner resolves its typed memories, then its episode goes with them: a
turn disputed whole leaves an episode that says nothing but what its typed memories say, and left disputed it
went on claiming what the owner rejected (listed by ``disputes list``, shown in every context block)."""

from __future__ import annotations

from hindsight_es.events import DisputeResolutionRequested, DisputeResolved, MemoryDisputed, RestoreRequested
from hindsight_es.memory import fold
from tests.unit.test_episodes import MYSQL, Bank, episode, fact, prepared, turn

ORACLE = "The team database is Oracle."


def _disputing(bank: Bank, text: str, *typed) -> dict[str, object]:
    document = turn(text, session="doc", minutes=5).model_copy(update={"source": "document"})
    out = bank.run(document, prepared(episode(text), *typed))
    disputed = [e for e in out if isinstance(e, MemoryDisputed)]
    assert len(disputed) == 1 + len(typed)
    return {("episode" if i == 0 else typed[i - 1].value): e.memory_id for i, e in enumerate(disputed)}


def resolve(bank: Bank, memory_id, outcome: str) -> list:
    return bank.run(DisputeResolutionRequested(bank_id="b", memory_ids=(memory_id,), outcome=outcome, operator=True))


def test_rejecting_the_fact_rejects_its_episode_and_restoring_it_brings_both_back() -> None:
    bank = Bank()
    owner = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    ids = _disputing(bank, ORACLE, fact("team/database", "oracle", ORACLE))
    out = resolve(bank, ids["oracle"], "reject")
    assert [(type(e), e.memory_id, e.outcome, e.along_with) for e in out] == [
        (DisputeResolved, ids["oracle"], "rejected", None),
        (DisputeResolved, ids["episode"], "rejected", ids["oracle"]),
    ]
    assert bank.state.memories[ids["episode"]].status == "forgotten"
    assert bank.state.memories[owner["mysql"].memory_id].disputed_by == ()  # no dispute left open
    bank.run(RestoreRequested(bank_id="b", memory_ids=(ids["oracle"],)))
    assert bank.state.memories[ids["episode"]].status == "active"
    assert fold("b", bank.log).memories == bank.state.memories


def test_accepting_the_fact_accepts_its_episode() -> None:
    bank = Bank()
    owner = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    ids = _disputing(bank, ORACLE, fact("team/database", "oracle", ORACLE))
    resolve(bank, ids["oracle"], "accept")
    memories = bank.state.memories
    assert (memories[ids["episode"]].status, memories[ids["episode"]].confirmed) == ("active", True)
    assert memories[owner["mysql"].memory_id].status == "superseded"
    assert memories[owner["episode"].memory_id].status == "superseded"  # the owner's episode went with its fact
    assert memories[owner["mysql"].memory_id].disputed_by == ()
    assert fold("b", bank.log).memories == memories


def test_a_turn_of_two_memories_is_accepted_whole_or_rejected_with_the_first() -> None:
    text = "The team database is Oracle and we deploy on GCP."
    two = (
        fact("team/database", "oracle", "The team database is Oracle"),
        fact("team/cloud", "gcp", "we deploy on GCP."),
    )
    bank = Bank()
    bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    ids = _disputing(bank, text, *two)
    resolve(bank, ids["oracle"], "accept")
    assert bank.state.memories[ids["episode"]].status == "disputed"  # it still says what waits: GCP
    resolve(bank, ids["gcp"], "accept")
    assert bank.state.memories[ids["episode"]].status == "active"
    again = Bank()
    again.say(MYSQL, fact("team/database", "mysql", MYSQL))
    ids = _disputing(again, text, *two)
    resolve(again, ids["oracle"], "accept")
    out = resolve(again, ids["gcp"], "reject")
    assert [(e.memory_id, e.outcome, e.along_with) for e in out][1:] == [(ids["episode"], "rejected", ids["gcp"])]


def test_an_episode_with_words_of_its_own_stays_disputed() -> None:
    bank = Bank()
    bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    text = f"{ORACLE} The office dog is called Biscuit and loves the lobby."
    ids = _disputing(bank, text, fact("team/database", "oracle", ORACLE))
    assert len(resolve(bank, ids["oracle"], "reject")) == 1
    assert bank.state.memories[ids["episode"]].status == "disputed"
