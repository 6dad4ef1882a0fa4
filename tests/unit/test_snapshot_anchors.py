"""A bank state read from a snapshot decodes its anchor index lazily (``memory.snapshot.LazySets``): every
way the state reads or changes it answers as the folded state's plain sets do."""

from __future__ import annotations

import json
from uuid import uuid4

from hindsight_es.memory import BankState
from hindsight_es.memory.snapshot import LazySets, state_from_json, state_to_json


def state_with_anchors() -> BankState:
    state = BankState("b")
    state.anchors = {"paris": {uuid4(), uuid4()}, "berlin": {uuid4()}}
    return state


def test_lookups_and_changes_answer_as_plain_sets() -> None:
    folded = state_with_anchors()
    loaded = state_from_json(json.loads(json.dumps(state_to_json(folded))))
    assert isinstance(loaded.anchors, LazySets)
    assert loaded == folded and folded == loaded  # compared either way round
    assert loaded.anchors.get("paris") == folded.anchors["paris"] and loaded.anchors.get("rome") is None
    assert loaded.anchors.get("rome", ()) == ()
    assert loaded.anchors["berlin"] == folded.anchors["berlin"]
    extra = uuid4()
    loaded.anchors.setdefault("berlin", set()).add(extra)
    assert loaded.anchors["berlin"] == folded.anchors["berlin"] | {extra}
    new = loaded.anchors.setdefault("rome", set())
    new.add(extra)
    assert loaded.anchors["rome"] == {extra}
    assert loaded.anchors.pop("paris") == folded.anchors["paris"] and "paris" not in loaded.anchors
    del loaded.anchors["rome"]
    assert sorted(loaded.anchors) == ["berlin"] and len(loaded.anchors) == 1
    assert dict(loaded.anchors.items()) == {"berlin": folded.anchors["berlin"] | {extra}}
    assert loaded != folded


def test_a_loaded_state_writes_the_same_snapshot_again() -> None:
    folded = state_with_anchors()
    body = json.loads(json.dumps(state_to_json(folded)))
    again = json.loads(json.dumps(state_to_json(state_from_json(body))))
    assert again == body
