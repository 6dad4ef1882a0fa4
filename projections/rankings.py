"""Rankings of ``replay verify``: a rebuilt store must rank like the live one, not only hold its rows.

Equal rows can still rank differently: where LanceDB's full-text scores stand (a match larger than
``recall.lexical.EXACT_MATCHES``), they use the statistics of its index, so rows the index has not
covered yet change them, and anything else that makes a store rank apart shows here too. Per bank, a few probe
queries derived from the bank's own memories (the same for both stores) are recalled from the live store
and from the rebuild (its indexes built as a rebuild builds them), and their top ids compared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from hindsight_es.config import Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.log import TopicPartition
from hindsight_es.recall.search import recall
from hindsight_es.stores import location
from hindsight_es.stores.filters import MemoryFilter
from hindsight_es.stores.lance_indexes import unindexed_rows
from hindsight_es.stores.location import s3_options
from hindsight_es.stores.shards import HotStore, open_hot
from hindsight_es.text import is_cjk

PROBES = 4  # probe queries per bank
TOP_K = 10  # ids compared per probe
PROBE_WORDS = 5  # a probe is the start of a memory's text: this many words, or twice as many CJK characters


@dataclass(frozen=True, slots=True)
class RankingCheck:
    bank: str
    query: str
    live: tuple[str, ...]  # memory ids, best first
    rebuilt: tuple[str, ...]
    unindexed: int = 0  # live rows its full-text index did not cover (``lance_indexes.unindexed_rows``)

    @property
    def ok(self) -> bool:
        return self.live == self.rebuilt

    def difference(self) -> str:
        rank = next((i for i, (a, b) in enumerate(zip(self.live, self.rebuilt, strict=False)) if a != b), None)
        rank = min(len(self.live), len(self.rebuilt)) if rank is None else rank
        return (
            f"rankings, bank {self.bank!r}: the probe {self.query!r} ranks differently from rank {rank + 1} "
            f"(live {list(self.live[rank : rank + 3])} vs rebuilt {list(self.rebuilt[rank : rank + 3])})"
            + (f"; the live full-text index does not cover {self.unindexed} rows" if self.unindexed else "")
        )


def probes(texts: Sequence[tuple[str, str]], n: int = PROBES) -> list[str]:
    """``n`` queries from ``(memory id, text)`` pairs: the starts of evenly spaced memories in id order,
    so the same memories give the same probes whatever the storage order."""
    ordered = sorted(texts)
    picked = [ordered[i * len(ordered) // n][1] for i in range(min(n, len(ordered)))]
    out = [text[: 2 * PROBE_WORDS].strip() if is_cjk(text) else " ".join(text.split()[:PROBE_WORDS]) for text in picked]
    return list(dict.fromkeys(q for q in out if q.strip()))


def compare_rankings(
    live: HotStore, rebuilt: HotStore, embedder: Embedder, banks: Sequence[str], now: datetime
) -> list[RankingCheck]:
    """The probes of each bank, recalled from both stores (blocking: call from a thread). Probes come
    from the rebuilt rows: the rows both stores must hold."""
    checks: list[RankingCheck] = []
    unindexed = unindexed_rows(live)
    for bank in banks:
        rows = rebuilt.scan("memories", MemoryFilter(bank), ["memory_id", "text"]).to_pylist()
        for query in probes([(r["memory_id"], r["text"]) for r in rows]):
            ranked = [
                tuple(h.memory_id for h in recall(store.for_bank(bank), embedder, bank, query, limit=TOP_K, now=now))
                for store in (live, rebuilt)
            ]
            checks.append(RankingCheck(bank, query, ranked[0], ranked[1], unindexed))
    return checks


async def rank_banks(
    settings: Settings,
    banks: Sequence[str],
    scratch: Path,
    live_positions: dict[TopicPartition, int],
    embedder: Embedder | None,
    now: datetime,
) -> tuple[list[RankingCheck], str | None]:
    """The ranking checks of ``banks``: the live store against the rebuild in ``scratch``, its indexes
    built as ``rebuild`` builds them; or no checks and why they were not made (the embedder makes vectors
    of another size than the store's; the live store moved past ``live_positions`` meanwhile, so it ranks
    rows the rebuild lacks)."""
    if not banks:
        return [], None
    live = open_hot(location.current(settings)["lance"], s3_options(settings))
    rebuilt = open_hot(scratch)
    model: Embedder = embedder if embedder is not None else make_embedder(settings.embedder)
    if (dim := await asyncio.to_thread(rebuilt.vector_dim)) != model.dim:
        return [], f"the memories hold {dim}-d vectors and the embedder {model.id} makes {model.dim}-d ones"
    await asyncio.to_thread(rebuilt.ensure_indexes, ("memories",))
    checks = await asyncio.to_thread(compare_rankings, live, rebuilt, model, banks, now)
    if await asyncio.to_thread(live.positions, "memories") != live_positions:
        return [], "the live store moved on while they were compared"
    return checks, None
