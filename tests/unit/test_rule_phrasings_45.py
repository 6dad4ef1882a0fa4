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
