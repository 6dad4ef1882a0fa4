"""The rule extractor on phrasings ``rules/19`` added, and the ones they must leave alone."""

from __future__ import annotations

import pytest

from hindsight_es.extraction.filler import is_filler
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "I'm <Name>": a self-introduction names the speaker
        ("I'm Sam.", [("user/name", "sam")]),
        ("Hello! I'm Maria Lopez, nice to meet you.", [("user/name", "maria lopez")]),
        ("I'm Dr. Chen, your new GP.", [("user/name", "chen")]),
        ("Hi, I'm Sam and I work as a nurse.", [("user/name", "sam"), ("user/occupation", "nurse")]),
        # ... not what someone is, whose they are, or a state
        ("I'm Chinese.", []),
        ("I'm Catholic and I go to church on Sundays.", []),
        ("I'm Sam's mom.", []),
        ("Sorry, I'm late, the bus broke down.", []),
        ("Hi there, I'm Tomasz by the way.", [("user/name", "tomasz")]),
        ("忘了自我介绍，我是许晴。", [("user/name", "许晴")]),
        ("我是上海人。", [("user/hometown", "上海")]),  # where one is from, not a name
        # based out of a place; moved, with an adverb and a particle between
        ("I'm based out of Leeds, fyi.", [("user/location", "leeds")]),
        ("I've since moved down to Bristol.", [("user/location", "bristol")]),
        # "my X's on …" is "my X is on …"; a date keeps its ordinal, without "on"/"the"
        ("My birthday's on June 2nd.", [("user/birthday", "june 2nd")]),
        ("My birthday is the 2nd of June.", [("user/birthday", "june 2nd")]),
        # for one occasion: neither the replies' language nor an instruction
        ("Just this once, write the answer in French so I can forward it.", []),
        ("Write the answer in French from now on.", [("user/reply_language", "french")]),
        # a store the data sits in; a task's habit said without 以后
        ("我们组后端的数据都存在MongoDB里。", [("team/database", "mongodb")]),
        ("回答的时候都带上参考链接。", [("user/instruction:带上参考链接", "always")]),
        # a trade named by its 医; a relative gone to a city to work
        ("我老婆是牙医。", [("wife/occupation", "牙医")]),
        ("我去医院看牙医。", []),
        ("我妹妹毕业后去了西安工作。", [("sister/location", "西安")]),
        ("我哥去了一家公司工作。", []),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "filler"),
    [
        ("Perfect, that works for me.", True),
        ("works for me!", True),
        ("Tuesday at 3 works for me.", False),
        ("Sorry, I'm late.", True),  # an apology with nothing said about anything (rules/29)
    ],
)
def test_acknowledgements(text, filler):
    assert is_filler(text) is filler
