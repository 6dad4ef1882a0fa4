"""Given memory events, when an input arrives, then these events: an episode follows its turn's typed memories."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import numpy as np
import pytest

from hindsight_es.events import (
    CorrectionRequested,
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
from hindsight_es.extraction import RuleExtractor
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import BankState, Prepared, decide, evolve, fold, plan_retraction
from hindsight_es.memory.episodes import repeated, says_nothing_else

T0 = datetime(2026, 1, 1, tzinfo=UTC)
MYSQL = "We use MySQL for the order database."
POSTGRES = "不对，我们用的是 PostgreSQL，不是 MySQL。"


def turn(text: str, session: str = "s1", minutes: int = 0) -> TurnRecorded:
    return TurnRecorded(
        bank_id="b", session_id=session, turn_id=str(uuid4()), text=text, occurred_at=T0 + timedelta(minutes=minutes)
    )


def episode(text: str) -> Candidate:
    return Candidate(kind="episode", text=text)


def fact(key: str, value: str, text: str, correction: bool = False) -> Candidate:
    return Candidate(
        kind="correction" if correction else "fact", text=text, key=key, value=value, is_correction=correction
    )


def prepared(*cands: Candidate) -> Prepared:
    return Prepared(list(cands), np.ones((len(cands), 4), np.float32), "test-embedder", "test-extractor")


class Bank:
    """A bank state and its log: ``run`` decides an input and evolves the state, as the actor does."""

    def __init__(self) -> None:
        self.state, self.log = BankState("b"), []

    def run(self, event, prep: Prepared | None = None) -> list:
        events = decide(self.state, event, prep)
        for e in events:
            evolve(self.state, e)
        self.log += events
        return events

    def say(self, text: str, *typed: Candidate, session: str = "s1", minutes: int = 0) -> dict[str, MemoryRetained]:
        """A turn with its episode and typed candidates; returns what it retained, by kind (text for typed)."""
        out = self.run(turn(text, session, minutes), prepared(episode(text), *typed))
        return {"episode" if e.kind == "episode" else e.value: e for e in out if isinstance(e, MemoryRetained)}

    def status(self, retained: MemoryRetained) -> str:
        return self.state.memories[retained.memory_id].status


# ------------------------------------------------------------------ what "says nothing else" means


@pytest.mark.parametrize(
    ("episode_text", "typed", "expected"),
    [
        (MYSQL, [MYSQL], True),
        (POSTGRES, [POSTGRES], True),
        ("Hi! I'm Lin, I run a small tea shop in Hangzhou.", ["I'm Lin, I run a small tea shop in Hangzhou."], True),
        ("谢谢！我们用 MySQL。", ["我们用 MySQL。"], True),  # two characters of thanks
        ("Thanks a lot! We use MySQL.", ["We use MySQL."], False),  # three words of its own: kept, to be safe
        (f"{MYSQL} My daughter Mia turns five next week.", [MYSQL], False),
        ("我们用 MySQL。我女儿下周五岁。", ["我们用 MySQL。"], False),
        ("We use MySQL and Redis.", ["We use MySQL.", "We use Redis."], True),
        ("ok thanks", ["ok"], False),  # as much left over as covered: too little to judge
        ("My daughter is called Mia, she is six.", ["My daughter is called Mia"], False),  # a number is said
        ("我女儿叫小美，两岁", ["我女儿叫小美"], False),
        ("Hi, I have 2 cats.", ["I have 2 cats."], True),  # the number is the typed memory's too
        ("", [MYSQL], False),
    ],
)
def test_says_nothing_else(episode_text: str, typed: list[str], expected: bool) -> None:
    assert says_nothing_else(episode_text, typed, typed) is expected


MIA_BORN = "Please remember: my daughter Mia was born on 2019-05-03."


@pytest.mark.parametrize(
    ("episode_text", "quotes", "statements", "expected"),
    [
        (MIA_BORN, [MIA_BORN], ["The user's daughter's name: Mia"], False),  # the date is in the quote only
        (MIA_BORN, [MIA_BORN], ["The user's daughter Mia was born on 2019-05-03"], True),
        ("I am 34 years old.", ["I am 34 years old."], ["The user is 34 years old"], True),
        ("My flight is at 7pm.", ["My flight is at 7pm."], ["The user's flight: at 9pm"], False),
        ("I have two cats.", ["I have two cats."], ["The user has cats"], False),  # a number word too
        ("My son Leo just turned seven.", ["My son Leo just turned seven."], ["The user's son's name: Leo"], False),
        # a statement keeps a number's value, as it writes it
        ("我奶奶今年八十五岁了。", ["我奶奶今年八十五岁了。"], ["用户的奶奶85岁"], True),
        ("我92年的，家里一直催生", ["我92年的，家里一直催生"], ["用户的出生年份：1992"], True),
        ("We're twenty-five people.", ["We're twenty-five people."], ["The team has 25 people"], True),
        # a word, not a quantity: "one", a lone 一, a CJK run without a digit
        ("Grew up in Buffalo, one bit.", ["Grew up in Buffalo, one bit."], ["The user is from Buffalo"], True),
        ("我对芒果过敏，零食别带芒果", ["我对芒果过敏，零食别带芒果"], ["用户对芒果过敏"], True),
    ],
)
def test_a_quantity_is_said_by_a_statement_not_only_by_a_quote(
    episode_text: str, quotes: list[str], statements: list[str], expected: bool
) -> None:
    assert says_nothing_else(episode_text, quotes, statements) is expected


def test_an_episode_whose_date_its_fact_drops_is_shown_beside_the_fact() -> None:
    """The daughter's name is the fact's; the date of birth only the episode's: recall shows both."""
    found = RuleExtractor().extract(MIA_BORN)
    assert found[0].kind == "episode" and len(found) > 1
    assert not any("2019" in c.text for c in found[1:])  # else the date would be a typed memory's to show
    assert not says_nothing_else(found[0].text, [c.said for c in found[1:]], [c.text for c in found[1:]])
    rows = [
        {"memory_id": str(n), "kind": c.kind, "text": c.text, "quote": c.quote, "source_turn_ids": ["t1"]}
        for n, c in enumerate(found)
    ]
    assert repeated(rows) == {}


def test_the_rule_extractor_sentences_cover_their_episode() -> None:
    """What the bank actor gets from the default extractor: typed memories quote the turn's sentences."""
    texts = (MYSQL, POSTGRES, "Hi! I live in Berlin.", "Thanks! My name is Dana.", "国内快递我以后都用顺丰。")
    for text in texts:
        found = RuleExtractor().extract(text, speaker="Lin")
        assert found[0].kind == "episode" and len(found) > 1, text
        assert says_nothing_else(found[0].text, [c.said for c in found[1:]], [c.text for c in found[1:]]), text


def test_a_typed_memory_quotes_the_part_of_a_semicolon_sentence_that_says_it() -> None:
    """ "no longer works at Amazon" does not say the turn's Stripe: its episode stays a hit of its own."""
    text = "I quit my job at Amazon; I'm at Stripe now."
    found = RuleExtractor().extract(text)
    assert [(c.key, c.quote) for c in found[1:]] == [("user/employer", "I quit my job at Amazon;")]
    assert not says_nothing_else(found[0].text, [c.said for c in found[1:]], [c.text for c in found[1:]])
    found = RuleExtractor().extract("I gave up tea; coffee only now.")
    assert [(c.key, c.value, c.quote) for c in found[1:]] == [("user/drink", "coffee", "coffee only now.")]


# ------------------------------------------------------------------ superseded, corrected, forgotten


def test_a_superseded_fact_takes_its_episode_along() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    t2 = turn(POSTGRES, minutes=5)
    out = bank.run(t2, prepared(episode(POSTGRES), fact("team/database", "postgresql", POSTGRES, correction=True)))
    new = out[1]
    assert [type(e) for e in out] == [MemoryRetained, MemoryRetained, MemorySuperseded, MemorySuperseded]
    taken = out[3]
    assert (taken.memory_id, taken.superseded_by, taken.along_with) == (
        old["episode"].memory_id,
        new.memory_id,
        old["mysql"].memory_id,
    )
    assert taken.valid_to == t2.occurred_at and taken.causation_id == t2.event_id
    assert bank.status(old["episode"]) == bank.status(old["mysql"]) == "superseded"
    # The new memory replaced the fact, not the episode: the chain a rollback walks is unchanged.
    assert bank.state.memories[new.memory_id].supersedes == old["mysql"].memory_id
    assert [m.kind for m in bank.state.active()] == ["episode", "correction"]


def test_an_episode_with_content_of_its_own_stays() -> None:
    bank = Bank()
    long = f"{MYSQL} My daughter Mia turns five next week."
    old = bank.say(long, fact("team/database", "mysql", MYSQL))
    out = bank.run(turn(POSTGRES, minutes=5), prepared(fact("team/database", "postgresql", POSTGRES, True)))
    assert [type(e) for e in out] == [MemoryRetained, MemorySuperseded]
    assert bank.status(old["episode"]) == "active"


def test_an_episode_goes_with_the_first_of_its_memories_to_go_and_comes_back_when_all_are_back() -> None:
    """Kept while another memory of its turn is active, the episode would go on saying the replaced words."""
    bank = Bank()
    text = "I live in Berlin and work at Siemens."
    berlin, siemens = fact("user/location", "berlin", "I live in Berlin."), fact("user/employer", "siemens", text)
    old = bank.say(text, berlin, siemens)
    lisbon = bank.say("I live in Lisbon now.", fact("user/location", "lisbon", "I live in Lisbon now."), minutes=1)
    episode_ = bank.state.memories[old["episode"].memory_id]
    assert (bank.status(old["berlin"]), bank.status(old["siemens"]), episode_.status) == (
        "superseded",
        "active",
        "superseded",
    )
    assert (episode_.superseded_by, episode_.along_with) == (lisbon["lisbon"].memory_id, old["berlin"].memory_id)
    # Siemens replaced too: bringing Berlin back alone leaves the episode out, it still says "Siemens".
    bank.say("I work at Google now.", fact("user/employer", "google", "I work at Google now."), minutes=2)
    bank.run(RestoreRequested(bank_id="b", memory_ids=(old["berlin"].memory_id,)))
    assert (bank.status(old["berlin"]), bank.status(old["episode"])) == ("active", "superseded")
    bank.run(RestoreRequested(bank_id="b", memory_ids=(old["siemens"].memory_id,)))
    assert (bank.status(old["siemens"]), bank.status(old["episode"])) == ("active", "active")


def test_forgetting_one_memory_of_a_turn_forgets_its_episode() -> None:
    """The forgotten words must not come back through the episode that says them beside another fact."""
    bank = Bank()
    text = "We use MySQL. I live in Berlin."
    old = bank.say(
        text, fact("team/database", "mysql", "We use MySQL."), fact("user/location", "berlin", "I live in Berlin.")
    )
    out = bank.run(ForgetRequested(bank_id="b", memory_ids=(old["berlin"].memory_id,), reason="private"))
    assert [(type(e), e.memory_id, e.along_with) for e in out] == [
        (MemoryForgotten, old["berlin"].memory_id, None),
        (MemoryForgotten, old["episode"].memory_id, old["berlin"].memory_id),
    ]
    assert {m.memory_id for m in bank.state.active()} == {old["mysql"].memory_id}
    bank.run(RestoreRequested(bank_id="b", memory_ids=(old["berlin"].memory_id,)))
    assert bank.status(old["episode"]) == "active"


def test_an_episode_that_restated_a_memory_follows_it() -> None:
    """A later turn saying the fact again reinforces it instead of copying it; its episode follows the fact."""
    bank = Bank()
    first = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    again = bank.run(
        turn(f"Yes. {MYSQL}", minutes=1), prepared(episode(f"Yes. {MYSQL}"), fact("team/database", "mysql", MYSQL))
    )
    assert [type(e) for e in again] == [MemoryRetained, MemoryReinforced]
    bank.say("We use PostgreSQL.", fact("team/database", "postgresql", "We use PostgreSQL."), minutes=2)
    assert bank.status(first["episode"]) == "superseded"
    assert bank.state.memories[again[0].memory_id].status == "superseded"


def test_an_episode_only_turn_is_never_touched() -> None:
    bank = Bank()
    chat = bank.say("I went hiking yesterday")
    bank.say(MYSQL, fact("team/database", "mysql", MYSQL), minutes=1)
    bank.say(POSTGRES, fact("team/database", "postgresql", POSTGRES, True), minutes=2)
    assert bank.status(chat["episode"]) == "active"


def test_a_correction_takes_the_episode_along() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    cmd = CorrectionRequested(bank_id="b", memory_id=old["mysql"].memory_id, text="We use PostgreSQL.")
    out = bank.run(cmd, prepared(Candidate(kind="fact", text="We use PostgreSQL.")))
    assert [type(e) for e in out] == [MemoryRetained, MemorySuperseded, MemorySuperseded]
    assert (out[2].memory_id, out[2].superseded_by, out[2].along_with) == (
        old["episode"].memory_id,
        out[0].memory_id,
        old["mysql"].memory_id,
    )
    assert [m.memory_id for m in bank.state.active()] == [out[0].memory_id]


def test_forgetting_the_fact_forgets_its_episode_and_restoring_it_brings_both_back() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    out = bank.run(ForgetRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,), reason="stale"))
    assert [(type(e), e.memory_id, e.along_with) for e in out] == [
        (MemoryForgotten, old["mysql"].memory_id, None),
        (MemoryForgotten, old["episode"].memory_id, old["mysql"].memory_id),
    ]
    assert bank.state.active() == []
    out = bank.run(RestoreRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,)))
    assert [(type(e), e.memory_id) for e in out] == [
        (MemoryRestored, old["mysql"].memory_id),
        (MemoryRestored, old["episode"].memory_id),
    ]
    episode_ = bank.state.memories[old["episode"].memory_id]
    assert (episode_.status, episode_.along_with) == ("active", None)


def test_an_episode_forgotten_on_its_own_stays_forgotten() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    out = bank.run(ForgetRequested(bank_id="b", memory_ids=(old["mysql"].memory_id, old["episode"].memory_id)))
    assert [e.along_with for e in out] == [None, None]  # both named: nothing taken along
    bank.run(RestoreRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,)))
    assert (bank.status(old["mysql"]), bank.status(old["episode"])) == ("active", "forgotten")


def test_restoring_a_superseded_fact_swaps_the_episodes_too() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    new = bank.say(POSTGRES, fact("team/database", "postgresql", POSTGRES, True), minutes=1)
    out = bank.run(RestoreRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,)))
    assert [(type(e).__name__, e.memory_id) for e in out] == [
        ("MemoryRestored", old["mysql"].memory_id),
        ("MemorySuperseded", new["postgresql"].memory_id),
        ("MemoryRestored", old["episode"].memory_id),
        ("MemorySuperseded", new["episode"].memory_id),
    ]
    assert out[3].superseded_by == old["mysql"].memory_id and out[3].along_with == new["postgresql"].memory_id
    assert {m.memory_id for m in bank.state.active()} == {old["mysql"].memory_id, old["episode"].memory_id}


# ------------------------------------------------------------------ rollback and its undo


def test_rolling_back_the_superseding_session_brings_the_episode_back_and_undo_retires_it_again() -> None:
    bank = Bank()
    true = bank.say(MYSQL, fact("team/database", "mysql", MYSQL), session="A")
    poison = bank.say("We use MongoDB.", fact("team/database", "mongodb", "We use MongoDB."), session="B", minutes=1)
    poisoned = {m.memory_id: (m.status, m.superseded_by) for m in bank.state.memories.values()}
    assert bank.status(true["episode"]) == "superseded"

    command = RetractionRequested(bank_id="b", session_id="B")
    retract, restore = plan_retraction(bank.state, command)
    (rolled,) = bank.run(command)
    assert isinstance(rolled, SourceRetracted)
    assert (
        set(rolled.retracted_memory_ids)
        == {m.memory_id for m in retract}
        == {poison["episode"].memory_id, poison["mongodb"].memory_id}
    )
    assert (
        set(rolled.restored_memory_ids)
        == {m.memory_id for m in restore}
        == {true["episode"].memory_id, true["mysql"].memory_id}
    )
    assert {m.memory_id for m in bank.state.active()} == {true["episode"].memory_id, true["mysql"].memory_id}
    assert all(m.along_with is None and m.valid_to is None for m in bank.state.active())

    bank.run(RestoreRequested(bank_id="b", memory_ids=rolled.retracted_memory_ids))  # undo the rollback
    assert {m.memory_id: (m.status, m.superseded_by) for m in bank.state.memories.values()} == poisoned


def test_a_rollback_brings_an_episode_back_only_when_all_its_memories_are_back() -> None:
    bank = Bank()
    text = "We use MySQL. I live in Berlin."
    mysql, berlin = (
        fact("team/database", "mysql", "We use MySQL."),
        fact("user/location", "berlin", "I live in Berlin."),
    )
    true = bank.say(text, mysql, berlin, session="A")
    bank.say("We use MongoDB.", fact("team/database", "mongodb", "We use MongoDB."), session="B", minutes=1)
    bank.say("I live in Paris.", fact("user/location", "paris", "I live in Paris."), session="C", minutes=2)
    retract, restore = plan_retraction(bank.state, RetractionRequested(bank_id="b", session_id="B"))
    assert {m.memory_id for m in restore} == {true["mysql"].memory_id}  # the episode still says Berlin
    bank.run(RetractionRequested(bank_id="b", session_id="B"))
    assert (bank.status(true["mysql"]), bank.status(true["episode"])) == ("active", "superseded")


def test_the_log_folds_to_the_live_state() -> None:
    bank = Bank()
    old = bank.say(MYSQL, fact("team/database", "mysql", MYSQL))
    bank.say(POSTGRES, fact("team/database", "postgresql", POSTGRES, True), minutes=1)
    bank.run(RestoreRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,)))
    bank.run(ForgetRequested(bank_id="b", memory_ids=(old["mysql"].memory_id,)))
    bank.run(RetractionRequested(bank_id="b", session_id="nobody"))
    replayed = fold("b", bank.log)
    assert replayed.memories == bank.state.memories
    assert {m: i.along_with for m, i in replayed.memories.items()} == {
        m: i.along_with for m, i in bank.state.memories.items()
    }
    assert replayed.yields == bank.state.yields
