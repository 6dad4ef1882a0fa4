"""``runner.collector_paused``: what a replay leaves allocated is not traversed at once when it ends, and
nothing is kept from the collector."""

from __future__ import annotations

import gc
import weakref

from projections.runner import collector_paused


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_what_the_block_left_goes_to_the_oldest_generation_and_cycles_are_still_collected() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        kept = [{"row": [i]} for i in range(1000)]  # rows a projection still holds
        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle only the collector frees
        gone = weakref.ref(a)
        del a, b
    assert gc.isenabled()
    youngest = {id(o) for o in gc.get_objects(generation=0)}
    assert not any(id(row) in youngest for row in kept)  # not traversed by the next young collection
    assert any(row is kept[0] for row in gc.get_objects(generation=2))
    assert gone() is not None
    gc.collect()
    assert gone() is None  # a full collection still frees the cycle


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_someone_else_froze_stays_frozen() -> None:
    gc.freeze()
    try:
        count = gc.get_freeze_count()
        assert count > 0
        with collector_paused():
            pass
        assert gc.isenabled()
        assert gc.get_freeze_count() == count
    finally:
        gc.unfreeze()
