"""A recall on a cold row cache reads only the rows its searches return, and answers as a warm one does,
alone or many at once."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pytest

from hindsight_es.embedding import make_embedder
from hindsight_es.recall.rowcache import row_cache
from hindsight_es.recall.search import recall, warm
from hindsight_es.stores.lance import LanceStore, memory_schema
from hindsight_es.stores.lance_indexes import SEARCH_INDEXES, prewarm

ROWS = 4_000  # above the size at which a bank used to be loaded whole on its first recall
WORDS = ["budget", "review", "release", "audit", "design", "survey", "offsite", "migration", "team", "plan"]
QUERIES = ["budget review", "what did the audit find?", "release plan for the team", "offsite design survey"]


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture(scope="module")
def store_path(tmp_path_factory, embedder):
    rng = np.random.default_rng(7)
    texts = [" ".join(rng.choice(WORDS, 5)) + f" (#{i})" for i in range(ROWS)]
    vectors = rng.standard_normal((ROWS, embedder.dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    schema = memory_schema(embedder.dim)
    data = {f.name: [None] * ROWS for f in schema}
    data.update(
        memory_id=[f"m{i:05d}" for i in range(ROWS)],
        bank_id=["big"] * ROWS,
        status=["active"] * ROWS,
        kind=["fact"] * ROWS,
        text=texts,
        search_text=texts,
        text_ngram=texts,
        entities=[[]] * ROWS,
        scope=["global"] * ROWS,
        source_turn_ids=[[f"t{i}"] for i in range(ROWS)],
        valid_from=[datetime(2026, 1, 1, tzinfo=UTC)] * ROWS,
        vector=list(vectors.astype(np.float16)),  # the hot store keeps float16 vectors
    )
    path = tmp_path_factory.mktemp("cold")
    LanceStore(path).upsert("memories", schema, pa.Table.from_pydict(data, schema=schema))
    return path


def test_a_cold_recall_reads_only_what_it_returns_and_matches_a_warm_one(store_path, embedder) -> None:
    cold = LanceStore(store_path)  # a store opened afresh, as after a restart: its row cache is empty
    first = recall(cold, embedder, "big", QUERIES[0])
    assert first, "the bank answers the query"
    assert 0 < len(row_cache(cold)) < ROWS // 4  # the searches' hits, not the bank

    warm = LanceStore(store_path)
    for query in QUERIES:
        recall(warm, embedder, "big", query)
    for query in QUERIES:
        assert recall(LanceStore(store_path), embedder, "big", query) == recall(warm, embedder, "big", query)
    assert recall(warm, embedder, "big", QUERIES[0]) == first


def test_concurrent_cold_recalls_answer_as_sequential_ones(store_path, embedder) -> None:
    expected = {query: recall(LanceStore(store_path), embedder, "big", query) for query in QUERIES}
    shared = LanceStore(store_path)  # one cold cache, filled by every thread at once
    asks = QUERIES * 4
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda q: recall(shared, embedder, "big", q), asks))
    assert answers == [expected[q] for q in asks]


def test_warming_a_store_loads_no_rows_and_changes_no_answer(store_path, tmp_path, embedder) -> None:
    warm(LanceStore(tmp_path / "empty"), embedder)  # no table yet: nothing to warm, no error
    warmed = LanceStore(store_path)
    warm(warmed, embedder)
    assert len(row_cache(warmed)) == 0  # indexes loaded, not rows: memory does not grow with the bank
    assert recall(warmed, embedder, "big", QUERIES[1]) == recall(LanceStore(store_path), embedder, "big", QUERIES[1])


def test_prewarming_loads_the_search_indexes_that_fit_the_budget(store_path, tmp_path, embedder) -> None:
    shutil.copytree(store_path, tmp_path / "indexed")
    store = LanceStore(tmp_path / "indexed")
    store.ensure_indexes(("memories",))
    table = store.table("memories")
    sizes = {i.name: i.size_bytes for i in table.list_indices()}
    assert prewarm(table, 0) == ([], 0)
    assert prewarm(table, 10**12) == (
        [n for n in SEARCH_INDEXES if n in sizes],
        sum(sizes[n] for n in SEARCH_INDEXES if n in sizes),
    )
    smallest = min(SEARCH_INDEXES, key=lambda n: sizes.get(n, 10**12))
    assert prewarm(table, sizes[smallest])[0] == [smallest]  # the others do not fit beside it
    before = recall(LanceStore(tmp_path / "indexed"), embedder, "big", QUERIES[1])
    warm(store, embedder, 10**9)
    assert recall(store, embedder, "big", QUERIES[1]) == before
