"""The rule extractor on phrasings ``rules/17`` added (from the eighteenth set's first run), and the ones
they must leave alone. Given one turn, then these (key, value) pairs besides the episode."""

from __future__ import annotations

import pytest

from hindsight_es.extraction.filler import is_filler
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've been vegan for two years.", [("user/diet", "vegan")]),
        ("Everyone calls me Jo.", [("user/name", "jo")]),
        ("My friends call me Bea.", [("user/name", "bea")]),
        ("I can't function without my morning cappuccino.", [("user/drink", "cappuccino")]),
        ("I can't function without my phone.", []),
        ("I'm off caffeine now, just chamomile tea in the evenings.", [("user/drink", "chamomile tea")]),
        ("今年春天我搬回了长沙老家。", [("user/location", "长沙")]),
        ("我女儿在上海读大学。", [("daughter/location", "上海")]),
        ("我女儿在清华读书。", [("daughter/school", "清华")]),
        # a time said first is part of the instruction, with or without 给我
        ("周一早上不要安排会议。", [("user/instruction:周一早上安排会议", "never")]),
        ("周末不要安排会议。", [("user/instruction:周末安排会议", "never")]),
        ("晚上不要给我打电话。", [("user/instruction:晚上打电话", "never")]),
        ("不要再提这件事了。", [("user/instruction:提这件事", "never")]),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(("text", "filler"), [("太好了，谢谢你！", True), ("太好了，我们下周去杭州。", False)])
def test_zh_delight_is_filler(text, filler):
    assert is_filler(text) is filler


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            "Please always include the ticket number in your summaries.",
            "Always include the ticket number in your summaries",
        ),
        ("Never schedule meetings for me on Fridays.", "Never schedule meetings for me on Fridays"),
    ],
)
def test_an_instruction_is_stated_with_its_words_as_said(text, said):
    from hindsight_es.extraction import extract

    assert [c.text for c in extract(text, speaker="Ann") if c.key] == [said]
