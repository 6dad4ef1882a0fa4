"""The rule extractor on English said the way people write it (``rules/45``): a drink named with the words that
make it one kind of its kind, a place or an employer with what follows it, and a supposed self who is not the
speaker. Sentences of a tour, none of a labelled set."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a drink is the drink as said: its kind ("black", "decaf", "iced") and its full name ("rooibos tea")
        ("I drink black coffee all day.", [("user/drink", "black coffee")]),
        ("Most days I drink decaf lattes.", [("user/drink", "decaf latte")]),
        ("I've swapped coffee for rooibos tea.", [("user/drink", "rooibos tea")]),
        ("I switched to decaf coffee in the spring.", [("user/drink", "decaf coffee")]),
        # as before: a drink without a kind, and a drink made with another ("oat milk lattes" are lattes)
        ("I switched to rooibos.", [("user/drink", "rooibos")]),
        ("I drink oat milk lattes.", [("user/drink", "latte")]),
        ("I drink strong coffee.", [("user/drink", "coffee")]),
    ],
)
def test_a_drink_is_named_as_said_with_its_kind(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "I'm in <Place>" that ends its clause, then goes on with "and"/"so": where the speaker is based
        ("I'm in Galway and trying to find a climbing gym.", [("user/location", "galway")]),
        ("I'm in Tucson so the garden needs to cope with heat.", [("user/location", "tucson")]),
        # a subject left out: "been living in X" after a comma
        ("Grew up in Cork, been living in Dublin.", [("user/hometown", "cork"), ("user/location", "dublin")]),
        # a place whose name has its article
        ("I live in The Hague.", [("user/location", "the hague")]),
        # not a place one lives: a stay, a meeting, a school year
        ("I'm in Rome for the weekend and want a good pizza place.", []),
        ("I'm in a meeting and can't talk.", []),
        ("I'm in IT and I like it.", []),
    ],
)
def test_a_place_the_speaker_is_in_ends_at_its_clause(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the employer stops at what follows it: a team, a place (a relative's place is theirs)
        ("I work at Spotify on the search team.", [("user/employer", "spotify")]),
        ("I work at Siemens in Munich.", [("user/employer", "siemens"), ("user/location", "munich")]),
        ("My brother works at Boeing in Seattle.", [("brother/employer", "boeing"), ("brother/location", "seattle")]),
        # as before: an unnamed workplace is said with its place
        ("My husband works at a hospital in Boston.", [("husband/employer", "hospital in boston")]),
        ("I work at Google as a data scientist.", [("user/employer", "google"), ("user/occupation", "data scientist")]),
    ],
)
def test_an_employer_stops_at_the_words_after_it(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a supposed speaker is nobody's fact
        ("Pretend I'm a 60-year-old teacher and interview me.", []),
        ("Say I went vegan for a month, would I lose weight?", []),
        ("explain mortgages to me like I'm 10", []),
        ("Let's say I'm 45 and want to retire early.", []),
        # as before: a stated age, and "say" as an aside
        ("I'm 45 and want to retire early.", [("user/age", "45")]),
        ("Say, I live in Lyon now.", [("user/location", "lyon")]),
    ],
)
def test_a_supposed_speaker_states_nothing(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "my <noun> is/are <doing something>" names no attribute: an -ing phrase is what they do
        ("My parents are chipping in so the budget is $900 now.", [("user/budget", "$900")]),
        ("My kids are driving me crazy.", []),
        # someone else's word about the speaker's body is theirs, not an attribute the speaker states
        ("My doctor says my blood pressure is high.", []),
        ("my GP says my cholesterol is borderline", []),
        # as before
        ("My favorite color is green.", [("user/favorite:color", "green")]),
        ("My hobby is running marathons.", [("user/hobby", "running marathons")]),
    ],
)
def test_an_attribute_is_a_state_the_speaker_states(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "ours"/"mine"/"she"/"he" that is called something is the pet said before it in the turn
        ("Is it normal for a kitten to sleep this much? Ours is called Ziggy.", [("user/pet:cat", "ziggy")]),
        ("what's the best brush for a poodle? mine's called Bella and she hates baths", [("user/pet:dog", "bella")]),
        ("We took in an old terrier from the shelter, she's called Pickles.", [("user/pet:dog", "pickles")]),
        # a relative said after the pet: the name may be theirs
        ("We got a kitten for my son, he's called Leo.", [("son/name", "leo")]),
    ],
)
def test_a_pet_said_before_is_who_ours_or_mine_is_called(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "because" as it is texted ends a value as "because" does
        ("I moved to Leeds bc of work.", [("user/location", "leeds")]),
        ("I work at Monzo cuz it's remote.", [("user/employer", "monzo")]),
        ("I switched to Rust cos the team wanted it.", [("user/programming_language", "rust")]),
    ],
)
def test_a_texted_because_ends_a_value(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an emoji ends a sentence as "!" does: the question after it is its own
        ("My brother in Glasgow sends me memes all day 😂 how do I mute him?", [("brother/location", "glasgow")]),
        ("I live in Leeds 🙂 and I'm a nurse.", [("user/location", "leeds"), ("user/occupation", "nurse")]),
    ],
)
def test_an_emoji_ends_a_sentence(text, expected):
    assert pairs(text) == expected


def test_an_emoji_in_chinese_ends_no_sentence():
    # the clauses run on through it: "别逗了" ("stop kidding") after it is no instruction
    assert not [key for key, _ in pairs("我是大老板😂 别逗了，帮我算算电费") if key and "instruction" in key]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a named place one has been at since a time is the employer
        ("Good news, I'm at Deloitte now, three weeks in.", [("user/employer", "deloitte")]),
        ("I'm at Monzo as of Monday.", [("user/employer", "monzo")]),
        # a place one is at for now is not
        ("I'm at Starbucks now, what should I order?", []),
    ],
)
def test_a_place_one_is_at_since_a_time_is_the_employer(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # someone else's request relayed in a later clause is theirs; the clauses before it are the speaker's
        ("My birthday is May 5th and my wife wants to throw a big party.", [("user/birthday", "may 5th")]),
        ("I live in Leeds, and my wife says you should use metric.", [("user/location", "leeds")]),
        ("我住在上海，我老公说你应该用英文回答", [("user/location", "上海")]),
        # a sentence that opens with it says nothing of the speaker's
        ("My boss wants you to always reply in French.", []),
    ],
)
def test_a_request_relayed_later_leaves_the_clauses_before_it(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a job said by what one does: a subject taught where one teaches, a vehicle driven, a job shared
        (
            "I teach Year 9 history at Westfield Academy.",
            [("user/employer", "westfield academy"), ("user/occupation", "history teacher")],
        ),
        ("I drive the night bus these days.", [("user/occupation", "night bus driver")]),
        ("I drive a taxi in Dublin.", [("user/occupation", "taxi driver")]),
        ("We're sheep farmers in Wales.", [("user/occupation", "sheep farmer")]),
        # as before: a car one owns, a school run, a teacher's workplace alone
        ("I drive a Toyota.", []),
        ("I drive the kids to school.", []),
        ("I teach at Westfield Academy.", [("user/employer", "westfield academy")]),
    ],
)
def test_a_job_said_by_what_one_does(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a permission that opens one is no part of it, and leaving something out is never giving it
        ("Go ahead and use emojis from now on.", [("user/instruction:use_emojis", "always")]),
        ("You can drop the sign-off from now on.", [("user/instruction:sign-off", "never")]),
        ("u can stop adding the word count from now on", [("user/instruction:word_count", "never")]),
    ],
)
def test_a_standing_instruction_said_casually(text, expected):
    assert pairs(text) == expected
