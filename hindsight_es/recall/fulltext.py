"""The full-text lists of a recall: scored over the bank's own statistics when the match is small
enough to be read whole (``lexical``), else by LanceDB; cut where their ties end."""

from __future__ import annotations

import math
from concurrent.futures import Future

from hindsight_es.recall.lexical import EXACT_MATCHES, full_text
from hindsight_es.recall.rowcache import term_cache
from hindsight_es.stores.lance import LanceStore

MATCHES = EXACT_MATCHES + 1  # full-text hits asked for: more than EXACT_MATCHES says the match is larger
TEXTS = ("search_text", "text_ngram")


TIE = 1e-5  # scores this close (relative) are one score: float sums in LanceDB vary in their last bits


def tied(first: float, other: float) -> bool:
    return abs(first - other) <= TIE * max(1.0, abs(first))


def scored(
    store: LanceStore,
    query: str,
    column: str,
    hits: list[tuple[int, float]],
    searched: Future[int] | None,
    pool: int,
    fetch: int,
    last: bool,
    lexical: dict[int, float] | None = None,
) -> list[tuple[int, float]] | None:
    """A full-text list, best first: BM25 over the bank's own statistics (``lexical``) when the search
    returned every row that matches (``EXACT_MATCHES``), else LanceDB's scores; None when a row moved
    before its terms were read (search again), unless this is the ``last`` attempt (scored without it).
    Vector lists pass through.

    With every matching row read, ``lexical`` gets each row's full-text evidence (``lexical.evidence``,
    log-odds; the larger of the two columns').

    Either way ``fetch`` of them, longer while they tie with the hit at the pool's cut: BM25 gives equal
    scores to equal texts (a speaker's many short turns answering the same question), and an arbitrary
    ``fetch`` of a larger tie would make the candidates, and so the ranking, depend on storage order.
    """
    if column not in TEXTS:
        return hits
    if len(hits) <= EXACT_MATCHES and hits:
        docs = term_cache(store).rows(row_id for row_id, _ in hits)
        if len(docs) < len(hits) and not last:
            return None
        assert searched is not None  # started with every full-text search
        ids = [row_id for row_id, _ in hits if row_id in docs]
        scores, odds = full_text(query, column, [docs[i] for i in ids], searched.result())
        hits = list(zip(ids, scores, strict=True))
        if lexical is not None:
            for row_id, row_odds in zip(ids, odds, strict=True):
                lexical[row_id] = max(lexical.get(row_id, -math.inf), row_odds)
    ordered = sorted(hits, key=lambda hit: -hit[1])
    if len(ordered) <= fetch:
        return ordered
    cut, end = ordered[min(pool, len(ordered)) - 1][1], fetch
    while end < len(ordered) and tied(cut, ordered[end][1]):
        end += 1
    return ordered[:end]
