"""The rule extractor on phrasings ``rules/26`` changed: a title's or an abbreviation's dot before a name is
not the end of a value. My own sentences."""

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
    ],
)
def test_phrasing(text, expected):
    assert pairs(text) == expected
