"""A turn that moves a keyless memory to another time supersedes it (``memory.revisions``): the appointment
moved to Thursday is the one recalled as current, the Tuesday one is kept in history."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_es.events import MemorySuperseded, TurnRecorded
from hindsight_es.extraction import extract
from hindsight_es.memory import BankState, Prepared, decide, evolve


def superseded(*turns: str) -> list[list[str]]:
    """Each turn decided in order by the owner; per turn, the turns whose memories it superseded."""
    state = BankState("revisions")
    out = []
    for n, text in enumerate(turns):
        turn = TurnRecorded(bank_id=state.bank_id, session_id="s", turn_id=f"t{n}", text=text, source="user")
        found = extract(text)
        events = decide(state, turn, Prepared(found, np.zeros((len(found), 4), np.float32), "none", "rules/37"))
        before = {m.memory_id: m.source_turn_ids[0] for m in state.memories.values()}
        for event in events:
            evolve(state, event)
        out.append(sorted({before[e.memory_id] for e in events if isinstance(e, MemorySuperseded)}))
    return out


@pytest.mark.parametrize(
    ("first", "moved"),
    [
        (
            "Also I have a dentist appointment on Tuesday before we leave.",
            "Actually the dentist moved my appointment to Thursday.",
        ),
        ("The team offsite is on March 3.", "They pushed the offsite back to March 10."),
        ("Our parent-teacher meeting is Monday at 4pm.", "The parent-teacher meeting got rescheduled for Wednesday."),
        ("周六约了看房，在莘庄那边。", "看房改到周日了。"),
        ("我们下周五去医院体检。", "体检推迟到下下周一了。"),
        ("我的面试在周三下午。", "面试提前到周二了。"),
    ],
)
def test_a_thing_moved_to_another_time_supersedes_the_earlier_one(first, moved):
    assert superseded(first, "Thanks!", moved)[2] == ["t0"]


@pytest.mark.parametrize(
    ("first", "other"),
    [
        # someone else's appointment, not the owner's
        ("I have a dentist appointment on Tuesday.", "My sister's dentist appointment moved to Thursday."),
        # moved for one occasion: the standing day stands
        ("Our release day is Wednesday.", "The release got moved to Friday this sprint only."),
        # no time moved: the same thing, said again
        ("I have a dentist appointment on Tuesday.", "The dentist said my teeth look great."),
        # a question asks, it moves nothing
        ("I have a dentist appointment on Tuesday.", "Can the dentist move my appointment to Thursday?"),
        # another thing moved
        ("I have a dentist appointment on Tuesday.", "We moved the team lunch to Friday."),
    ],
)
def test_what_moves_nothing_of_the_owners_supersedes_nothing(first, other):
    assert superseded(first, other)[1] == []
