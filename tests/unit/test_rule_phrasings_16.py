"""The rule extractor on phrasings ``rules/16`` added (from the seventeenth set's first run), and the ones
they must leave alone. Given one turn, then these (key, value) pairs besides the episode."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a move with a particle
        ("We finally moved out to Austin.", [("user/location", "austin")]),
        ("I moved down to Brighton last year.", [("user/location", "brighton")]),
        # a language the speaker accepts for the conversation; a language judged otherwise is not
        ("English is fine again, thanks.", [("user/reply_language", "english")]),
        ("French is ok with me.", [("user/reply_language", "french")]),
        ("English is hard for me.", []),
        # a daily drink said without a verb; a glass drunk once is not
        ("我每天早上一杯美式。", [("user/drink", "americano")]),
        ("我们每天一杯咖啡。", [("user/drink", "coffee")]),
        ("他一杯啤酒下肚就醉了。", []),
        ("一杯拿铁二十八元。", []),  # a price on a menu (zh_banks_dev lost this message's question to it)
        # a carrier in a clause of its own after the one given up
        ("以后别用中通了，都发顺丰。", [("user/shipping_carrier", "顺丰")]),
        ("我发了一条微信。", []),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected
