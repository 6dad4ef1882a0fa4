"""Indexes of the LanceDB tables, and how a vector search is planned against them.

Full text (stemmed words, and n-grams for CJK), bitmaps and B-trees for the prefilter columns, and an
IVF_SQ vector index once a table is large; ``ivf_nprobes`` chooses exact or probed search per bank.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, NotRequired, TypedDict

from lancedb.index import FTS, Bitmap, BTree, IvfSq

from hindsight_es.stores.lance_compaction import maintain
from hindsight_es.stores.objects import ObjectStore

VECTOR_INDEX_ROWS = 5_000  # below this a flat scan is fast enough and exact
VECTOR_INDEX_FILE = "memories.vector_index.json"  # rows and partitions the IVF index was trained with
PROBED_BANK_ROWS = 8_000  # an IVF search probes enough partitions to see about this many rows of the bank
PARTITION_ROWS = 256  # IVF partition size: ~30 partitions hold PROBED_BANK_ROWS
# Past MAX_PARTITIONS * PARTITION_ROWS rows the partitions grow instead of multiplying (``partition_rows``).
# Chosen when LanceDB 0.40's "partition index is N but the number of partitions is M, skip loading it" was
# read as rows left out of the index; it is logged by the ``optimize`` after a build on a table of many
# fragments, at any M, and the rows are still found (``benchmarks/ivf_coverage.py``, docs/benchmarks.md).
MAX_PARTITIONS = 4096
VECTOR_INDEX_TYPE = "IVF_SQ"
# k-means is trained on TRAIN_SAMPLE_RATE rows per partition (LanceDB's default, 256, is nearly every row at
# 256-row partitions) for at most KMEANS_ITERATIONS rounds (default 50): training was most of a rebuild's
# index time. On 64k clustered 384-d vectors (1,500 clusters) recall@10 against an exact search stayed
# 0.97-0.98 at 16 and 32 probes while the build's CPU went from 13.0 to 6.1 s.
TRAIN_SAMPLE_RATE = 64
KMEANS_ITERATIONS = 20
MAX_VECTOR_DELTAS = 4  # delta indexes (stores maintained before ``lance_compaction``) that make a retrain
RETRAIN_GROWTH = 2  # the IVF index is retrained once the table holds this many times the rows it was trained on
MIN_NPROBES = 32
EXACT_BANK_ROWS = 3_000  # banks up to this size always get an exact vector scan
# Table versions (and the files only they use) older than this go at each maintenance pass. A reader reads
# the newest version when its query starts, so it only needs its version for as long as one read takes (a
# recall's searches: milliseconds; a full read of a million-row table: seconds). LanceDB's default keeps them
# 7 days, and under a steady stream every pass writes new fragments and index segments (``lance_compaction``):
# what stays on disk is the live tables plus this long's rewrites.
VERSIONS_KEPT = timedelta(minutes=1)


class VectorIndexInfo(TypedDict):
    """The IVF index as trained (``VECTOR_INDEX_FILE``); one without ``index`` is retrained."""

    index: NotRequired[str]
    rows: int
    partition_rows: int


def ensure_indexes(table_of: Callable[[str], Any | None], path: ObjectStore, tables: Sequence[str]) -> None:
    """Build missing indexes, then compact and fold new rows into them (``lance_compaction.maintain``).

    Each projection passes only its own table: two concurrent index commits on one table conflict.
    """
    table = table_of("memories") if "memories" in tables else None
    rows = table.count_rows() if table is not None else 0
    if table is not None and rows > 0:
        kinds = {i.name: i.index_type for i in table.list_indices()}
        if kinds.get("bank_id_idx") == "BTree":  # stores written before bank_id had a bitmap (below)
            table.drop_index("bank_id_idx")
            del kinds["bank_id_idx"]
        names = set(kinds)
        if "vector_idx" in names and rows < VECTOR_INDEX_ROWS // 2:
            # The table shrank far below an index's worth (a bank erased or archived whole): it is searched flat,
            # exactly, as one that never grew, until it grows back to ``VECTOR_INDEX_ROWS`` (the gap keeps a table
            # near the threshold from retraining again and again). An index over rows that are all gone cannot
            # be maintained: LanceDB's k-means has no vector to train on (an erase of a whole bank failed there).
            table.drop_index("vector_idx")
            path.delete(VECTOR_INDEX_FILE)
            names.discard("vector_idx")
        full_text_indexes(table, names)
        if "memory_id_idx" not in names:
            table.create_index("memory_id", config=BTree())
        # Every search is prefiltered on bank, status and owner (an agent's recall), some on kind or a
        # time range. Bitmaps answer "= value" and "IS NULL" with a ready row set, several times faster
        # than a B-tree over bank_id, and an unindexed clause scans every row.
        for column in ("bank_id", "status", "owner", "kind", "script"):
            if f"{column}_idx" not in names:
                table.create_index(column, config=Bitmap())
        if "valid_from_idx" not in names:
            table.create_index("valid_from", config=BTree())
        _ensure_vector_index(path, table, names, rows)
        maintain(table, VERSIONS_KEPT)
    turns = table_of("turns") if "turns" in tables else None
    if turns is not None and turns.count_rows() > 0:
        if "bank_id_idx" not in {i.name for i in turns.list_indices()}:
            turns.create_index("bank_id", config=BTree())
        maintain(turns, VERSIONS_KEPT)


# The full-text indexes of the memories table, by column: stemmed words, and one- and two-character grams for CJK.
_FULL_TEXT = {
    "search_text": FTS(base_tokenizer="simple", stem=True, remove_stop_words=True),
    "text_ngram": FTS(
        base_tokenizer="ngram",
        ngram_min_length=1,
        ngram_max_length=2,
        stem=False,
        remove_stop_words=False,
        lower_case=True,
    ),
}


def full_text_indexes(table: Any, names: set[str] | None = None) -> None:
    """The full-text indexes of the memories table, on a new table before its first row: without one, LanceDB's
    full-text search finds nothing, so until a maintenance pass built them a new store's recalls had no word
    evidence and ranked differently from the same rows a few seconds later. Rows not yet folded in are
    searched with the index's tokenizer (stems; n-grams for CJK), so results do not depend on maintenance."""
    names = {i.name for i in table.list_indices()} if names is None else names
    for column, config in _FULL_TEXT.items():
        if f"{column}_idx" not in names:
            table.create_index(column, config=config)


def full_text_missing(table: Any) -> bool:
    """Whether the table lacks one of its full-text indexes."""
    return not {f"{column}_idx" for column in _FULL_TEXT} <= {i.name for i in table.list_indices()}


def _ensure_vector_index(path: ObjectStore, table: Any, names: set[str], rows: int) -> None:
    """An IVF index once the table is large enough for flat search to hurt.

    IVF_SQ: vectors quantised to int8 in the index (a quarter of IVF_FLAT's memory: 170 MB instead of
    670 MB at 195k 896-d rows, and faster to scan); candidates only need their rank, not exact
    distances. It is trained with a target partition *size*: ``optimize`` then folds new rows in as
    delta indexes whose partitions keep that size (trained with a partition *count*, optimize
    re-partitioned it into a few huge ones, and every search compared every row). A table grown to
    ``RETRAIN_GROWTH`` times the rows the index was trained on is retrained (its partitions have grown as
    much, and so has the share of rows in the delta); so is an index with more deltas than a store
    maintained before ``lance_compaction`` could leave, or one this release did not record. ``rows``: the
    table's, counted by the caller (the scalar indexes built in between add none).
    """
    if rows < VECTOR_INDEX_ROWS:
        return
    info = vector_index_info(path)
    trained = "vector_idx" in names and info is not None and info.get("index") == VECTOR_INDEX_TYPE
    if (
        trained
        and info is not None
        and rows < RETRAIN_GROWTH * info["rows"]
        and table.index_stats("vector_idx").num_indices <= MAX_VECTOR_DELTAS
    ):
        return
    size = partition_rows(rows)
    config = IvfSq(
        distance_type="cosine",
        target_partition_size=size,
        sample_rate=TRAIN_SAMPLE_RATE,
        max_iterations=KMEANS_ITERATIONS,
    )
    table.create_index("vector", config=config, replace=True)
    body = {"index": VECTOR_INDEX_TYPE, "rows": rows, "partition_rows": size}
    path.put(VECTOR_INDEX_FILE, json.dumps(body).encode("utf-8"))


def partition_rows(rows: int) -> int:
    """The IVF partition size to train ``rows`` with: ``PARTITION_ROWS``, or larger where that many rows
    would need more than ``MAX_PARTITIONS`` partitions (with headroom: k-means does not split evenly)."""
    return max(PARTITION_ROWS, math.ceil(rows * 1.25 / MAX_PARTITIONS))


def vector_index_info(path: ObjectStore) -> VectorIndexInfo | None:
    """``{"rows": .., "partition_rows": ..}`` of the IVF index as trained (a file beside the tables), or
    None (no index, or one trained by a release that did not record it)."""
    data = path.get(VECTOR_INDEX_FILE)
    if data is None:
        return None
    info: VectorIndexInfo = json.loads(data)
    return info


def ivf_nprobes(bank_rows: int, table_rows: int, index: VectorIndexInfo | None) -> int | None:
    """IVF partitions to probe for a bank of ``bank_rows``, or None for an exact (flat) search.

    The table holds every bank, in partitions of about ``partition_rows`` (of ``index``, the
    ``vector_index_info``). Probing ``p`` partitions compares ``p * partition_rows`` rows,
    ``bank_rows / table_rows`` of them the bank's; we want ``PROBED_BANK_ROWS`` of the bank's. When that
    costs more than a filtered flat scan of the bank (``bank_rows`` comparisons), or there is no index,
    the flat scan is used: it is also exact.
    """
    if index is None or bank_rows <= EXACT_BANK_ROWS:
        return None
    compared = PROBED_BANK_ROWS * table_rows / bank_rows
    if compared >= bank_rows:
        return None
    return max(MIN_NPROBES, math.ceil(compared / index["partition_rows"]))


def unindexed_rows(store: Any) -> int:
    """Rows of the ``memories`` tables of a hot store (a ``LanceStore`` or its shards) that their
    full-text index does not cover yet (0 without an index): LanceDB searches them, but scores the hits
    it has indexed with the statistics of the indexed rows alone."""
    total = 0
    for shard in store.shards():
        table = shard.table("memories")
        stats = table.index_stats("search_text_idx") if table is not None else None
        total += 0 if stats is None else int(stats.num_unindexed_rows)
    return total


# What a recall searches, in the order ``prewarm`` loads them: a cold IVF partition costs a recall most
SEARCH_INDEXES = ("vector_idx", "search_text_idx", "text_ngram_idx")


def prewarm(table: Any, budget_bytes: int) -> tuple[list[str], int]:
    """Load the search indexes of ``table`` whole into LanceDB's index cache, those that fit in
    ``budget_bytes`` together (in ``SEARCH_INDEXES`` order); the names loaded and their bytes.

    LanceDB reads an IVF partition from its file the first time a search probes it and keeps it in its
    index cache: at a million rows a recall's vector search probing 25 cold partitions took ~42 ms, warm
    ~17 (``docs/benchmarks.md``), and with random queries most of the first few hundred recalls after
    a start probe some cold ones. Loading the index whole costs ~4 s and its size in memory (421 MB at a
    million 384-d rows): worth it where the index fits, wasteful where it does not (the cache would evict
    what it loaded), hence the budget."""
    sizes = {index.name: int(index.size_bytes or 0) for index in table.list_indices()}
    loaded, total = [], 0
    for name in SEARCH_INDEXES:
        if name in sizes and total + sizes[name] <= budget_bytes:
            table.prewarm_index(name)
            loaded.append(name)
            total += sizes[name]
    return loaded, total
