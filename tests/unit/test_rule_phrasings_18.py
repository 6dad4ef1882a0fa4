"""The rule extractor on phrasings ``rules/18`` added, and the ones they must leave alone."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # 在 a place the lexicon knows, then 住: where one lives
        ("我在广州住了五年了。", [("user/location", "广州")]),
        ("我们在上海已经住了十年。", [("user/location", "上海")]),
        # ... not a night somewhere
        ("我在酒店住了一晚。", []),
        ("我在朋友家住了两天。", []),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected
