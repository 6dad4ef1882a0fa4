"""Compaction by size tier, the rule the archive's files and the hot tables' fragments share."""

from __future__ import annotations

from collections.abc import Sequence


def settled_prefix(sizes: Sequence[int], due: Sequence[bool]) -> int:
    """How many leading items a compaction leaves alone: each larger than all the items after it together,
    none of them ``due`` (to be rewritten whatever its size). Merging a large item with the few small ones a
    steady stream adds would rewrite all of it every pass; left alone until the items after it add up to its
    size, each byte is rewritten O(log n) times, and O(log n) items remain."""
    rest = sum(sizes)
    for n, (size, rewrite) in enumerate(zip(sizes, due, strict=True)):
        rest -= size
        if rewrite or size <= rest:
            return n
    return len(sizes)
