"""The rule extractor on phrasings ``rules/15`` added (each a class of sentence, zh and en), and the ones
they must leave alone. Given one turn, then these (key, value) pairs besides the episode."""

from __future__ import annotations

import pytest

from hindsight_es.extraction.filler import is_filler
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a request or a question read past the words that open the turn
        ("Actually, could you use English instead?", [("user/reply_language", "english")]),
        ("Oh, can you answer in Spanish from now on?", [("user/reply_language", "spanish")]),
        ("So, where do we live now?", []),
        ("Actually, I moved to Berlin.", [("user/location", "berlin")]),
        # a language the assistant is asked to use is the replies' language; one the speaker uses is not
        ("Please use English from now on.", [("user/reply_language", "english")]),
        ("Switch to French again.", [("user/reply_language", "french")]),
        ("I use English at work.", []),
        ("We use English for the docs at work.", []),
    ],
)
def test_requests_and_questions_after_an_opening_word(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # of a drink named with another before it, the last one is the drink
        ("I drink oat milk lattes every day.", [("user/drink", "latte")]),
        ("我每天喝燕麦奶拿铁。", [("user/drink", "latte")]),
        ("I drink coffee with oat milk.", [("user/drink", "coffee")]),
        ("We use AWS instead of GCP.", [("team/cloud_provider", "aws")]),
        # a morning habit names the drink
        ("I start every morning with an espresso.", [("user/drink", "espresso")]),
        ("I start my day with green tea.", [("user/drink", "green tea")]),
        ("I start every morning with a run.", []),
        # plain water is a drink; the clause after a drink given up is the new one
        ("为了健康我不喝奶茶了，现在只喝白开水。", [("user/drink", "water")]),
    ],
)
def test_drinks(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a relative's job, and where: a city is where they live, a named workplace the employer
        ("我哥哥在成都当医生。", [("brother/location", "成都"), ("brother/occupation", "医生")]),
        ("我姐姐在华为做工程师。", [("sister/employer", "华为"), ("sister/occupation", "工程师")]),
        ("我哥哥在医院当医生。", [("brother/occupation", "医生")]),
        ("My brother is a doctor in Chengdu.", [("brother/location", "chengdu"), ("brother/occupation", "doctor")]),
        (
            "My sister works as a nurse at St. Mary's.",
            [("sister/employer", "st. mary's"), ("sister/occupation", "nurse")],
        ),
        # where one is from, without the adverb after it
        ("I'm from Lyon originally.", [("user/hometown", "lyon")]),
        # whom an instruction is for stays in it, as a day does
        (
            "Never schedule meetings for me on Fridays.",
            [("user/instruction:schedule_meetings_for_me_on_fridays", "never")],
        ),
        ("Always cc my manager for status emails.", [("user/instruction:cc_my_manager", "always")]),
    ],
)
def test_relatives_places_and_instructions(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "filler"),
    [("Thanks a ton!", True), ("Thanks a bunch, Mel!", True), ("Thanks a ton for booking the flight to Oslo.", False)],
)
def test_thanks_of_any_size_is_filler(text, filler):
    assert is_filler(text) is filler
