"""Reciprocal rank fusion, pure.

    score(d) = Σ_i  w_i / (k + rank_i(d))        rank_i starts at 1; lists missing d add nothing

k = 60 damps the head of each list so no single retriever dominates (Cormack et al., 2009).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


def rrf(
    rankings: Sequence[Sequence[K]], weights: Sequence[float] | None = None, k: float = 60.0
) -> list[tuple[K, float]]:
    """Fuse ranked id lists; returns (id, score) best first, ties broken by first appearance."""
    weights = weights or [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError("one weight per ranking")
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])
