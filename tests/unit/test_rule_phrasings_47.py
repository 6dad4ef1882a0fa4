"""The rule extractor on an attribute changed by name (``rules/47``): "I switched my phone carrier to Verizon"
keys the attribute as "my phone carrier is AT&T" does, so the later statement supersedes the earlier; and a
Chinese adverb of time before the verb is not part of the attribute ("我的会计现在是小王": 会计, not 会计现在),
and one before "的" still says whose it is ("我现在的会计是小王").
Sentences of a tour, none of a labelled set."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My phone carrier is AT&T.", [("user/phone_carrier", "at&t")]),
        ("I switched my phone carrier to Verizon.", [("user/phone_carrier", "verizon")]),
        ("I've switched my phone carrier from AT&T to Verizon.", [("user/phone_carrier", "verizon")]),
        ("I changed my dentist to Dr. Lee.", [("user/dentist", "dr. lee")]),
        ("I changed my name to Sam.", [("user/name", "sam")]),
    ],
)
def test_an_attribute_switched_to_a_named_value_is_keyed_as_stated(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I switched my phone to silent.",  # a mode, not what the phone is
        "I changed my mind to be honest.",  # talk, not an attribute
        "We switched our supplier to Unox.",  # a team's, as "our supplier is Unox" is
    ],
)
def test_a_switch_that_names_no_attribute_value_is_not_keyed(text):
    assert [key for key, _ in pairs(text) if key] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我的会计现在是小王。", [("user/会计", "小王")]),
        ("我的会计是小王。", [("user/会计", "小王")]),
        ("我的会计已经换成了小李。", [("user/会计", "小李")]),
        ("我现在的会计是小王。", [("user/会计", "小王")]),  # "现在的" before the attribute, as "新的"
        ("我现在的手机号是13912345678", [("user/phone", "13912345678")]),
    ],
)
def test_an_adverb_of_time_is_not_part_of_a_chinese_attribute(text, expected):
    assert pairs(text) == expected
