"""Routine maintenance leaves a table's large fragments alone and merges the small ones a stream leaves."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hindsight_es.stores import lance_indexes as LI
from hindsight_es.stores.lance import LanceStore, memory_schema
from hindsight_es.stores.lance_compaction import settled
from tests.unit.test_lance_indexes import DIM, rows


def fragments(store: LanceStore) -> list[tuple[int, int, int]]:
    dataset = store.table("memories").to_lance()
    return [(f.fragment_id, f.metadata.physical_rows, f.metadata.num_deletions) for f in dataset.get_fragments()]


@pytest.mark.parametrize(
    ("fragments", "left"),
    [
        ([(1, 1000, 0), (2, 10, 0), (3, 10, 0)], [1]),
        ([(1, 1000, 0), (2, 100, 0), (3, 10, 0), (4, 10, 0)], [1, 2]),
        ([(1, 1000, 0), (2, 10, 0), (3, 995, 0)], []),  # the second large one: the first is no longer the larger
        ([(1, 1000, 200), (2, 10, 0)], []),  # a fifth of its rows deleted: rewritten to drop them
        ([(1, 1000, 50), (2, 10, 0)], [1, 2]),  # the last is larger than nothing: alone, it is not merged
        ([(1, 10, 0)], [1]),
        ([], []),
    ],
)
def test_settled_fragments_are_each_larger_than_what_follows(fragments, left) -> None:
    assert settled(fragments) == left


def test_a_stream_of_small_commits_is_merged_without_rewriting_the_large_fragment(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(LI, "VECTOR_INDEX_ROWS", 600)
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(1000))
    store.ensure_indexes(("memories",))
    (base, base_rows, _), *rest = fragments(store)
    assert base_rows == 1000 and rest == []
    for start in range(1000, 1100, 10):  # ten commits of ten rows, as a projection under a steady stream
        store.upsert("memories", memory_schema(DIM), rows(10, start=start))
    assert len(fragments(store)) == 11
    store.ensure_indexes(("memories",))

    after = fragments(store)
    assert after[0] == (base, 1000, 0)  # not rewritten: same fragment, same row addresses
    assert [physical for _, physical, _ in after[1:]] == [100]
    table = store.table("memories")
    assert table.count_rows() == 1100
    assert {i.name: table.index_stats(i.name).num_unindexed_rows for i in table.list_indices()} == {
        i.name: 0 for i in table.list_indices()
    }
    assert table.index_stats("vector_idx").num_indices <= 2  # the trained index and one delta

    for start in range(1100, 1150, 10):  # more passes merge into that one delta
        store.upsert("memories", memory_schema(DIM), rows(10, start=start))
        store.ensure_indexes(("memories",))
    assert store.table("memories").index_stats("vector_idx").num_indices == 2
    assert fragments(store)[0] == (base, 1000, 0)
    store.upsert("memories", memory_schema(DIM), rows(5, start=2000))  # the table still takes writes
    assert store.table("memories").count_rows() == 1155


def test_a_fragment_with_many_deleted_rows_is_rewritten(tmp_path) -> None:
    store = LanceStore(tmp_path)
    store.upsert("memories", memory_schema(DIM), rows(1000))
    store.ensure_indexes(("memories",))
    (base, _, _), *_ = fragments(store)
    store.upsert("memories", memory_schema(DIM), rows(5, start=5000), delete=[f"m{i}" for i in range(200)])
    store.ensure_indexes(("memories",))
    after = fragments(store)
    assert base not in {fragment_id for fragment_id, _, _ in after}
    assert sum(physical for _, physical, _ in after) == 805 and all(deleted == 0 for _, _, deleted in after)


QUIET_PROBE = """
import sys
from pathlib import Path
from hindsight_es.stores import lance_indexes as LI
from hindsight_es.stores.lance import LanceStore, memory_schema
from tests.unit.test_lance_indexes import DIM, rows

LI.VECTOR_INDEX_ROWS = 600
store = LanceStore(Path(sys.argv[1]))
store.upsert("memories", memory_schema(DIM), rows(3000))
store.ensure_indexes(("memories",))  # about a dozen IVF partitions (``PARTITION_ROWS``)
store.upsert("memories", memory_schema(DIM), rows(3, start=3000))
store.ensure_indexes(("memories",))  # three new rows in a delta index: most of its partitions are empty
"""


@pytest.mark.parametrize(("asked", "warned"), [(None, False), ("warn", True)])
def test_delta_index_builds_do_not_print_lances_empty_partition_warnings(tmp_path, asked, warned) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LANCE_LOG", "LANCEDB_LOG")}
    if asked is not None:
        env["LANCE_LOG"] = asked
    run = subprocess.run(
        [sys.executable, "-c", QUIET_PROBE, str(tmp_path)], capture_output=True, text=True, check=True, env=env
    )
    assert ("is empty, skipping" in run.stderr) is warned
