"""Recall reads a memory's fixed fields from the row cache and the fields that change from every search."""

from __future__ import annotations

from datetime import UTC, datetime

import pyarrow as pa

from hindsight_es.embedding import make_embedder
from hindsight_es.recall.rowcache import row_cache
from hindsight_es.recall.search import recall
from hindsight_es.stores.lance import LanceStore, memory_schema

TEXTS = ["We deploy on Fridays after the review.", "The cat is called Miso.", "Lunch is at noon."]


def table(embedder, *, status: str, scope: str) -> pa.Table:
    n = len(TEXTS)
    data = {f.name: [None] * n for f in memory_schema(embedder.dim)}
    data.update(memory_id=[f"m{i}" for i in range(n)], bank_id=["b"] * n, status=[status] * n, kind=["fact"] * n,
                text=TEXTS, search_text=TEXTS, text_ngram=TEXTS, entities=[[]] * n, scope=[scope] * n,
                source_turn_ids=[[f"t{i}"] for i in range(n)], valid_from=[datetime(2026, 1, 1, tzinfo=UTC)] * n,
                vector=list(embedder.embed(TEXTS)))
    return pa.Table.from_pydict(data, schema=memory_schema(embedder.dim))


def test_a_changed_scope_and_status_show_on_the_next_recall(tmp_path) -> None:
    embedder = make_embedder("minilm")
    store = LanceStore(tmp_path)
    schema = memory_schema(embedder.dim)
    store.upsert("memories", schema, "memory_id", table(embedder, status="active", scope="session"))
    hits = recall(store, embedder, "b", "when do we deploy?", limit=1)
    assert [(h.memory_id, h.scope, h.source_turn_ids) for h in hits] == [("m0", "session", ["t0"])]
    assert len(row_cache(store)) >= 1  # the fixed fields were cached

    store.upsert("memories", schema, "memory_id", table(embedder, status="active", scope="global"))  # promoted
    assert [(h.memory_id, h.scope) for h in recall(store, embedder, "b", "when do we deploy?", limit=1)] == [
        ("m0", "global")]
    store.upsert("memories", schema, "memory_id", table(embedder, status="forgotten", scope="global"))
    assert recall(store, embedder, "b", "when do we deploy?") == []
    hits = recall(store, embedder, "b", "when do we deploy?", limit=1, statuses=("forgotten",))
    assert [(h.memory_id, h.status) for h in hits] == [("m0", "forgotten")]
