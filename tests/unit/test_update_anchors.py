"""Updates resolved against the bank (``extraction.anchors``): an update whose attribute its sentence does
not name takes the key of the value it gives up; a placeholder nothing anchors leaves no memory."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_es.events import MemorySuperseded, TurnRecorded
from hindsight_es.extraction import extract
from hindsight_es.memory import BankState, Prepared, decide, evolve


def said(*turns: str, session: str = "s") -> tuple[BankState, list[tuple[str, list[str]]]]:
    """Each turn decided in order; per turn, the turns whose memories it superseded."""
    state = BankState("anchors")
    out = []
    for n, text in enumerate(turns):
        turn = TurnRecorded(
            bank_id=state.bank_id, session_id=session, turn_id=f"t{n}", text=text, source="user", speaker="Ann"
        )
        found = extract(text, speaker="Ann")
        events = decide(state, turn, Prepared(found, np.zeros((len(found), 4), np.float32), "none", "rules/23"))
        before = {m.memory_id: m.source_turn_ids[0] for m in state.memories.values()}
        for event in events:
            evolve(state, event)
        out.append((text, sorted({before[e.memory_id] for e in events if isinstance(e, MemorySuperseded)})))
    return state, out


def active(state: BankState) -> set[tuple[str | None, str | None]]:
    return {(m.key, m.value) for m in state.active() if m.key}


@pytest.mark.parametrize(
    ("first", "update", "key", "value"),
    [
        ("My dog is called Rex.", "Rex is now called Max, the kids insisted.", "user/pet:dog", "max"),
        (
            "My favourite colour is blue.",
            "Blue isn't my favourite anymore, it's green now.",
            "user/favorite:color",
            "green",
        ),
        ("No, wait: I live in Hamburg.", "No, not Hamburg, it's Bremen.", "user/location", "bremen"),
        ("我喜欢喝奶茶。", "我最近在减肥，不喝奶茶了。", "user/preference:milk_tea", "not:milk tea"),
        (
            "Never call me before 9am.",
            "You can call me before 9am now.",
            "user/instruction:call_me_before_9am",
            "always",
        ),
    ],
)
def test_an_update_takes_the_key_of_what_it_replaces(first, update, key, value):
    state, out = said(first, update)
    assert (key, value) in active(state)
    assert out[1][1] == ["t0"]


def test_a_placeholder_nothing_anchors_leaves_only_the_episode():
    state, out = said("I live in Lisbon.", "It's raining now, make it quick.")
    assert active(state) == {("user/location", "lisbon")}
    assert out[1][1] == []
    kinds = [m.kind for m in state.active()]
    assert kinds.count("episode") == 2 and "fact" in kinds


def test_a_bare_correction_corrects_the_sessions_latest_keyed_memory():
    state, out = said("Please call me Elizabeth.", "Actually, go with Liz.")
    assert ("user/name", "liz") in active(state)
    assert ("user/name", "elizabeth") not in active(state)
    assert out[1][1] == ["t0"]


def test_a_pronoun_less_update_of_a_team_attribute_keeps_the_team_key():
    state, _ = said("Our budget is $10k for the launch.", "The budget is now $15k, finance approved more.")
    assert ("team/budget", "$15k") in active(state)
    assert not any(key == "user/budget" for key, _ in active(state))


def test_a_never_instruction_reads_never():
    retained = [c.text for c in extract("Never schedule meetings on Friday.") if c.key]
    assert retained and retained[0].startswith("Never ")


def test_an_attribute_named_by_its_noun_is_updated_by_the_next_value():
    state, out = said("My car is a Tesla.", "My car is now a Rivian.")
    assert active(state) >= {("user/car", "rivian")}
    assert ("user/car", "tesla") not in active(state)
    assert not [c for c in extract("My point is that we need more tests.") if c.key]


@pytest.mark.parametrize(
    ("standing", "once", "key", "value"),
    [
        (
            "From now on ship everything with FedEx.",
            "Use DHL this time, it's urgent.",
            "user/shipping_carrier",
            "fedex",
        ),
        ("以后快递都用顺丰。", "这一单用圆通寄吧。", "user/shipping_carrier", "顺丰"),
        (
            "We use Postgres for the orders.",
            "Just this once, load the report into MySQL.",
            "team/database",
            "postgresql",
        ),
    ],
)
def test_a_choice_for_one_occasion_leaves_the_standing_one(standing, once, key, value):
    state, out = said(standing, once)
    assert (key, value) in active(state) and out[1][1] == []


WINDOW = "Always book window seats for me."


@pytest.mark.parametrize(
    "update",
    [
        "I no longer want window seats; book aisle seats from now on.",
        "I don't want window seats anymore, book aisle seats from now on.",
        "From now on book aisle seats instead of window seats.",
    ],
)
def test_an_instruction_whose_action_the_turn_gives_up_is_superseded_by_the_new_one(update):
    """The new instruction keeps its own key (its action), and supersedes the held one it gives up."""
    state, out = said(WINDOW, update)
    assert out[1][1] == ["t0"]
    assert ("user/instruction:book_window_seats", "always") not in active(state)
    assert any(key.startswith("user/instruction:book_aisle_seats") for key, _ in active(state))
    texts = [m.text for m in state.active() if m.kind != "episode"]
    assert not any("window" in t and "aisle" not in t for t in texts), texts  # no statement took the old action


@pytest.mark.parametrize(
    "other",
    ["Always reply in English.", "I love window seats, and always book aisle seats for my wife."],
)
def test_an_instruction_is_kept_when_the_turn_does_not_give_it_up(other):
    state, out = said(WINDOW, other)
    assert out[1][1] == []
    assert ("user/instruction:book_window_seats", "always") in active(state)


@pytest.mark.parametrize(
    ("first", "stop", "key", "value"),
    [
        (WINDOW, "I don't want window seats anymore.", "user/instruction:book_window_seats", "always"),
        ("I drink coffee every morning.", "I quit coffee last month.", "user/drink", "coffee"),
        ("I drink coffee every morning.", "I don't drink coffee anymore.", "user/drink", "coffee"),
        ("My sister lives in Boston.", "My sister doesn't live in Boston anymore.", "sister/location", "boston"),
        ("我每天早上都喝咖啡。", "我已经戒咖啡了。", "user/drink", "coffee"),
        ("我住在杭州。", "我已经不住在杭州了。", "user/location", "杭州"),
    ],
)
def test_a_value_its_owner_stopped_holding_is_superseded_by_the_episode(first, stop, key, value):
    """Said with no new value, the end of one retires it: the turn's episode supersedes it, and is all the
    turn keeps (no typed memory is made of a negation the rules cannot state)."""
    state, out = said(first, stop)
    assert out[1][1] == ["t0"]
    assert (key, value) not in active(state)
    episode = next(m for m in state.active() if m.source_turn_ids == ("t1",))
    assert episode.kind == "episode" and episode.text == stop


@pytest.mark.parametrize(
    ("first", "other"),
    [
        ("My sister lives in Boston.", "I flew in from Boston yesterday."),  # an old side with no end said
        ("My sister lives in Boston.", "My friend doesn't live in Boston anymore."),  # another owner's
        ("I drink coffee every morning.", "If I quit coffee, will I sleep better?"),  # a question, a condition
        ("I drink coffee every morning.", "My doctor said I should quit coffee."),  # advice relayed
        ("I drink coffee every morning.", "I wish I could quit coffee."),  # a wish
        ("我每天早上都喝咖啡。", "我妈已经戒咖啡了。"),  # another owner's
        ("我每天早上都喝咖啡。", "我不喝加糖的咖啡。"),  # a kind of it refused, not the habit ended
        (WINDOW, "The aisle seats aren't available anymore."),  # the window seats' action is not named
        ("I use Ubuntu at home.", "I no longer remember my old Ubuntu password."),  # a word of another thing
        ("我住在杭州。", "我已经不记得杭州那套房子的密码了。"),  # the same in Chinese
    ],
)
def test_a_value_is_kept_when_the_turn_does_not_end_it(first, other):
    state, out = said(first, other)
    assert out[1][1] == []
    assert len([m for m in state.active() if m.source_turn_ids == ("t0",) and m.kind != "episode"]) == 1


@pytest.mark.parametrize(
    ("first", "switch", "key", "value"),
    [
        ("I love coffee.", "I switched from coffee to tea.", "user/drink", "tea"),
        ("I love coffee.", "I don't drink coffee anymore, I switched to tea.", "user/drink", "tea"),
        ("我喜欢喝咖啡。", "我现在不喝咖啡了，改喝茶。", "user/drink", "tea"),
        ("I love Vim.", "We moved from Vim to VS Code.", "user/editor", "vs code"),
    ],
)
def test_a_liked_value_given_up_for_another_of_its_kind_is_superseded(first, switch, key, value):
    """Found on a tour: "I love coffee", then "I switched from coffee to tea", left "The user likes coffee" active
    beside "The user's drink: tea", and recall of coffee answered that the user likes it."""
    state, out = said(first, switch)
    assert active(state) == {(key, value)}
    assert out[1][1] == ["t0"]


@pytest.mark.parametrize(
    "second", ["I like tea too.", "My wife switched from coffee to tea.", "I no longer drink juice, only tea."]
)
def test_a_liked_value_the_turn_does_not_give_up_stays(second):
    state, out = said("I love coffee.", second)
    assert ("user/preference:coffee", "coffee") in active(state) and out[1][1] == []


def test_a_revised_plan_keeps_its_kind_and_takes_no_key_of_the_sessions_memories():
    state, out = said(
        "My daughter is called Lily.",
        "We're planning a trip to Japan in October.",
        "Actually we're going to Korea instead, the flights are cheaper.",
    )
    assert ("daughter/name", "lily") in active(state)
    assert not any(value == "korea" for _, value in active(state))
    assert out[2][1] == []
    assert any(m.kind == "plan" and "Korea" in m.text for m in state.active())


@pytest.mark.parametrize(
    ("first", "update", "key", "value"),
    [
        (
            "Our budget for the whole trip is about $6,000.",
            "The budget went up to $7,500 since Rosa is joining.",
            "team/budget",
            "$7,500",
        ),
        ("My budget is $2,000 for the new laptop.", "My budget rose to $2,500.", "user/budget", "$2,500"),
        ("最近在找房子，想租一室一户，预算每个月五千左右。", "预算可以提到六千。", "user/budget", "六千"),
        ("我们的预算是两万块。", "预算涨到三万了。", "team/budget", "三万"),
    ],
)
def test_a_budget_said_in_words_or_raised_updates_the_budget(first, update, key, value):
    state, out = said(first, update)
    assert (key, value) in active(state)
    assert out[1][1] == ["t0"]


@pytest.mark.parametrize(
    ("first", "plan", "correction", "kept"),
    [
        (
            "My son Max starts kindergarten in September.",
            "我们打算暑假回国看爸妈。",
            "其实改成国庆回去了，暑假机票太贵。",
            ("son/name", "max"),
        ),
        ("I drink green tea.", "We're planning a trip to Japan.", "Actually, it's Kyoto.", ("user/drink", "green tea")),
    ],
)
def test_a_bare_correction_of_another_kind_takes_no_key_of_the_sessions_memories(first, plan, correction, kept):
    state, out = said(first, plan, correction)
    assert kept in active(state)
    assert out[2][1] == []


@pytest.mark.parametrize(
    ("first", "update", "key", "value"),
    [
        # a name changed, said with the old one: the held pet's name is replaced (``rules/45``)
        (
            "We have a rabbit called Clover.",
            "We changed Clover's name to Rocket, it suits him.",
            "user/pet:rabbit",
            "rocket",
        ),
        ("We adopted a cat named Pumpkin.", "We've renamed Pumpkin to Marmalade.", "user/pet:cat", "marmalade"),
        (
            "Our dog Pepper pulls on the lead.",
            "the kids voted and Pepper is officially Waffles now lol",
            "user/pet:dog",
            "waffles",
        ),
    ],
)
def test_a_name_changed_replaces_the_held_name(first, update, key, value):
    state, out = said(first, update)
    assert (key, value) in active(state)
    assert out[1][1] == ["t0"]


def test_a_thing_officially_something_else_replaces_nothing():
    state, out = said("I use Python at work.", "Python is officially deprecated at my company.")
    assert active(state) == {("user/programming_language", "python")}
    assert out[1][1] == []
