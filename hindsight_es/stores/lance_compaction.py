"""Routine maintenance of a hot table under a steady stream of small commits: merge the small fragments
they leave, fold the new rows into the indexes, drop old versions; without rewriting the table.

Every search of a table pays per fragment and per row no index covers yet: on the 10k layout of ``bench
recall`` (19,237 rows in one fragment), 20 more fragments of 6 rows each doubled a recall's CPU (10.3 →
20.8 ms: full-text 4.7 → 9.7 ms, vector 3.6 → 7.4 ms), and merging them and indexing their rows brought it
back (10.2 ms). LanceDB's ``optimize`` does both, but merges every fragment below its target size (a
million rows), so a smaller table was rewritten whole at every pass (40 MB a pass for that one, with every
row's address changed, so the row caches refilled), and each pass added a delta to the vector index until a
retrain (seconds of CPU at 20k rows, minutes at a million). So passes were seconds apart and a table under
ingest carried 10 to 20 small fragments and a hundred unindexed rows between them.

Here Lance's own compaction (``pylance``, the library LanceDB writes with, at the version it bundles) is
told which fragments to leave: a leading fragment larger than all the fragments after it together, as the
archive's files (``tiers``), so a row is rewritten O(log n) times and a table holds O(log n)
fragments. One with more than ``DELETED_SHARE`` of its rows deleted (updates delete the row they rewrite)
is merged whatever its size, which drops the deleted rows from its files. New rows go into the vector
index's one delta beside the trained index, merged there at every pass (``_ensure_vector_index`` retrains
when the table has grown to twice the rows it was trained on). Erasure does not rely on this: it rewrites
every file that held an erased row (``lance.erase_rows``).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hindsight_es.stores.tiers import settled_prefix

DELETED_SHARE = 0.1  # Lance's default threshold for rewriting a fragment to drop its deleted rows
VECTOR_INDEX = "vector_idx"


def settled(fragments: list[tuple[int, int, int]]) -> list[int]:
    """Ids of the fragments to leave out of a compaction, from ``(id, physical rows, deleted rows)`` in the
    table's order: each leading fragment larger than all the fragments after it together (``tiers``), and
    not holding more than ``DELETED_SHARE`` of deleted rows."""
    live = [physical - deleted for _, physical, deleted in fragments]
    due = [deleted > DELETED_SHARE * physical for _, physical, deleted in fragments]
    return [fragment_id for fragment_id, *_ in fragments[: settled_prefix(live, due)]]


def maintain(table: Any, versions_kept: timedelta) -> None:
    """Compact ``table`` (a LanceDB table this process writes) tier by tier, fold its new rows into its
    indexes and drop the versions older than ``versions_kept``; the table then reads its latest version."""
    dataset = table.to_lance()
    fragments = [(f.fragment_id, f.metadata.physical_rows, f.metadata.num_deletions) for f in dataset.get_fragments()]
    excluded = settled(fragments)
    if len(fragments) - len(excluded) > 1 or any(deleted for _, _, deleted in fragments):
        dataset.optimize.compact_files(excluded_fragment_ids=excluded)
    segments = {index.name: len(index.segments) for index in dataset.describe_indices()}
    others = sorted(set(segments) - {VECTOR_INDEX})
    if others:
        dataset.optimize.optimize_indices(index_names=others)
    if VECTOR_INDEX in segments:
        # One delta beside the trained index: the first pass after a training starts it, later ones merge into it.
        merge = min(1, segments[VECTOR_INDEX] - 1)
        dataset.optimize.optimize_indices(index_names=[VECTOR_INDEX], num_indices_to_merge=merge)
    dataset.cleanup_old_versions(older_than=versions_kept)
    table.checkout_latest()
