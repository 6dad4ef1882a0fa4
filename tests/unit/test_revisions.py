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
        ("Max has swimming lessons on Tuesdays.", "Swimming moved to Thursdays this term."),
        ("下周六带孩子去动物园。", "动物园改到周日去了，周六要加班。"),
        (
            "His neurologist appointment is next Monday at 2pm.",
            "The clinic called, the neurologist appointment is now Wednesday at 11.",
        ),
        ("我妈下周三做手术。", "我妈的手术推迟到下周五了。"),
        # a date in digits is one value, as "August 20" is a month and a number: the shared month differs nothing
        ("第一版的截止日期是8月20号。", "第一版的截止日期改到8月13号了。"),
        ("我们的婚礼定在2027年5月。", "婚礼改到2027年10月了。"),
        ("The first version is due on August 20.", "The first version's deadline moved to August 13."),
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
        # other dates of other things, or of someone else's
        ("我的生日是8月20号。", "我妈的生日是8月13号。"),
        ("我8月20号去北京出差。", "我8月13号去上海开会。"),
        ("房子是2019年3月买的。", "车是2021年5月买的。"),
    ],
)
def test_what_moves_nothing_of_the_owners_supersedes_nothing(first, other):
    assert superseded(first, other)[1] == []


@pytest.mark.parametrize(
    ("first", "replaced"),
    [
        ("下个月我们全家去杭州旅游。", "我们不去杭州了，去苏州。"),
        ("我比较想住在徐汇区，离公司近。", "算了，徐汇太贵了，我打算在闵行找。"),
        (
            "We're staying at a hotel near the beach for the first week.",
            "Scratch that, we'll rent an apartment instead of the hotel.",
        ),
        ("I signed up for the pottery class on Mondays.", "I'm doing yoga instead of the pottery class."),
        ("Book me the 7:30 spin class on Wednesday.", "Scratch that, book the 6:30 class instead of the 7:30."),
        ("我午饭一般吃沙拉。", "最近不吃沙拉了，改吃鸡胸肉饭。"),
        ("我们计划十月去云南。", "云南不去了，改去海南，小雨想看海。"),
    ],
)
def test_a_thing_given_up_for_another_supersedes_the_earlier_one(first, replaced):
    assert superseded(first, "OK, noted.", replaced)[2] == ["t0"]


@pytest.mark.parametrize(
    ("first", "other"),
    [
        # given up with nothing put in its place: a negation is not a change of plan
        ("We're staying at a hotel near the beach for the first week.", "I didn't like the hotel breakfast."),
        # another thing given up, the same place named
        ("下个月我们全家去杭州旅游。", "我不想住酒店了，改住民宿。"),
        # a relative's plan, not the owner's
        ("下个月我们全家去杭州旅游。", "我妹妹不去杭州了，去苏州。"),
        # what someone else said of themselves
        ("谢梓轩每天下午都喝普洱茶，从来不喝咖啡。", "我最近不喝咖啡了，改喝绿茶。"),
        # someone else's choice
        ("I drink black coffee every morning.", "Tariq Petrov drinks ginger tea every afternoon instead of coffee."),
    ],
)
def test_what_gives_up_nothing_of_the_owners_supersedes_nothing(first, other):
    assert superseded(first, other)[1] == []


def test_a_shared_time_of_day_is_not_the_thing_moved():
    # the user's visits moved to the evening, not the gym's opening hours
    turns = ("营业时间早上6点到晚上11点", "本来打算每天早上去", "早上实在起不来，改成下班后晚上8点去了")
    assert superseded(*turns)[2] != ["t0"]
    assert "t0" not in superseded(*turns)[2]


def test_a_word_most_of_the_bank_shares_is_not_what_is_given_up():
    # a diary in the third person: the owner's name is in every entry, so giving it up says nothing
    things = (
        "在操场上找到一颗丢失的足球并归还给了同学",
        "帮忙做花园里的园艺活动",
        "和邻居一起在小区花园种花",
        "在宠物店看到一只小猫",
        "和好朋友一起参加夏令营",
        "在游乐园玩转盘",
    )
    entries = [f"Lisa{thing}，感到很开心。" for thing in things]
    later = "上课时同桌Eddie偷偷把Lisa的笔记本换成了涂鸦本，同学们的笑声让Lisa感到尴尬和气愤。"
    assert superseded(*entries, later)[-1] == []
