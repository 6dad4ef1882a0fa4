"""The files of an archive's topic-partition as compaction sees them: which are leftovers of an earlier
compaction, and which runs of them are worth merging."""

from __future__ import annotations

from dataclasses import dataclass

from hindsight_es.stores.tiers import settled_prefix


@dataclass(frozen=True, slots=True)
class Part:
    first: int
    last: int
    key: str
    size: int


def split_covered(parts: list[Part]) -> tuple[list[Part], list[Part]]:
    """(files to read, files whose range lies inside an earlier-sorted file's: compaction leftovers)."""
    live: list[Part] = []
    covered: list[Part] = []
    for part in parts:  # sorted by (first, -last), so a covering file comes before what it covers
        if live and live[-1].first <= part.first and part.last <= live[-1].last:
            covered.append(part)
        else:
            live.append(part)
    return live, covered


def small_runs(parts: list[Part], target_bytes: int) -> list[list[Part]]:
    runs: list[list[Part]] = [[]]
    size = 0
    for part in parts:
        n = part.size
        if n >= target_bytes or size + n > target_bytes:
            runs.append([])
            size = 0
        if n < target_bytes:
            runs[-1].append(part)
            size += n
    return [run for run in runs if run]


def tiered(run: list[Part], outdated: set[str]) -> list[Part]:
    """The run without its leading files each larger than all the files after it together (``tiers``), but
    never its last; a file in an older layout (``outdated``) stays in, to be rewritten."""
    settled = settled_prefix([p.size for p in run], [p.key in outdated for p in run])
    return run[min(settled, len(run) - 1) :]
