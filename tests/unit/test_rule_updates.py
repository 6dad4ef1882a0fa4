"""The rule extractor on updates: a choice said by its frame, the value given up, whose choice it is,
and reported words that are not the speaker's; and the bank superseding the old value with the new."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_es.events import MemorySuperseded, TurnRecorded
from hindsight_es.extraction import extract
from hindsight_es.memory import BankState, Prepared, decide, evolve


def keyed(text: str, **kw) -> list[tuple[str | None, str | None]]:
    return [(c.key, c.value) for c in extract(text, **kw)[1:]]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Our primary database is Postgres.", "team/database", "postgresql"),
        ("We keep all the analytics in ClickHouse.", "team/database", "clickhouse"),
        ("My desktop runs Ubuntu.", "user/os", "ubuntu"),
        ("I do most of my writing in Sublime.", "user/editor", "sublime text"),
        ("Every parcel we send goes out with FedEx.", "user/shipping_carrier", "fedex"),
        ("I'm an Emacs person.", "user/editor", "emacs"),
        ("我们的后端跑在腾讯云上。", "team/cloud_provider", "腾讯云"),
        ("我平时都用PyCharm写代码。", "user/editor", "pycharm"),
        ("我们团队现在改用Rust了。", "team/programming_language", "rust"),
    ],
)
def test_a_value_in_a_frame_of_use_is_the_current_choice(text, key, value):
    assert (key, value) in keyed(text)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("We're done with Oracle; everything is on Postgres now.", "team/database", "postgresql"),
        ("Not Sublime any more, I'm on Neovim.", "user/editor", "neovim"),
        ("We stopped using Azure and host everything on GCP.", "team/cloud_provider", "gcp"),
        ("我们不用MySQL了，现在用TiDB。", "team/database", "tidb"),
        ("我已经不喝奶茶了，改喝红茶。", "user/drink", "black tea"),
    ],
)
def test_an_update_keeps_the_new_value_and_not_the_one_given_up(text, key, value):
    found = keyed(text)
    assert (key, value) in found
    assert [kv for kv in found if kv[0] == key] == [(key, value)]


@pytest.mark.parametrize(
    "text",
    [
        "I no longer remember which Linux distro I had.",
        "我已经不记得Oracle的密码了。",
        "If we moved to DynamoDB, would it scale?",
        'Our architect keeps saying "we should all use Rust".',
        "老板总说“我们应该迁到阿里云”。",
        "My manager asked you to reply in German.",
        "我同事让你用法语回复。",
        "He codes everything in Scala.",
        # Whoever relays it, by title or by name, it is not the speaker's choice.
        "Our CFO keeps saying we should move to Azure.",
        "The new product manager says we should switch to PostgreSQL.",
        "Priya thinks we should rewrite it in Rust.",
    ],
)
def test_look_alikes_of_an_update_state_no_choice_of_the_speaker(text):
    assert [kv for kv in keyed(text) if kv[0] and kv[0].startswith(("user/", "team/"))] == []


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My husband only drinks black tea.", "husband/drink", "black tea"),
        ("我女儿每天喝果汁。", "daughter/drink", "juice"),
    ],
)
def test_a_relatives_choice_is_keyed_on_the_relative(text, key, value):
    assert keyed(text) == [(key, value)]


def test_a_bare_corrected_number_is_an_age():
    assert keyed("Sorry, I meant 41.") == [("user/age", "41")]


def decided(said: list[str]) -> tuple[BankState, list[str]]:
    """A bank that decided ``said``, one turn each, and the turns whose decisions superseded something."""
    state = BankState("updates")
    superseded: list[str] = []
    for n, text in enumerate(said):
        turn = TurnRecorded(bank_id=state.bank_id, session_id="s", turn_id=f"t{n}", text=text, source="user")
        found = extract(text)
        events = decide(state, turn, Prepared(found, np.zeros((len(found), 4), np.float32), "none", "rules"))
        for event in events:
            evolve(state, event)
        superseded += [text for e in events if isinstance(e, MemorySuperseded)]
    return state, superseded


def test_the_bank_supersedes_a_choice_with_its_update_and_not_with_a_relatives():
    said = [
        "Our services are written in Ruby.",
        "My brother writes Java all day.",
        "We ditched Ruby and write everything in Elixir now.",
    ]
    state, superseded = decided(said)
    assert set(superseded) == {said[2]}
    active = {(m.key, m.value) for m in state.active() if m.key}
    assert ("team/programming_language", "elixir") in active
    assert ("brother/programming_language", "java") in active
    assert ("team/programming_language", "ruby") not in active


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My brother lives in Leeds and uses Vim.", [("brother/location", "leeds"), ("brother/editor", "vim")]),
        ("My sister, who lives in Paris, drinks tea.", [("sister/location", "paris"), ("sister/drink", "tea")]),
        ("我老公在华为上班，天天喝茶。", [("husband/employer", "华为"), ("husband/drink", "tea")]),
        ("Tom moved to Paris and drinks tea now.", []),
        ("My friend Tom, who lives in Paris, drinks tea.", []),
        # a clause with a subject of its own, or a sentence that opens with the speaker's, stays the speaker's
        ("我妹妹住在上海，我每天喝咖啡。", [("sister/location", "上海"), ("user/drink", "coffee")]),
        ("I live in Leeds and use Vim.", [("user/location", "leeds"), ("user/editor", "vim")]),
        ("今天好累，每天喝咖啡。", [("user/drink", "coffee")]),
    ],
)
def test_a_later_clause_without_a_subject_is_the_sentences(text, expected):
    """Found on a tour: "My brother lives in Leeds and uses Vim" keyed user/editor, and so superseded the
    speaker's own editor; the clause after "and" (or a comma) says nothing of whom, so it is the brother's."""
    assert keyed(text) == expected


@pytest.mark.parametrize(
    "said",
    [
        ["My colleague Tom prefers tea.", "My colleague Anna prefers coffee."],
        ["My boss Kevin drinks espresso.", "My manager Linda drinks green tea."],
        ["My friend Sam uses Vim.", "My friend Priya uses Emacs."],
        ["我的同事小王喜欢喝茶。", "我的同事小李喜欢喝咖啡。"],
    ],
)
def test_a_named_colleague_or_friend_does_not_supersede_another(said):
    """Found on a tour: one has many colleagues and friends, and the one key of the relation ("colleague/drink")
    made Anna's coffee supersede Tom's tea, his turn's episode with it, so "what does Tom drink?" found Anna's."""
    state, superseded = decided(said)
    assert superseded == []
    assert {m.text for m in state.active()} >= set(said)
    assert not any(m.key for m in state.active())  # neither is the relation's one value


@pytest.mark.parametrize(
    ("said", "key", "value"),
    [
        (["以后开会都用腾讯会议。", "以后开会改用飞书吧。"], "user/choice:开会", "飞书"),
        (
            ["From now on we use Zoom for meetings.", "From now on we use Teams for meetings."],
            "team/choice:meetings",
            "teams",
        ),
        (["I work at Amazon.", "I quit my job at Amazon."], "user/employer", "not:amazon"),
        (["我在百度上班。", "我已经从百度离职了。"], "user/employer", "not:百度"),
    ],
)
def test_a_tool_for_an_activity_or_an_employer_left_supersedes_what_was_held(said, key, value):
    state, superseded = decided(said)
    assert set(superseded) == {said[1]}
    assert [(m.key, m.value) for m in state.active() if m.key] == [(key, value)]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My grandpa is 88.", "grandfather/age", "88"),
        ("我女儿今年6岁。", "daughter/age", "6"),
        ("My brother adopted a puppy called Bean.", "brother/pet:dog", "bean"),
        ("我姐姐养了一只兔子叫豆豆。", "sister/pet:rabbit", "豆豆"),
        ("We renamed our cat to Pixel.", "user/pet:cat", "pixel"),
        ("我把狗的名字改成了可乐。", "user/pet:dog", "可乐"),
        ("In January I joined Atlassian.", "user/employer", "atlassian"),
        ("我上个月跳槽到了京东。", "user/employer", "京东"),
        ("I've gone vegetarian.", "user/diet", "vegetarian"),
        ("我转行当了程序员。", "user/occupation", "程序员"),
        ("以后都用短信提醒我。", "user/instruction:用短信提醒我", "always"),
        ("我的邮箱改成了wei@example.org。", "user/email", "wei@example.org"),
    ],
)
def test_updates_of_other_attributes_keep_their_key(text, key, value):
    assert (key, value) in keyed(text)


def test_a_relatives_age_is_not_the_speakers():
    assert keyed("My son is 12.") == [("son/age", "12")]
    assert ("user/age", "12") not in keyed("My son is 12.")


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Our frontend is all TypeScript.", "team/programming_language", "typescript"),
        ("I'm a huge coffee drinker.", "user/drink", "coffee"),
        ("I went back to Vim after a year.", "user/editor", "vim"),
        ("Orders go out via DHL.", "user/shipping_carrier", "dhl"),
        ("My roommate loves sushi.", "roommate/preference:sushi", "sushi"),
        ("我女朋友特别喜欢跳舞。", "girlfriend/preference:跳舞", "跳舞"),
        ("我爸爸还在西安。", "father/location", "西安"),
        ("我们一家在杭州定居。", "user/location", "杭州"),
        ("朋友们都叫我阿杰。", "user/name", "阿杰"),
        ("我在一所中学当老师。", "user/occupation", "老师"),
        ("跟我聊天请用日语。", "user/reply_language", "japanese"),
        ("我家的猫叫花花。", "user/pet:cat", "花花"),
        ("我不太喜欢爬山。", "user/preference:爬山", "not:爬山"),
    ],
)
def test_more_frames_of_a_statement(text, key, value):
    assert (key, value) in keyed(text)


def test_an_instruction_never_to_use_the_value_given_up_is_the_update_itself():
    assert keyed("以后改寄顺丰，别再用中通了。") == [("user/shipping_carrier", "顺丰")]


@pytest.mark.parametrize("text", ["我哥哥还在开会。", "My neighbour's dog is called Rex."])
def test_no_memory_of_the_speaker_from_a_place_that_is_not_one_or_a_strangers_pet(text):
    assert [kv for kv in keyed(text) if kv[0] and kv[0].startswith("user/")] == []


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("We ported the service from Ruby to Go.", "team/programming_language", "go"),
        ("Most mornings I grab an espresso.", "user/drink", "espresso"),
        ("My aunt's dog is named Pepper.", "aunt/pet:dog", "pepper"),
        ("我表姐的猫叫雪球。", "cousin/pet:cat", "雪球"),
        ("Emacs has been my editor since college.", "user/editor", "emacs"),
        ("我转行做了摄影师。", "user/occupation", "摄影师"),
    ],
)
def test_new_side_of_an_update_possessive_relatives_and_past_frames(text, key, value):
    assert (key, value) in keyed(text)


@pytest.mark.parametrize(
    "text", ["明年我就40岁了。", "We're moving off Azure to AWS next quarter.", "Next month I'll be 30."]
)
def test_a_fact_or_choice_still_to_come_is_not_the_current_one(text):
    assert [kv for kv in keyed(text) if kv[0] in ("user/age", "team/cloud_provider")] == []


def test_a_reply_language_given_up_for_another_is_no_instruction_of_its_own():
    assert keyed("以后别用英文了，用中文回答我。") == [("user/reply_language", "chinese")]
