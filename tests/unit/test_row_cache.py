"""Recall reads a memory's fixed fields from the row cache and the fields that change from every search."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa

from hindsight_es.embedding import make_embedder
from hindsight_es.recall.rowcache import RowCache, fill_in_background, row_cache
from hindsight_es.recall.search import recall
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance import LanceStore, memory_schema

TEXTS = ["We deploy on Fridays after the review.", "The cat is called Miso.", "Lunch is at noon."]


def table(embedder, *, status: str, scope: str) -> pa.Table:
    n = len(TEXTS)
    data = {f.name: [None] * n for f in memory_schema(embedder.dim)}
    data.update(
        memory_id=[f"m{i}" for i in range(n)],
        bank_id=["b"] * n,
        status=[status] * n,
        kind=["fact"] * n,
        text=TEXTS,
        search_text=TEXTS,
        text_ngram=TEXTS,
        entities=[[]] * n,
        scope=[scope] * n,
        source_turn_ids=[[f"t{i}"] for i in range(n)],
        valid_from=[datetime(2026, 1, 1, tzinfo=UTC)] * n,
        vector=list(embedder.embed(TEXTS).astype(np.float16)),  # as the table holds them
    )
    return pa.Table.from_pydict(data, schema=memory_schema(embedder.dim))


def test_a_changed_scope_and_status_show_on_the_next_recall(tmp_path) -> None:
    embedder = make_embedder("minilm")
    store = LanceStore(tmp_path)
    schema = memory_schema(embedder.dim)
    store.upsert("memories", schema, table(embedder, status="active", scope="session"))
    hits = recall(store, embedder, "b", "when do we deploy?", limit=1)
    assert [(h.memory_id, h.scope, h.source_turn_ids) for h in hits] == [("m0", "session", ["t0"])]
    assert len(row_cache(store)) >= 1  # the fixed fields were cached

    store.upsert("memories", schema, table(embedder, status="active", scope="global"))  # promoted
    assert [(h.memory_id, h.scope) for h in recall(store, embedder, "b", "when do we deploy?", limit=1)] == [
        ("m0", "global")
    ]
    store.upsert("memories", schema, table(embedder, status="forgotten", scope="global"))
    assert recall(store, embedder, "b", "when do we deploy?") == []
    hits = recall(store, embedder, "b", "when do we deploy?", limit=1, statuses=("forgotten",))
    assert [(h.memory_id, h.status) for h in hits] == [("m0", "forgotten")]


def test_a_lance_row_id_never_changes_content(tmp_path) -> None:
    """The row cache keys rows by Lance row id and never invalidates them: this checks, on the installed
    LanceDB, that an update and a compaction give rows new ids and that a deleted id is not reused."""
    embedder = make_embedder("minilm")
    store = LanceStore(tmp_path)
    schema = memory_schema(embedder.dim)

    def snapshot() -> dict[int, tuple[str, str]]:
        table = store.scan("memories", MemoryFilter(statuses=None), ["memory_id", "status"], row_ids=True)
        return {r["_rowid"]: (r["memory_id"], r["status"]) for r in table.to_pylist()}

    store.upsert("memories", schema, table(embedder, status="active", scope="session"))
    first = snapshot()
    store.upsert("memories", schema, table(embedder, status="forgotten", scope="session").slice(0, 1))
    second = snapshot()
    store.upsert("memories", schema, table(embedder, status="active", scope="session").slice(0, 1))
    store.table("memories").optimize()  # compaction moves rows to new ids
    third = snapshot()
    assert sorted(third.values()) == [("m0", "active"), ("m1", "active"), ("m2", "active")]
    contents: dict[int, tuple[str, str]] = {}
    for snap in (first, second, third):
        for row_id, content in snap.items():
            assert contents.setdefault(row_id, content) == content  # an id never shows other content
    old_m0 = next(row_id for row_id, (m, _) in first.items() if m == "m0")
    assert old_m0 not in second and store.rows_by_row_id([old_m0], ["memory_id"]).num_rows == 0
    hits = store.search.start(
        store.search.vector_search(embedder.embed(["Lunch?"])[0], MemoryFilter("b", statuses=None), 3)
    ).result()
    assert {row_id for row_id, _ in hits} == set(third)


def test_a_row_moved_between_search_and_read_is_searched_again(tmp_path) -> None:
    """A write that commits between a search and the read of its rows (here: the vector search's
    answer from before an update) makes recall search again, not drop the hit from that list."""
    embedder = make_embedder("minilm")
    store = LanceStore(tmp_path)
    schema = memory_schema(embedder.dim)
    store.upsert("memories", schema, table(embedder, status="active", scope="session"))
    expected = recall(store, embedder, "b", "when do we deploy?", limit=1)
    assert expected[0].memory_id == "m0"
    stale = [
        store.search.start(
            store.search.vector_search(embedder.embed(["when do we deploy?"])[0], MemoryFilter("b", statuses=None), 75)
        ).result()
    ]  # row ids before the write
    store.upsert("memories", schema, table(embedder, status="active", scope="session"))  # new ids
    calls = []

    fresh = LanceStore(tmp_path)  # its row cache has not seen the old ids
    searching = fresh.search.vector_search

    def racing(*args, **kwargs):
        calls.append(1)
        if stale:
            hits = stale.pop()

            async def answered() -> list[tuple[int, float]]:
                return hits

            return answered()
        return searching(*args, **kwargs)

    fresh.search.vector_search = racing
    assert recall(fresh, embedder, "b", "when do we deploy?", limit=1) == expected
    assert len(calls) == 2


def test_a_background_fill_reads_the_active_memories_and_evicts_none(tmp_path) -> None:
    """After ``fill_in_background`` a recall finds its rows and their terms in the caches (reads none); a
    full cache keeps the rows recalls read and takes no more."""
    embedder = make_embedder("minilm")
    store = LanceStore(tmp_path)
    schema = memory_schema(embedder.dim)
    rows = table(embedder, status="active", scope="session")
    store.upsert(
        "memories",
        schema,
        rows.set_column(rows.schema.get_field_index("status"), "status", pa.array(["active", "active", "forgotten"])),
    )
    fill_in_background(store).join(timeout=30)
    cache = row_cache(store)
    assert sorted(row["memory_id"] for row in cache._rows.values()) == ["m0", "m1"]  # active ones only
    taken: list[int] = []
    take = store.search.take

    def counted(ids, columns):
        taken.extend(ids)  # rows recall shows, or their full-text terms (``term_cache``)
        return take(ids, columns)

    store.search.take = counted  # type: ignore[method-assign]
    hits = recall(store, embedder, "b", "what is the cat called?", limit=1)
    assert [h.memory_id for h in hits] == ["m1"] and taken == []

    small = RowCache(store, max_rows=2)
    active = store.search.start(store.search.row_ids(MemoryFilter(), 10)).result()
    small.rows([next(iter(cache._rows))])  # a recall read one row
    assert small.fill(active) == 1 and len(small) == 2
    assert small.fill(active) == 0 and next(iter(cache._rows)) in small._rows
