"""The rule extractor on phrasings ``rules/20`` and ``rules/21`` added, and the ones they must leave alone."""

from __future__ import annotations

import pytest

from hindsight_es.extraction.filler import is_filler
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an age before "and", 今年 without 岁; a hometown in a clause that carries the sentence's subject
        ("I'm 41 and originally from Aberdeen.", [("user/age", "41"), ("user/hometown", "aberdeen")]),
        ("我今年28，老家在潍坊。", [("user/age", "28"), ("user/hometown", "潍坊")]),
        # ... whose subject is the sentence's: a relative's, someone else's
        ("我妈今年60，老家在潍坊。", [("mother/age", "60"), ("mother/hometown", "潍坊")]),
        ("Tom is 41 and originally from Cork.", []),
        ("他今年60，老家在潍坊。", []),
        ("王伟今年30，老家在潍坊。", []),
        ("Tom is great, and I am originally from Rome.", [("user/hometown", "rome")]),  # a clause with its subject
        ("我姐不当护士了，去年改行当了老师。", [("sister/occupation", "老师")]),
        ("我姐是护士，我是老师。", [("sister/occupation", "护士"), ("user/occupation", "老师")]),
        ("Home is Toronto for now.", [("user/location", "toronto")]),
        # names: an attribute noun for one, "<Name> here"
        ("我的中文名是林浩然。", [("user/name", "林浩然")]),
        ("hey, Siobhan here", [("user/name", "siobhan")]),
        ("Paris here is lovely.", []),
        # a relative: "Dad" opening a sentence, "is (still up) in" a place, a move after another verb
        ("Dad finally sold the house and moved to Brighton to be near the sea.", [("father/location", "brighton")]),
        ("My dad's still up in Norwich, same house as always.", [("father/location", "norwich")]),
        ("我哥们在北京工作。", []),
        # the replies' language taken back; the tool of a rewrite, not the rewrite
        ("还是换回中文回答我吧。", [("user/reply_language", "chinese")]),
        ("新版本我们改用Go重写了，Java那套已经下线。", [("team/programming_language", "go")]),
        ("I can't eat food containing gluten.", [("user/diet:gluten", "not:gluten")]),
        # rules/21: someone known by where they work is someone else, whose habits are theirs
        ("Lucas from accounting drinks about six espressos a day.", []),
        ("Dana at work drinks green tea.", []),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected


def test_thanks_for_help_is_an_acknowledgement():
    assert is_filler("Thanks a lot, that was really helpful!")
    assert not is_filler("That was helpful, and book the 9am train.")
