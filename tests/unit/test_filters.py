"""Every value reaches a LanceDB filter through ``quote``: hostile ids match only themselves."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest

from hindsight_es.stores.filters import MemoryFilter, TurnFilter
from hindsight_es.stores.lance import TURN_SCHEMA, LanceStore

HOSTILE = ["o'brien", "x' OR '1'='1", "a'); DROP TABLE memories; --", "'", "''", "\\'", "名字'"]


def test_values_are_quoted_and_what_is_not_text_is_refused() -> None:
    assert TurnFilter("b", "o'brien").sql() == "bank_id = 'b' AND session_id = 'o''brien'"
    with pytest.raises(TypeError):
        TurnFilter("b", 1).sql()  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        TurnFilter("b", "a\x00b").sql()


def test_a_filter_quotes_every_value() -> None:
    where = MemoryFilter("bank", statuses=("active", "archived"), kinds=["fact"], agent="o'x").sql()
    assert where == (
        "bank_id = 'bank' AND status IN ('active', 'archived') AND kind IN ('fact') "
        "AND (owner IS NULL OR owner = 'o''x')"
    )
    assert MemoryFilter(statuses=None).sql() == "bank_id != '__positions__'"  # never a tracking row
    with pytest.raises(ValueError, match="zone"):
        MemoryFilter("b", since=datetime(2026, 1, 1)).sql()


def test_hostile_session_ids_match_only_themselves(tmp_path) -> None:
    store = LanceStore(tmp_path)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    sessions = ["plain", *HOSTILE]
    rows = [
        {
            "turn_key": f"b/{s}/t",
            "bank_id": "b",
            "session_id": s,
            "turn_id": "t",
            "role": "user",
            "text": s,
            "occurred_at": when,
        }
        for s in sessions
    ]
    store.commit("turns", TURN_SCHEMA, pa.Table.from_pylist(rows, schema=TURN_SCHEMA), {("hindsight.turns", 0): 8})
    for session in sessions:
        found = store.scan("turns", TurnFilter("b", session), ["session_id"]).column("session_id").to_pylist()
        assert found == [session]
    assert store.scan("turns", TurnFilter("b' OR '1'='1"), ["session_id"]).num_rows == 0
    assert sorted(store.scan("turns", TurnFilter("b"), ["session_id"]).column("session_id").to_pylist()) == sorted(
        sessions
    )  # the tracking row is not among them
    assert store.positions("turns") == {("hindsight.turns", 0): 8}
    assert np.isclose(len(sessions), store.count("turns"))
