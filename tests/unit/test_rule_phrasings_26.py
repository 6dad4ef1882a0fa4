"""The rule extractor on phrasings ``rules/26`` changed: a title's or an abbreviation's dot before a name is
not the end of a value; 终于 and 总算 before a move. My own sentences."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My dentist is Dr. Lee.", [("user/dentist", "dr. lee")]),
        ("My doctor is Dr. Anna Kim, she is great.", [("user/doctor", "dr. anna kim")]),
        ("I moved to St. Louis last year.", [("user/location", "st. louis")]),
        # a dot that ends the sentence still ends the value
        (
            "My favourite drink is tea. I also like coffee.",
            [("user/favorite:drink", "tea"), ("user/preference:coffee", "coffee")],
        ),
        ("My dentist is on Main St. He is nice.", [("user/dentist", "on main st")]),
        # a move with its subject left out, after 终于 or 总算
        ("终于搬到望京了，骑车十分钟到公司，爽。", [("user/location", "望京")]),
        ("我们总算搬去深圳了", [("user/location", "深圳")]),
    ],
)
def test_phrasing(text, expected):
    assert pairs(text) == expected
