"""Fusion maths and one-hit-per-text."""

from __future__ import annotations

import pytest

from hindsight_es.recall.fusion import rrf
from hindsight_es.recall.search import _distinct


def test_rrf_sums_reciprocal_ranks():
    fused = dict(rrf([["a", "b"], ["b", "c"]], k=60))
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert [i for i, _ in rrf([["a", "b"], ["b", "c"]])][0] == "b"


def test_rrf_weights_and_validation():
    fused = dict(rrf([["a"], ["b"]], weights=[2.0, 1.0]))
    assert fused["a"] == pytest.approx(2 * fused["b"])
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 2.0])


def test_distinct_keeps_the_typed_memory_at_the_best_score():
    rows = {
        "e": {"text": "I use vim", "kind": "episode"},
        "p": {"text": "I use vim ", "kind": "preference"},
        "x": {"text": "other", "kind": "episode"},
    }
    kept, stands_for = _distinct([("e", 0.5), ("x", 0.4), ("p", 0.1)], rows)
    assert kept == [("p", 0.5), ("x", 0.4)]
    assert stands_for == {"p": ["e", "p"]}  # the memories a hit stands for, whose best relevance it shows
