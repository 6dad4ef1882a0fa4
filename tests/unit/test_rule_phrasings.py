"""The rule extractor on phrasings ``rules/13`` added (each a class of sentence, zh and en), and the ones
they must leave alone. Given one turn, then these (key, value) pairs besides the episode."""

from __future__ import annotations

import pytest

from hindsight_es.extraction import extract


def pairs(text: str) -> list[tuple[str | None, str | None]]:
    out = extract(text, speaker="Pat")
    assert out[0].kind == "episode"
    return sorted((c.key, c.value) for c in out[1:])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # employed at / by; a job at a named employer; a job's place is not part of the job
        ("I'm employed by Deloitte.", [("user/employer", "deloitte")]),
        ("I am employed at Unilever these days.", [("user/employer", "unilever")]),
        ("I'm a nurse at St. Mary's.", [("user/employer", "st. mary's"), ("user/occupation", "nurse")]),
        (
            "I work as a nurse for Kaiser Permanente now.",
            [("user/employer", "kaiser permanente"), ("user/occupation", "nurse")],
        ),
        ("I work as a barista at a small cafe.", [("user/occupation", "barista")]),
        ("I work as a paramedic for the city ambulance service.", [("user/occupation", "paramedic")]),
        # a trade named by its 师; not 师傅, 师兄 or 师范
        ("我是一名药剂师。", [("user/occupation", "药剂师")]),
        ("我妈妈是营养师。", [("mother/occupation", "营养师")]),
        ("我是师范大学毕业的。", []),
        ("我是他的师兄。", []),
        # joined a company named like a count word (快手, 有道); "快三年" is a duration
        ("我已经入职快手了。", [("user/employer", "快手")]),
        ("我在有道工作。", [("user/employer", "有道")]),
        ("我在北京工作快三年了。", [("user/location", "北京")]),
        # a job taken up, whatever the old one was called; a subject taught
        ("我现在不做建筑了，改当老师。", [("user/occupation", "老师")]),
        ("I quit nursing and now I teach biology.", [("user/occupation", "biology teacher")]),
        ("I teach my kids at home.", []),
    ],
)
def test_work(text, expected):
    assert pairs(text) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've stopped enjoying horror movies.", [("user/preference:horror_movies", "not:horror movies")]),
        ("I lost interest in chess.", [("user/preference:chess", "not:chess")]),
        ("我最近对游泳没兴趣了。", [("user/preference:游泳", "not:游泳")]),
        ("我对篮球不感兴趣了。", [("user/preference:篮球", "not:篮球")]),
    ],
)
def test_interest_lost_is_a_negated_preference(text, expected):
    assert pairs(text) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please use Italian for your answers.", [("user/reply_language", "italian")]),
        ("Switch back to English for replies.", [("user/reply_language", "english")]),
        ("Go back to Portuguese for your responses.", [("user/reply_language", "portuguese")]),
        ("以后还是用英文吧。", [("user/reply_language", "english")]),
        ("还是说中文吧", [("user/reply_language", "chinese")]),
        ("以后用中文写。", [("user/reply_language", "chinese")]),
        ("我用英文写论文就行。", []),  # the language of a paper, not of the replies
    ],
)
def test_reply_language_said_as_a_request(text, expected):
    assert pairs(text) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My flatmate is vegetarian.", [("roommate/diet", "vegetarian")]),
        ("My daughter is vegan now.", [("daughter/diet", "vegan")]),
        ("My mom is allergic to penicillin.", [("mother/allergy:penicillin", "penicillin")]),
        ("我爸爸对海鲜过敏。", [("father/allergy:海鲜", "海鲜")]),
        ("My brother turned 35 yesterday.", [("brother/age", "35")]),
        ("I'm allergic to penicillin.", [("user/allergy:penicillin", "penicillin")]),  # the speaker's own, as before
    ],
)
def test_a_relatives_diet_allergy_and_age_are_theirs(text, expected):
    assert pairs(text) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Just moved to Porto for work.", [("user/location", "porto")]),
        ("Relocated to Austin last month.", [("user/location", "austin")]),
        ("He moved to Oslo.", []),
        ("I installed Ubuntu on my laptop.", [("user/os", "ubuntu")]),
        ("We packed up and moved to Bristol last month.", [("user/location", "bristol")]),
        ("My sister packed up and moved to Rome.", [("sister/location", "rome")]),  # hers, not the speaker's
        ("我们年初搬家到了厦门。", [("user/location", "厦门")]),
        # a time after the value is not part of it
        ("I switched to Vim in 2021.", [("user/editor", "vim")]),
        ("We live in Spring Hill.", [("user/location", "spring hill")]),
        # choices the lexicon now knows, framed by their verb
        ("Our analytics stack sits on Snowflake.", [("team/database", "snowflake")]),
        ("My laptop runs Fedora.", [("user/os", "fedora")]),
        ("A snowflake landed on my nose.", []),
        ("Lately my favorite book has been Piranesi.", [("user/favorite:book", "piranesi")]),
    ],
)
def test_moves_without_a_subject_and_installs(text, expected):
    assert pairs(text) == sorted(expected)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        # a verb and a pronoun alone keep their condition; a day after "on" is kept; a topic after "on" is not
        ("Never book me on red-eye flights.", "user/instruction:book_me_on_red-eye_flights"),
        ("Don't call me during dinner.", "user/instruction:call_me_during_dinner"),
        ("Don't call me if it's late.", "user/instruction:call_me"),
        ("Never schedule calls on Mondays.", "user/instruction:schedule_calls_on_mondays"),
        ("Never cc my manager on status emails.", "user/instruction:cc_my_manager"),
        ("开会的时候别给我打电话。", "user/instruction:开会的时候打电话"),  # the condition said first
        ("以后别给我打电话。", "user/instruction:打电话"),
    ],
)
def test_an_instruction_keeps_what_it_is_about(text, key):
    assert pairs(text) == [(key, "never")]
