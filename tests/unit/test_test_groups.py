"""The suite's process groups hold (``tests/conftest.py``): under pytest-xdist's ``--dist loadgroup`` a test's id
carries its group, by which the controller sends a whole group to one process. The group is lost if the
conftest marks the tests after xdist has read the marks (its hook runs first for that), or if pytest derives
ids from a field xdist does not set (pytest 9.2 with xdist 3.8); every test was then sent on its own: each
process built a file's module fixtures again (the replay history three times per log), and tests on the
session's broker ran side by side."""

from __future__ import annotations

import pytest


def test_a_test_runs_in_its_files_group(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("not run under pytest-xdist's --dist loadgroup")
    assert request.node.nodeid.endswith("@tests/unit/test_test_groups.py"), request.node.nodeid
