"""Recall for an agent: its bank, the shared banks it may read and, on request, the cold archive.

    score(hit) = weight[origin] · score of the hit in its own recall
    origin     = "private"  owned by the agent asking
                 "bank"     unowned, in the bank asked
                 "shared"   unowned (or the agent's own) in a shared bank
                 "archived" an archived memory from the cold archive, ranked by cosine among archived
                            memories; an archived episode whose turn's archived typed memories say all it
                            says (their quotes) is one hit with them, the typed one, at the better rank

Each bank is recalled with the same pipeline, filtered to what the agent may see (its own private
memories and unowned ones, never another agent's), then the hits are weighted, merged best first,
one per text, and cut to ``limit``. Archived hits join that answer by relevance (``interleave``): their
scores, from one list, are not on the scale of live scores, which add up several. Weights are
``Settings.recall_weights`` over ``DEFAULT_WEIGHTS``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache, partial
from typing import Any, TypedDict

from hindsight_es.embedding import Embedder
from hindsight_es.embedding.base import vector_space
from hindsight_es.memory.episodes import repeated
from hindsight_es.recall.models import RecallHit
from hindsight_es.recall.relevance import Scale, floor, relevance, scale
from hindsight_es.recall.search import RRF_K, bank_size, query_vector, recall
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import LanceStore
from hindsight_es.text import is_cjk

DEFAULT_WEIGHTS: dict[str, float] = {"private": 1.0, "bank": 1.0, "shared": 0.8, "archived": 0.8}


class _Filters(TypedDict):
    kinds: Sequence[str] | None
    since: datetime | None
    until: datetime | None


def origin(hit: RecallHit, bank_id: str, agent: str | None) -> str:
    if hit.status == "archived":
        return "archived"
    if agent is not None and hit.owner == agent:
        return "private"
    return "bank" if hit.bank_id in (None, bank_id) else "shared"


def merge(
    hits: Sequence[RecallHit], bank_id: str, agent: str | None, weights: Mapping[str, float], limit: int
) -> list[RecallHit]:
    """Weighted by origin, best first (a tie to the more relevant hit), one hit per text, at most ``limit``."""
    w = {**DEFAULT_WEIGHTS, **weights}
    scored = sorted(
        ((h.score * w[origin(h, bank_id, agent)], h) for h in hits), key=lambda sh: (-sh[0], -sh[1].relevance)
    )
    seen: set[str] = set()
    out: list[RecallHit] = []
    for score, hit in scored:
        text = hit.text.strip()
        if text in seen:
            continue
        seen.add(text)
        out.append(hit.model_copy(update={"score": round(score, 6)}))
        if len(out) == limit:
            break
    return out


def archived_hits(
    rows: Sequence[Mapping[str, Any]], bank_id: str, on: tuple[Scale, int] | None = None
) -> list[RecallHit]:
    """Rows of ``ArchiveStore.search_cold`` (best first) as hits scored by rank, one per thing said; with
    ``on`` (the embedder's scale, the memories of the bank), each with the relevance of its cosine."""
    payloads = [json.loads(row["payload"]) for row in rows]
    rank = {row["memory_id"]: n for n, row in enumerate(rows, start=1)}
    cosine = {row["memory_id"]: float(row["score"]) for row in rows} if on is not None else {}
    # An episode its turn's typed memories say all of is shown as the first of them, at the better rank and with
    # the better relevance of the two, as hot recall shows such a hit (``search._distinct``)
    folded = repeated({**row, "quote": payload.get("quote")} for row, payload in zip(rows, payloads, strict=True))
    for episode, first in folded.items():
        rank[first] = min(rank[first], rank[episode])
        if on is not None:
            cosine[first] = max(cosine[first], cosine[episode])
    out = []
    for row, payload in zip(rows, payloads, strict=True):
        if row["memory_id"] in folded:
            continue
        out.append(
            RecallHit(
                memory_id=row["memory_id"],
                kind=row["kind"],
                text=row["text"],
                score=round(1.0 / (RRF_K + rank[row["memory_id"]]), 6),
                source_turn_ids=list(row["source_turn_ids"] or []),
                session_id=row["session_id"],
                speaker=payload.get("speaker"),
                key=payload.get("key"),
                valid_from=payload["valid_from"],
                status="archived",
                owner=payload.get("owner"),
                scope=payload.get("scope", "global"),
                bank_id=bank_id,
                source=payload.get("source"),
                provenance=payload.get("provenance"),
                confirmed=payload.get("confirmed", False),
                relevance=round(relevance(cosine[row["memory_id"]], *on), 4) if on is not None else 0.0,
            )
        )
    return out


def scoped_recall(
    store: LanceStore,
    archive: ArchiveStore | None,
    embedder: Embedder,
    bank_id: str,
    query: str,
    *,
    limit: int = 10,
    agent: str | None = None,
    shared: Sequence[str] = (),
    weights: Mapping[str, float] | None = None,
    kinds: Sequence[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    min_relevance: float = 0.0,
    **options: Any,
) -> list[RecallHit]:
    """Hits of ``bank_id`` and the ``shared`` banks visible to ``agent``, plus archived ones when an
    ``archive`` is given, merged as described above; none when the best is below ``min_relevance``."""
    filters: _Filters = {"kinds": kinds, "since": since, "until": until}
    embedded = cache(partial(query_vector, embedder, query))  # one model call for every bank and the archive
    hits: list[RecallHit] = []
    for bank in dict.fromkeys([bank_id, *shared]):
        found = recall(
            store.for_bank(bank),
            embedder,
            bank,
            query,
            limit=limit,
            agent=agent,
            embedded=embedded,
            **filters,
            **options,
        )
        hits += [h.model_copy(update={"bank_id": bank}) for h in found]
    live = merge(hits, bank_id, agent, weights or {}, limit)
    if archive is not None:
        rows = archive.search_cold(bank_id, embedded(), limit, embedder=vector_space(embedder), agent=agent, **filters)
        on = (scale(embedder, "cjk" if is_cjk(query) else "latin"), bank_size(store.for_bank(bank_id), bank_id))
        cold = [h for h in archived_hits(rows, bank_id, on) if h.trusted or not options.get("trusted_only")]
        live = interleave(live, cold, {**DEFAULT_WEIGHTS, **(weights or {})}["archived"], limit)
    return floor(live, min_relevance)


def interleave(live: Sequence[RecallHit], cold: Sequence[RecallHit], weight: float, limit: int) -> list[RecallHit]:
    """The archived hits placed among the live ones by relevance, the one score both have on one scale (a
    live hit's score sums its ranks over several lists, an archived one's comes from its cosine alone): each
    goes before the first live hit less relevant than its own relevance times ``weight``. Each list keeps its
    order, one hit per text, at most ``limit``; an archived hit's score is the live score it displaces, so
    the scores of the answer stay in its order."""
    out: list[RecallHit] = []
    seen: set[str] = set()
    i = j = 0
    while len(out) < limit and (i < len(live) or j < len(cold)):
        if j < len(cold) and (i == len(live) or cold[j].relevance * weight > live[i].relevance):
            hit, j = cold[j], j + 1
            below = live[i].score if i < len(live) else round(hit.score * weight, 6)
            hit = hit.model_copy(update={"score": min(out[-1].score, below) if out else below})
        else:
            hit, i = live[i], i + 1
        if hit.text.strip() not in seen:
            seen.add(hit.text.strip())
            out.append(hit)
    return out
