"""The rule extractor on a relative's job said after another of their facts (``rules/32``): the job's rule claims
only its own verb, so what comes before it is kept. Sentences of a tour."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # was the job alone: its pattern ran from "my sister" to the job and hid the place and the name
        (
            "My sister lives in Berlin and works as a nurse.",
            [("sister/location", "berlin"), ("sister/occupation", "nurse")],
        ),
        (
            "My sister Maria lives in Berlin and works as a nurse.",
            [("sister/location", "berlin"), ("sister/name", "maria"), ("sister/occupation", "nurse")],
        ),
        (
            "My brother moved to Leeds last year and works as a chef.",
            [("brother/location", "leeds"), ("brother/occupation", "chef")],
        ),
        # as before
        ("My mum retired last year and now works as a volunteer nurse.", [("mother/occupation", "volunteer nurse")]),
        ("My sister works as a nurse.", [("sister/occupation", "nurse")]),
        ("I live in Berlin and work as a nurse.", [("user/location", "berlin"), ("user/occupation", "nurse")]),
    ],
)
def test_a_relatives_job_after_and_keeps_what_was_said_before_it(text, expected):
    assert pairs(text) == expected
