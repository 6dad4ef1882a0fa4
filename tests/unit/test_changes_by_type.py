"""``changes`` answers the catalogue types it never matches by their type alone: the same as the match."""

from __future__ import annotations

import pytest

from hindsight_es.events import changes as changes_module
from hindsight_es.events.changes import changes
from tests.unit.test_codec import SAMPLES


def test_every_event_changes_what_the_match_alone_says(monkeypatch: pytest.MonkeyPatch) -> None:
    fast = [changes(event) for event in SAMPLES]
    monkeypatch.setattr(changes_module, "_UNCHANGING", frozenset())  # every event through the match
    assert fast == [changes(event) for event in SAMPLES]
    assert any(fast) and not all(fast)  # both kinds are in the samples


def test_only_types_the_match_never_names_are_answered_by_type() -> None:
    for cls in changes_module._UNCHANGING:
        assert not issubclass(cls, changes_module._CASES)
    assert {"MemoryRetained", "TurnRecorded"} <= {cls.__name__ for cls in changes_module._UNCHANGING}
