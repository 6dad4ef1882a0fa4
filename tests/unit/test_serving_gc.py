"""A process that serves sets the cyclic collector to ``SERVING_GC`` (a recall's allocations no longer make it
traverse the row caches every few recalls); a one-off command keeps Python's default."""

from __future__ import annotations

import gc

from hindsight_es.app.cli.common import SERVING_GC, run_async, run_service


async def _threshold() -> tuple[int, ...]:
    return gc.get_threshold()


def test_a_serving_process_runs_with_the_serving_thresholds_and_a_command_with_the_default() -> None:
    before = gc.get_threshold()
    try:
        assert run_async(_threshold) == before
        assert run_service(_threshold) == SERVING_GC
    finally:
        gc.set_threshold(*before)
