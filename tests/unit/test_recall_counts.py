"""Recall's memory counts, kept per version of the memories table: every write is seen by the next count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from hindsight_es.recall.counts import counted
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema

DIM = 8


def rows(ids: range, bank: str = "b", status: str = "active", script: str = "latin") -> pa.Table:
    n = len(ids)
    vectors = np.random.default_rng(ids.start).standard_normal((n, DIM), dtype=np.float32)
    data = {f.name: [None] * n for f in memory_schema(DIM)}
    data.update(
        memory_id=[f"m{i}" for i in ids],
        bank_id=[bank] * n,
        status=[status] * n,
        kind=["episode"] * n,
        text=[f"note {i}" for i in ids],
        search_text=[f"note {i}" for i in ids],
        text_ngram=[f"note {i}" for i in ids],
        script=[script] * n,
        entities=[[]] * n,
        source_turn_ids=[[f"t{i}"] for i in ids],
        vector=list(vectors.astype(np.float16)),
    )
    return pa.Table.from_pydict(data, schema=memory_schema(DIM))


def count(store: LanceStore, where: MemoryFilter) -> int:
    version = store.search.start(store.search.version())
    return store.search.start(counted(store, where, version)).result(timeout=30)


def test_each_count_sees_the_writes_before_it_appends_updates_and_other_scripts(tmp_path: Path) -> None:
    store = LanceStore(tmp_path)
    assert count(store, MemoryFilter("b")) == 0  # no table yet
    store.upsert("memories", memory_schema(DIM), rows(range(5)))
    active, cjk = MemoryFilter("b"), MemoryFilter("b", script="cjk")
    assert (count(store, active), count(store, cjk)) == (5, 0)
    assert (count(store, active), count(store, cjk)) == (5, 0)  # the same version, asked again
    store.upsert("memories", memory_schema(DIM), rows(range(5, 8)))
    assert count(store, active) == 8
    store.upsert("memories", memory_schema(DIM), rows(range(2), status="forgotten"))  # an update of two rows
    assert count(store, active) == 6
    assert count(store, MemoryFilter("b", statuses=None)) == 8
    store.upsert("memories", memory_schema(DIM), rows(range(100, 103), script="cjk"))
    assert (count(store, active), count(store, cjk)) == (9, 3)
    assert count(store, MemoryFilter("other")) == 0
