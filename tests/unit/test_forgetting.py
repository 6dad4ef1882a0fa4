"""The forgetting lifecycle as decisions: given memory events, when a tick, a session end, a served
recall, a promotion or a forget arrives at a (simulated) time, then these events."""

from __future__ import annotations

from copy import deepcopy
from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import numpy as np
import pytest

from hindsight_es.client.recording import Tally
from hindsight_es.events import (
    Event,
    ForgetRequested,
    JanitorTick,
    MemoriesRecalled,
    MemoryArchived,
    MemoryForgotten,
    MemoryPromoted,
    MemoryRestored,
    MemoryRetained,
    PromoteRequested,
    RecallsCounted,
    RecallServed,
    RecallsTallied,
    RecallUse,
    RestoreRequested,
    RetentionPolicy,
    SessionEnded,
    TurnRecorded,
)
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import BankState, Prepared, decide, evolve
from hindsight_es.memory.retention import retention

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POLICY = RetentionPolicy()


def days(n: float) -> datetime:
    return T0 + timedelta(days=n)


class Bank:
    """A bank state driven through decide/evolve, remembering every event (the log)."""

    def __init__(self) -> None:
        self.state = BankState("b")
        self.log: list[Event] = []
        self.inputs: list[tuple[Event, Prepared | None]] = []

    def run(self, event: Event, prepared: Prepared | None = None) -> list[Event]:
        revived = {e.memory_id: e for e in self.log if isinstance(e, MemoryRetained)}  # what the actor fetches
        out = decide(self.state, event, prepared, revived=revived)
        for produced in out:
            evolve(self.state, produced)
        self.log += out
        self.inputs.append((event, prepared))
        return out

    def say(
        self, *cands: Candidate, at: datetime = T0, session: str = "s1", scope: str = "global", owner: str | None = None
    ) -> list[MemoryRetained]:
        turn = TurnRecorded(
            bank_id="b",
            session_id=session,
            turn_id=str(uuid4()),
            text=cands[0].text,
            occurred_at=at,
            scope=scope,
            owner=owner,
        )
        prep = Prepared(list(cands), np.ones((len(cands), 4), np.float32), "test-embedder", "test-extractor")
        return [e for e in self.run(turn, prep) if isinstance(e, MemoryRetained)]

    def tick(self, at: datetime, **policy) -> list[Event]:
        return self.run(JanitorTick(bank_id="b", occurred_at=at, policy=POLICY.model_copy(update=policy)))

    def status(self, memory: MemoryRetained) -> str:
        return self.state.memories[memory.memory_id].status


def episode(text: str) -> Candidate:
    return Candidate(kind="episode", text=text, importance=0.3, confidence=1.0)


def preference(text: str, key: str, value: str) -> Candidate:
    return Candidate(kind="preference", text=text, key=key, value=value, importance=0.6, confidence=0.85)


def constraint(text: str, key: str) -> Candidate:
    return Candidate(kind="constraint", text=text, key=key, value="yes", importance=0.9, confidence=0.85)


def archived_ids(events: list[Event]) -> set[UUID]:
    return {e.memory_id for e in events if isinstance(e, MemoryArchived)}


# ------------------------------------------------------------------ the score


def test_freshness_halves_per_half_life_and_recalls_strengthen():
    bank = Bank()
    (ep,) = bank.say(episode("we had lunch"))
    info = bank.state.memories[ep.memory_id]
    fresh = retention(info, T0, POLICY)
    assert retention(info, days(14), POLICY) == pytest.approx(fresh / 2)  # episodes: 14-day half-life
    assert retention(info, days(28), POLICY) == pytest.approx(fresh / 4)
    bank.run(RecallServed(bank_id="b", occurred_at=days(28), memory_ids=(ep.memory_id,)))
    assert info.recalls == 1 and info.last_used_at == days(28)
    assert retention(info, days(28), POLICY) > fresh  # recalled just now, and once more use


def test_never_fading_kinds_keep_their_strength():
    bank = Bank()
    (c,) = bank.say(constraint("I'm allergic to peanuts", "user/allergy:peanuts"))
    policy = POLICY.model_copy(update={"half_life_days": {**POLICY.half_life_days, "constraint": None}})
    info = bank.state.memories[c.memory_id]
    assert retention(info, days(3650), policy) == retention(info, T0, policy) > 0.6


# ------------------------------------------------------------------ ticks: decay, grace, capacity


def test_decay_over_simulated_time_archives_episodes_and_keeps_core_preferences():
    bank = Bank()
    (ep,) = bank.say(episode("we talked about the weather"))
    (pref,) = bank.say(preference("please always reply in English", "user/reply_language", "english"))
    (allergy,) = bank.say(constraint("I'm allergic to peanuts", "user/allergy:peanuts"))
    assert bank.tick(days(10)) == []  # an episode at 10 days still holds (0.38 · 2^-10/14 ≈ 0.23)
    month = bank.tick(days(60))
    assert archived_ids(month) == {ep.memory_id}
    assert bank.status(ep) == "archived" and bank.state.memories[ep.memory_id].cold
    assert month[0].retention < 0.1 and "below 0.1" in month[0].reason and month[0].occurred_at == days(60)
    assert bank.tick(days(365)) == []  # a year on, the preference and the constraint are still hot
    assert {bank.status(pref), bank.status(allergy)} == {"active"}


def test_a_recalled_preference_outlives_an_unused_one():
    bank = Bank()
    (used,) = bank.say(preference("I prefer tea", "user/drink", "tea"))
    (unused,) = bank.say(preference("I prefer window seats", "user/seat", "window"))
    for month in range(1, 40):
        bank.run(RecallServed(bank_id="b", occurred_at=days(30 * month), memory_ids=(used.memory_id,)))
    out = bank.tick(days(3 * 365))
    assert archived_ids(out) == {unused.memory_id} and bank.status(used) == "active"


def test_young_memories_are_never_archived_for_decay():
    bank = Bank()
    (weak,) = bank.say(Candidate(kind="episode", text="a passing remark", importance=0.0, confidence=0.0))
    assert bank.tick(days(0.5)) == []  # retention 0, but inside the one-day grace
    assert archived_ids(bank.tick(days(1))) == {weak.memory_id}


def test_capacity_keeps_the_bank_at_its_limit_dropping_the_lowest_retention_first():
    bank = Bank()
    episodes = [bank.say(episode(f"episode {i}"), at=T0 + timedelta(hours=i))[0] for i in range(6)]
    prefs = [bank.say(preference(f"I like {c}", f"user/like:{c}", "yes"))[0] for c in ("tea", "jazz", "rain")]
    out = bank.tick(T0 + timedelta(hours=7), capacity=4)
    assert len(bank.state.active()) == 4
    assert archived_ids(out) == {e.memory_id for e in episodes[:5]}  # the older episodes go first
    assert all("over capacity 4" in e.reason for e in out)
    assert {bank.status(p) for p in prefs} == {"active"}
    assert bank.tick(T0 + timedelta(hours=8), capacity=4) == []  # at the limit: nothing more


# ------------------------------------------------------------------ sessions, promotion


def test_session_scoped_memories_expire_with_their_session_unless_promoted():
    bank = Bank()
    (scratch,) = bank.say(episode("draft the email first"), session="s9", scope="session")
    (kept,) = bank.say(episode("the email goes to Bob"), session="s9", scope="session")
    (lasting,) = bank.say(episode("Bob is my manager"), session="s9")
    (other,) = bank.say(episode("unrelated"), session="s8", scope="session")
    promoted = bank.run(PromoteRequested(bank_id="b", memory_ids=(kept.memory_id,)))
    assert [type(e) for e in promoted] == [MemoryPromoted] and bank.state.memories[kept.memory_id].scope == "global"
    out = bank.run(SessionEnded(bank_id="b", session_id="s9"))
    assert archived_ids(out) == {scratch.memory_id} and "session s9 ended" in out[0].reason
    assert {bank.status(kept), bank.status(lasting), bank.status(other)} == {"active"}


def test_idle_sessions_expire_on_a_tick():
    bank = Bank()
    (idle,) = bank.say(episode("temporary"), at=T0, session="old", scope="session")
    (busy,) = bank.say(episode("temporary too"), at=days(1.5), session="new", scope="session")
    out = bank.tick(days(2))  # "old" idle for 48 h > 24 h; "new" for 12 h
    assert archived_ids(out) == {idle.memory_id} and "session old idle" in out[0].reason
    assert bank.status(busy) == "active"


def test_promoting_an_expired_memory_brings_it_back():
    bank = Bank()
    (m,) = bank.say(episode("keep this"), session="s", scope="session")
    bank.run(SessionEnded(bank_id="b", session_id="s"))
    out = bank.run(PromoteRequested(bank_id="b", memory_ids=(m.memory_id,)))
    assert [type(e) for e in out] == [MemoryRestored, MemoryPromoted] and out[0].revived == m
    assert bank.status(m) == "active" and not bank.state.memories[m.memory_id].cold


# ------------------------------------------------------------------ restore, recall-driven restore


def test_restoring_an_archived_memory_carries_its_retained_event():
    bank = Bank()
    (ep,) = bank.say(episode("the offsite is in Lisbon"))
    bank.tick(days(90))
    command = RestoreRequested(bank_id="b", occurred_at=days(91), memory_ids=(ep.memory_id,), reason="asked")
    # without its retained event there is nothing to rebuild: the command is recorded as changing nothing
    assert [e.type for e in decide(bank.state, command, revived={})] == ["CommandIgnored"]
    out = bank.run(command)
    assert [type(e) for e in out] == [MemoryRestored]
    assert out[0].revived == ep and out[0].occurred_at == days(91) and bank.status(ep) == "active"
    assert bank.tick(days(92)) == []  # just restored: not archived again at once (grace and freshness)


def test_an_archived_memory_served_by_recall_comes_back_unless_its_key_moved_on():
    bank = Bank()
    (old,) = bank.say(preference("I live in Berlin", "user/location", "berlin"))
    bank.tick(days(5), threshold=0.99)  # archive everything
    assert bank.status(old) == "archived"
    served = RecallServed(bank_id="b", occurred_at=days(6), memory_ids=(old.memory_id,), restore_ids=(old.memory_id,))
    out = bank.run(served)
    assert [type(e) for e in out] == [MemoriesRecalled, MemoryRestored] and bank.status(old) == "active"
    bank.tick(days(7), threshold=0.99)
    bank.say(preference("I live in Paris", "user/location", "paris"), at=days(8))
    again = bank.run(
        RecallServed(bank_id="b", occurred_at=days(9), memory_ids=(old.memory_id,), restore_ids=(old.memory_id,))
    )
    assert [type(e) for e in again] == [MemoriesRecalled] and bank.status(old) == "archived"


def test_recalls_of_unknown_or_forgotten_memories_count_nothing():
    bank = Bank()
    (m,) = bank.say(episode("x"))
    bank.run(ForgetRequested(bank_id="b", memory_ids=(m.memory_id,)))
    assert bank.run(RecallServed(bank_id="b", memory_ids=(m.memory_id, uuid4()))) == []


# ------------------------------------------------------------------ explicit forgetting


def test_forget_by_time_range_and_by_session_and_range():
    bank = Bank()
    (early,) = bank.say(episode("early"), at=days(1), session="a")
    (middle,) = bank.say(episode("middle"), at=days(5), session="a")
    (middle_b,) = bank.say(episode("middle b"), at=days(5), session="b")
    (late,) = bank.say(episode("late"), at=days(9), session="a")
    out = bank.run(ForgetRequested(bank_id="b", session_id="a", since=days(2), until=days(9)))
    assert {e.memory_id for e in out if isinstance(e, MemoryForgotten)} == {middle.memory_id}
    out = bank.run(ForgetRequested(bank_id="b", until=days(6)))
    assert {e.memory_id for e in out} == {early.memory_id, middle_b.memory_id}
    assert bank.status(late) == "active"


def test_forgetting_an_archived_memory_keeps_it_cold():
    bank = Bank()
    (m,) = bank.say(episode("x"))
    bank.tick(days(90))
    bank.run(ForgetRequested(bank_id="b", memory_ids=(m.memory_id,)))
    info = bank.state.memories[m.memory_id]
    assert info.status == "forgotten" and info.cold


# ------------------------------------------------------------------ replay


def test_deciding_the_same_inputs_again_gives_the_same_events():
    bank = Bank()
    bank.say(episode("a"), session="s", scope="session")
    bank.say(preference("I prefer tea", "user/drink", "tea"))
    bank.say(episode("b"), at=days(3))
    bank.tick(days(40), capacity=2)
    bank.run(
        RecallServed(
            bank_id="b",
            occurred_at=days(41),
            memory_ids=tuple(m for m in bank.state.memories),
            restore_ids=tuple(m for m in bank.state.memories),
        )
    )
    bank.run(SessionEnded(bank_id="b", session_id="s", occurred_at=days(42)))
    again = Bank()
    for event, prepared in bank.inputs:
        again.run(event, prepared)
    assert again.log == bank.log and again.log  # same ids, same times, same scores
    cold = lambda b: {m for m, info in b.state.memories.items() if info.cold}  # noqa: E731
    assert cold(again) == cold(bank)


def test_recalls_tallied_per_interval_give_the_retention_of_a_recall_served_per_recall():
    """The same recalls, one ``RecallServed`` each (old logs) or summed into ``RecallsTallied`` per
    bank and interval (the recorder's ``Tally``): equal counts, last-use times, scores and archiving."""
    per_recall = Bank()
    memories = [per_recall.say(preference(f"I like {c}", f"user/like:{c}", "yes"))[0] for c in ("tea", "jazz", "rain")]
    memories += per_recall.say(episode("we met at the lake"), at=days(1))
    tallied = deepcopy(per_recall)
    tea, jazz, rain, lake = (m.memory_id for m in memories)
    # 40 weeks of recalls: tea five times a day (within a minute), jazz once a week, the lake twice, rain never
    recalls = [
        (days(d + 0.5) + timedelta(seconds=s), (tea, jazz) if d % 7 == s == 0 else (tea,))
        for d in range(2, 282)
        for s in range(5)
    ]
    recalls += [(days(3), (lake, tea)), (days(20), (lake,))]
    recalls.sort(key=lambda r: r[0])
    for at, ids in recalls:
        per_recall.run(RecallServed(bank_id="b", occurred_at=at, memory_ids=ids))
    interval = timedelta(minutes=1)
    by_interval: dict[datetime, Tally] = {}
    for at, ids in recalls:  # what a recorder flushing every minute would have appended
        start = T0 + interval * ((at - T0) // interval)
        by_interval.setdefault(start, Tally(since=at)).add(ids, at)
    for start, tally in by_interval.items():
        assert tallied.run(tally.event("b", start + interval)) != []
    state = {m: (i.recalls, i.last_used_at) for m, i in per_recall.state.memories.items()}
    assert {m: (i.recalls, i.last_used_at) for m, i in tallied.state.memories.items()} == state
    assert state[tea] == (1401, days(281.5) + timedelta(seconds=4)) and state[rain] == (0, None)
    ticks = [days(300), days(600), days(900), days(1200), days(1500)]

    def decisions(bank: Bank) -> list[list[tuple[UUID, str, float | None]]]:
        return [
            [(e.memory_id, e.reason, e.retention) for e in bank.tick(at) if isinstance(e, MemoryArchived)]
            for at in ticks
        ]

    archived = decisions(per_recall)
    assert decisions(tallied) == archived
    assert [{m for m, *_ in tick} for tick in archived] == [{lake}, set(), {rain}, set(), {tea, jazz}]  # used lasts
    assert len(tallied.log) * 4 < len(per_recall.log)  # one RecallsCounted per interval, not one per recall


def test_a_tally_counts_only_the_memories_the_bank_still_holds_and_restores_what_it_names():
    bank = Bank()
    (old,) = bank.say(episode("the picnic was at the lake"))
    (gone,) = bank.say(episode("a forgotten remark"))
    bank.run(ForgetRequested(bank_id="b", occurred_at=days(1), memory_ids=(gone.memory_id,)))
    assert archived_ids(bank.tick(days(60))) == {old.memory_id}
    use = [RecallUse(memory_id=m, count=2, last_at=days(61)) for m in (old.memory_id, gone.memory_id, uuid4())]
    out = bank.run(
        RecallsTallied(
            bank_id="b", occurred_at=days(61), since=days(61), recalls=2, uses=tuple(use), restore_ids=(old.memory_id,)
        )
    )
    assert [type(e) for e in out] == [RecallsCounted, MemoryRestored] and bank.status(old) == "active"
    assert out[0].uses == (use[0],) and bank.state.memories[old.memory_id].recalls == 2
