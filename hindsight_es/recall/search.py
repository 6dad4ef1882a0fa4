"""Recall: parse the query, gather candidates, fuse, rescore, one hit per text.

Candidates come from vector search, English full text (stemmed BM25), n-gram full text for CJK
queries and, when the query names a time, a vector search inside that time range. They are fused
by RRF and rescored for speakers and time named in the query. No LLM and no model call besides
embedding the query. Only active memories of the bank are candidates unless statuses are given.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

from hindsight_es.embedding import Embedder
from hindsight_es.embedding.base import embed_query
from hindsight_es.embedding.hybrid import is_cjk
from hindsight_es.recall.fusion import rrf
from hindsight_es.recall.models import RecallHit
from hindsight_es.recall.query import parse_query
from hindsight_es.recall.scoring import rescore
from hindsight_es.stores.lance import LanceStore, has_cjk, quote

COLUMNS = ("memory_id", "kind", "text", "source_turn_ids", "session_id", "speaker", "key", "valid_from",
           "valid_to", "status", "owner", "scope")
ANY_AGENT = "*"  # no owner filter; an agent id sees its own and unowned memories, None only unowned ones
_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="recall")
_SIZES: dict[tuple[int, str], tuple[tuple[int, int], float]] = {}
RRF_K = 10  # a small k trusts each list's head more; measured on LoCoMo (en) and MADial-Bench (zh)


def build_filter(bank_id: str, *, kinds: Sequence[str] | None = None, since: datetime | None = None,
                 until: datetime | None = None, statuses: Sequence[str] = ("active",),
                 agent: str | None = ANY_AGENT) -> str:
    parts = [f"bank_id = {quote(bank_id)}", f"status IN ({', '.join(quote(s) for s in statuses)})"]
    if kinds:
        parts.append(f"kind IN ({', '.join(quote(k) for k in kinds)})")
    parts += _time_clauses(since, until)
    if agent != ANY_AGENT:  # never another agent's private memories
        parts.append("owner IS NULL" if agent is None else f"(owner IS NULL OR owner = {quote(agent)})")
    return " AND ".join(parts)


def _time_clauses(since: datetime | None, until: datetime | None) -> list[str]:
    clauses = [] if since is None else [f"valid_from >= timestamp '{since.isoformat()}'"]
    return clauses + ([] if until is None else [f"valid_from < timestamp '{until.isoformat()}'"])


def recall(store: LanceStore, embedder: Embedder, bank_id: str, query: str, *, limit: int = 10,
           kinds: Sequence[str] | None = None, since: datetime | None = None, until: datetime | None = None,
           statuses: Sequence[str] = ("active",), candidates: int = 50, now: datetime | None = None,
           agent: str | None = ANY_AGENT) -> list[RecallHit]:
    parsed = parse_query(query, now)
    where = build_filter(bank_id, kinds=kinds, since=since, until=until, statuses=statuses, agent=agent)
    pool = max(candidates, limit)
    fetch = pool + pool // 2  # a margin, so ties at the cut-off do not depend on storage order
    # Full text needs no vector: it runs while the query is embedded (LanceDB releases the GIL).
    # Each index answers its own script: stemmed words for a query that is not mostly CJK, n-grams of
    # CJK text for one with CJK. Across scripts they match only names and single letters: noise that
    # outvoted the vectors (MADial zh queries over en memories, Hit@5 0.31 with it, 0.66 without).
    texts = []
    if not is_cjk(query):
        texts.append(_POOL.submit(lambda: _ranked(store.text_search(query, "search_text", where, fetch, COLUMNS),
                                                  "_score", -1, pool)))
    if parsed.cjk:
        texts.append(_POOL.submit(lambda: _ranked([r for r in store.text_search(query, "text_ngram", where, fetch,
                                                                                COLUMNS) if has_cjk(r["text"])],
                                                  "_score", -1, pool)))
    vector = embed_query(embedder, query)
    nprobes = store.nprobes(*_rows(store, bank_id))
    filters = [where]
    if parsed.since is not None:
        filters.append(" AND ".join([where, *_time_clauses(parsed.since, parsed.until)]))
    vectors = [_POOL.submit(lambda w=w: _ranked(store.vector_search(vector, w, fetch, COLUMNS, nprobes=nprobes),
                                                "_distance", 1, pool)) for w in filters]
    lists = [f.result() for f in (vectors[:1] + texts + vectors[1:])]
    rows = {row["memory_id"]: row for ranking in lists for row in ranking}
    fused = rescore(rrf([[row["memory_id"] for row in ranking] for ranking in lists], k=RRF_K), rows, parsed)
    return [_hit(rows[memory_id], score) for memory_id, score in _distinct(fused, rows)[:limit]]


def _rows(store: LanceStore, bank_id: str) -> tuple[int, int]:
    """Rows of the bank and of the table (any status), cached for a few seconds: they only set how the
    vectors are searched."""
    now = time.monotonic()
    cached = _SIZES.get((id(store), bank_id))
    if cached is None or now - cached[1] > 10.0:
        counts = (store.count("memories", f"bank_id = {quote(bank_id)}"), store.count("memories", "true"))
        cached = (counts, now)
        _SIZES[(id(store), bank_id)] = cached
    return cached[0]


def _ranked(rows: list[dict], score: str, sign: int, pool: int) -> list[dict]:
    """Best first with ties broken by id, so a rebuilt table ranks exactly like the live one."""
    return sorted(rows, key=lambda r: (sign * round(r[score], 5), r["memory_id"]))[:pool]


def _distinct(fused: list[tuple[str, float]], rows: dict[str, dict]) -> list[tuple[str, float]]:
    """One hit per text: a typed memory and the episode of the same sentence say the same thing.

    The typed memory (fact, preference, ...) is kept over the episode, at the better of the two scores.
    """
    best: dict[str, tuple[str, float]] = {}
    for memory_id, score in fused:
        text = rows[memory_id]["text"].strip()
        kept = best.get(text)
        if kept is None:
            best[text] = (memory_id, score)
        elif rows[kept[0]]["kind"] == "episode" and rows[memory_id]["kind"] != "episode":
            best[text] = (memory_id, kept[1])
    return sorted(best.values(), key=lambda kv: -kv[1])


def _hit(row: dict, score: str | float) -> RecallHit:
    return RecallHit(score=round(float(score), 6), **{c: row[c] for c in COLUMNS})
