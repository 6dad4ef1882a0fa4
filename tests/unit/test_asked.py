"""Which keyed attribute a question asks for, and of whom (``recall.asked``): my own questions, the ones that
ask and look-alikes that do not (a restaurant's name is not the speaker's, a question about someone by name is
left to the words and the vector), and whether it asks what held before a change."""

from __future__ import annotations

import pytest

from hindsight_es.recall.asked import Asked, answers, asked, asks_first_held


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("我叫什么名字？", {("user", "name", None)}),
        ("你还记得我叫啥吗", {("user", "name", None)}),
        ("我女儿叫什么来着", {("daughter", "name", None)}),
        ("我多大了？", {("user", "age", None)}),
        ("我老婆是干嘛的？", {("wife", "occupation", None)}),
        ("我妹妹在哪个公司？", {("sister", "employer", None)}),
        ("我是哪里人来着", {("user", "hometown", None)}),
        ("我养的猫叫什么？", {("user", "pet", "cat")}),
        ("What's my name again?", {("user", "name", None)}),
        ("What's my sister's name?", {("sister", "name", None)}),
        ("How old am I?", {("user", "age", None)}),
        ("what did I say my brother does?", {("brother", "occupation", None)}),
        ("where did I say my brother works?", {("brother", "employer", None)}),
        ("Where does my mum live?", {("mother", "location", None)}),
        ("What's my dog called?", {("user", "pet", "dog")}),
        ("What's my favourite food?", {("user", "favorite", "food")}),
        ("What's my email?", {("user", "email", None)}),
        # look-alikes: nothing asked of the speaker's keys
        ("What's the name of the restaurant I liked?", set()),
        ("我喜欢的那家餐厅叫什么名字？", set()),
        ("我周末做什么好？", set()),
        ("What should I do on Saturday?", set()),
        ("What is Caroline's job?", set()),
        ("叫什么名字？", set()),
        # the key holds the current value: a question about an earlier one asks for no key
        ("What did I do before this job?", set()),
        ("我以前住在哪？", set()),
        ("What's my first name?", {("user", "name", None)}),
    ],
)
def test_what_a_question_asks(question, expected):
    assert {(a.subject, a.attr, a.facet) for a in asked(question)} == expected


def test_a_key_answers_its_own_question_and_its_kin():
    where_work = asked("我在哪里上班？")
    assert answers(where_work, "user/employer") and answers(where_work, "user/occupation")  # a job answers it too
    assert not answers(where_work, "user/location") and not answers(where_work, "sister/employer")
    assert answers(asked("我老公是做什么的？"), "partner/occupation")  # one partner, however named
    assert answers(asked("What's my cat called?"), "user/pet:cat")
    assert not answers(asked("What's my cat called?"), "user/pet:dog")
    assert not answers(asked("What's my cat called?"), "user/name")
    assert not answers(frozenset({Asked("user", "name")}), None)
    assert answers(asked("我是哪年生的？"), "user/birth_year") and answers(asked("How old am I?"), "user/birth_year")


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("when was my dentist appointment originally?", True),
        ("What was the original budget?", True),
        ("What slot was I first given?", True),  # first after the auxiliary, before a participle
        ("What day and time was her party first set for?", True),
        ("在大理原计划待几晚？", True),
        ("会议原定几点开始？", True),
        ("最开始订的蛋糕是几寸的？", True),
        ("what was her portion before the vet changed it?", True),
        ("what did I eat before the run?", False),
        ("When did I first meet Sam?", False),  # the first time something happened, not a value replaced
        ("Who was the first person to arrive?", False),
        ("What was first on the list?", False),
        ("Where is the party now?", False),
        ("计划什么时候出发？", False),
    ],
)
def test_a_question_about_what_held_first(question: str, first: bool) -> None:
    assert asks_first_held(question) is first
