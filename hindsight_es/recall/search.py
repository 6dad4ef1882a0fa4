"""Recall: parse the query, gather candidates, fuse, rescore, one hit per text.

Candidates come from vector search, English full text (stemmed BM25), n-gram full text for CJK
queries and, when the query names a time, a vector search inside that time range. They are fused
by RRF and rescored for speakers and time named in the query. No LLM and no model call besides
embedding the query. Only active memories of the bank are candidates unless statuses are given.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import replace
from datetime import datetime
from functools import partial
from typing import Any, TypeVar, cast

import numpy as np

from hindsight_es.embedding import Embedder
from hindsight_es.errors import ConfigError
from hindsight_es.memory.episodes import repeated
from hindsight_es.recall.asked import asked, asks_first_held
from hindsight_es.recall.counts import counted
from hindsight_es.recall.fulltext import MATCHES, scored, tied
from hindsight_es.recall.fusion import rrf
from hindsight_es.recall.lexical import holds
from hindsight_es.recall.mentions import chinese_names, mentions_chinese
from hindsight_es.recall.models import RecallHit
from hindsight_es.recall.query import entities, in_both_scripts, parse_query, unmentioned, without_names
from hindsight_es.recall.relevance import floor, memory_relevance
from hindsight_es.recall.rowcache import row_cache
from hindsight_es.recall.scoring import bridges, rescore, speaker_named
from hindsight_es.stores import cards
from hindsight_es.stores.filters import ANY_AGENT, MemoryFilter
from hindsight_es.stores.lance import LanceStore, ivf_nprobes
from hindsight_es.stores.lance_indexes import VectorIndexInfo, prewarm
from hindsight_es.text import flattened, has_cjk, is_cjk
from hindsight_es.types import Vector

COLUMNS = tuple(c for c in cards.COLUMNS if c != "quote")  # what a RecallHit shows of its row
_T = TypeVar("_T")
log = logging.getLogger("hindsight.recall")
_PLANS: dict[tuple[str, ...], tuple[object, float]] = {}  # see _cached
# RRF weight of the other-script list: above 1 so a bilingual bank's other-script memories can reach the
# top of an answer, below 2, where they crowd out same-script ones (docs/benchmarks.md, MADial mixed).
CROSS_WEIGHT = 1.5
# The other script's memories must be this similar (USE cosine) to be listed at all: unrelated pairs of
# languages score below it, related ones above (RRF counts ranks, so an unrelated list would still vote).
CROSS_MIN_SIMILARITY = 0.15
# ... and vote in it only as relevant as an answer must be (the default floor, docs/benchmarks.md#bilingual-banks).
CROSS_MIN_RELEVANCE = 0.19
SCORE_DIGITS = 6  # a hit's score as reported; equal at this precision is a tie
SEARCH_ATTEMPTS = 3  # searches are run again when a write moved their rows before they were read
RRF_K = 10  # a small k trusts each list's head more (chosen on LoCoMo en and MADial zh)


def recall(
    store: LanceStore,
    embedder: Embedder,
    bank_id: str,
    query: str,
    *,
    limit: int = 10,
    kinds: Sequence[str] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    statuses: Sequence[str] = ("active",),
    candidates: int = 50,
    now: datetime | None = None,
    agent: str | None = ANY_AGENT,
    trusted_only: bool = False,
    min_relevance: float = 0.0,
    embedded: Callable[[], np.ndarray] | None = None,
) -> list[RecallHit]:
    """Hits best first by fused score; each carries its calibrated ``relevance`` (``recall.relevance``).
    With ``min_relevance`` above 0, no hit when the best relevance is below it (see ``floor``). ``embedded``
    gives the query's vector when it is first needed (``query_vector``): a caller that also searches other
    banks or the archive passes one that embeds once."""
    query = flattened(query)  # a run of white space reads as one; the query's patterns scan runs in quadratic time
    parsed = parse_query(query, now)
    if tuple(statuses) == ("active",) and asks_first_held(query):
        statuses = ("active", "superseded")  # what held first is superseded now, and kept in history to be asked
    where = MemoryFilter(
        bank_id, statuses=statuses, kinds=kinds, since=since, until=until, agent=agent, trusted_only=trusted_only
    )
    pool = max(candidates, limit)
    fetch = pool + pool // 2  # a margin, so ties at the cut-off do not depend on storage order
    # Full text needs no vector: it runs (in LanceDB's threads) while the query is embedded.
    # Each index answers its own script: stemmed words for a query that is not mostly CJK, n-grams of
    # CJK text for one with CJK. Across scripts they match only names and single letters: noise that
    # would outvote the vectors.
    # Searches read back only row ids and scores; the rows come from the row cache.
    if store.table("memories") is None:  # opened here: the searches run on LanceDB's loop (see LanceStore.start)
        return []
    if (dim := _cached((str(store.path), "dim"), store.vector_dim)) != embedder.dim:
        raise ConfigError(
            f"the memories in {store.path} have {dim}-d vectors and this process's embedder "
            f"{embedder.id} makes {embedder.dim}-d ones (HINDSIGHT_EMBEDDER or --embedder): recall "
            "with the embedder the data was written with"
        )
    bank_rows, nprobes = _plan(store, bank_id)
    cache = row_cache(store)
    query_cjk = is_cjk(query)
    # The text each full-text list is searched and scored with: a Traditional question also asks for its
    # Simplified n-grams (問, 问), as the index matches what is written. A CJK query's n-gram hits count only
    # on CJK memories (below).
    texts_of = {"search_text": query, "text_ngram": in_both_scripts(query)}
    columns = ([] if query_cjk else ["search_text"]) + (["text_ngram"] if parsed.cjk else [])
    searches = [(name, partial(store.search.text_search, texts_of[name], name, where, MATCHES)) for name in columns]
    holding = {name: holds(texts_of[name], name) for name in columns}
    vector = None
    # Memories in the other script (Chinese for an English query, English for a Chinese one) are their
    # own list, searched with the embedder's cross-lingual half alone: beside same-script memories
    # they score low on the full query vector and never on full text, so in a bilingual bank an English
    # query would otherwise find no Chinese memory at all.
    cross_script = embedder.cross_script
    filters = [where]
    if parsed.since is not None:
        filters.append(replace(where, within=(parsed.since, parsed.until)))
    cross_vector, content_only = None, False
    if cross_script is not None:
        other = replace(where, script="latin" if query_cjk else "cjk")
        similar = partial(cross_script.similarity, memory_cjk=not query_cjk)
        probes = partial(ivf_nprobes, table_rows=_table_rows(store), index=_index(store))
        cross = partial(_cross_hits, store, where=other, fetch=fetch, similarity=similar, probes=probes)
    for attempt in range(SEARCH_ATTEMPTS):
        version = store.search.start(store.search.version())  # what the counts are kept by (``counts``)
        texts = [(name, store.search.start(search(holds=holding[name], version=version))) for name, search in searches]
        searched = store.search.start(counted(store, where, version)) if searches else None
        if vector is None:
            vector = embedded() if embedded is not None else query_vector(embedder, query)
            cross_vector = cross_script.query(vector) if cross_script is not None else None
        vectors = [
            (
                "vector",
                store.search.start(store.search.vector_search(vector, w, fetch, nprobes=nprobes, version=version)),
            )
            for w in filters
        ]
        if cross_vector is not None:
            vectors.append(("cross", store.search.start(cross(cross_vector, version=version))))
        found = [(name, future.result()) for name, future in vectors[:1] + texts + vectors[1:]]
        last = attempt == SEARCH_ATTEMPTS - 1
        lexical: dict[int, float] = {}  # row id -> full-text evidence (log-odds), rows read whole only
        rescored = [
            (name, scored(store, texts_of.get(name, query), name, hits, searched, pool, fetch, last, lexical))
            for name, hits in found
        ]
        if any(hits is None for _, hits in rescored):
            continue  # a row a search returned was moved before its terms were read: search again
        found = cast(list[tuple[str, list[tuple[int, float]]]], rescored)
        if cross_vector is not None and not content_only and parsed.names:
            # Memories are embedded with their speaker, so a query naming a speaker is similar to every
            # other-script memory of theirs by the name alone ("is Lin allergic to anything?" and "Lin: 好的":
            # USE cosine 0.47, without "Lin" 0.05). The speaker boost already matches names: this list is
            # searched again with the speakers' names taken out, so what it finds matches the content.
            speakers = [row.get("speaker") for row in cache.rows({row_id for row_id, _ in found[-1][1]}).values()]
            if named := frozenset(n for n in parsed.names if any(speaker_named(s, frozenset([n])) for s in speakers)):
                assert cross_script is not None  # cross_vector is only set with it
                content_only = True
                rest = without_names(query, named)
                if rest:
                    cross_vector = cross_script.text(rest)
                    found[-1] = ("cross", store.search.start(cross(cross_vector, version=version)).result())
                else:
                    cross_vector = None
                    found[-1] = ("cross", [])
        wanted = {row_id for _, hits in found for row_id, _ in hits}
        by_row_id = cache.rows(wanted)
        # A row id a search returned but the table no longer has: a write (an update or a compaction,
        # which moves rows to new ids) committed between the search and the read. Search again.
        if len(by_row_id) == len(wanted):
            break
    rows = {row["memory_id"]: row for row in by_row_id.values()}
    rel = memory_relevance(found, by_row_id, embedder, query_cjk, cross_script, bank_rows, lexical, asked(query))
    lists = [
        _ranked(
            [
                (row, score)
                for row_id, score in hits
                if (row := by_row_id.get(row_id)) is not None
                and (name != "text_ngram" or has_cjk(row["text"]))
                and (name != "cross" or rel(row["memory_id"]) >= CROSS_MIN_RELEVANCE)
            ],
            1 if name in ("vector", "cross") else -1,
            pool,
        )
        for name, hits in found
    ]
    weights = [CROSS_WEIGHT if name == "cross" else 1.0 for name, _ in found]
    fused = rescore(rrf([[row["memory_id"] for row in ranking] for ranking in lists], weights, k=RRF_K), rows, parsed)
    if _about_the_unmentioned(query, rows.values()):
        rel = _irrelevant
    # Rank fusion ties often (first in one list and second in the other, or the other way round); a tie
    # goes to the more relevant memory, not to the order the lists were fused in. Scores are compared as
    # a hit reports them (``_hit``).
    kept, stands_for = _distinct(fused, rows)
    # A hit that stands for others (an episode folded into its turn's typed memory) is as relevant as the best of
    # them, as it is ranked by the best of their scores: else "用户在阿里巴巴工作" ranks first for "who is my
    # manager?" on its episode's evidence and shows its own relevance, 0.02.
    best = {m: max(rel(o) for o in stands_for.get(m, (m,))) for m, _ in kept}
    ordered = sorted(kept, key=lambda ms: (-round(ms[1], SCORE_DIGITS), -best[ms[0]]))
    hits = [_hit(rows[m], score, best[m]) for m, score in ordered[:limit]]
    return floor(hits, min_relevance)


def query_vector(embedder: Embedder, query: str) -> np.ndarray:
    """The vector recall searches with: a question in Traditional Chinese embedded with its Simplified form
    (``in_both_scripts``), which the models read far better."""
    return embedder.embed_query(in_both_scripts(query))


def warm(store: LanceStore, embedder: Embedder, prewarm_bytes: int = 0) -> None:
    """Open the memories table and load its indexes (LanceDB reads an index on its first search): one
    vector search and one per full-text column, a row each, so the first recall after a start pays for
    neither; and the search indexes whole while they fit in ``prewarm_bytes`` (``lance_indexes.prewarm``:
    else each IVF partition is read on the first search that probes it). No rows are read into the row
    cache here (``Reader.warm`` has them read in the background, bounded by the cache's size)."""
    if (table := store.table("memories")) is None:
        return
    if prewarm_bytes > 0:
        t0 = time.perf_counter()
        loaded, size = prewarm(table, prewarm_bytes)
        if loaded:
            log.info("prewarmed %s (%.0f MB) in %.1fs", ", ".join(loaded), size / 2**20, time.perf_counter() - t0)
    _table_rows(store), _index(store)
    where = MemoryFilter(statuses=None)
    vector = np.zeros(embedder.dim, dtype=np.float32)
    vector[0] = 1.0
    searches = [store.search.vector_search(vector, where, 1, nprobes=1)]
    searches += [store.search.text_search("warm", column, where, 1) for column in ("search_text", "text_ngram")]
    for future in [store.search.start(search) for search in searches]:
        future.result()


PLAN_TTL_S = 10.0


def _cached(key: tuple[str, ...], compute: Callable[[], _T]) -> _T:
    """``compute()``, kept for ``PLAN_TTL_S``: table and bank sizes and the vector index as trained only
    set how the vectors are searched, so a few seconds' staleness is harmless (an index built meanwhile
    is used a few seconds later; until then, exact scans). Keyed by the store's path, not id(store): a
    freed store's id is reused by the next one."""
    now = time.monotonic()
    cached = _PLANS.get(key)
    if cached is None or now - cached[1] > PLAN_TTL_S:
        cached = _PLANS[key] = (compute(), now)
    return cast(_T, cached[0])  # a key is always computed by the same function


def _table_rows(store: LanceStore) -> int:
    """Rows of the memories table (every bank)."""
    return _cached((str(store.path), "table"), lambda: store.rows("memories"))


def _index(store: LanceStore) -> VectorIndexInfo | None:
    """The vector index as trained (``LanceStore.vector_index_info``, a file read)."""
    return _cached((str(store.path), "index"), store.vector_index_info)


def bank_size(store: LanceStore, bank_id: str) -> int:
    """Memory rows of the bank, any status (cached for ``PLAN_TTL_S``)."""
    return _plan(store, bank_id)[0]


def _plan(store: LanceStore, bank_id: str) -> tuple[int, int | None]:
    """Rows of the bank (any status) and the IVF probes for it (None: exact)."""

    def compute() -> tuple[int, int | None]:
        bank_rows = store.count("memories", MemoryFilter(bank_id, statuses=None))
        return bank_rows, ivf_nprobes(bank_rows, _table_rows(store), _index(store))

    return _cached((str(store.path), "bank", bank_id), compute)


async def _cross_hits(
    store: LanceStore,
    vector: Vector,
    *,
    where: MemoryFilter,
    fetch: int,
    similarity: Callable[[float], float],
    probes: Callable[[int], int | None],
    version: Future[int | None],
) -> list[tuple[int, float]]:
    """The other script's nearest memories that are similar at all (``CROSS_MIN_SIMILARITY``): counted first
    (once per table version, ``counts``): none, and there is no search; a few, and they are scanned exactly
    (probing IVF partitions sized for the whole bank would miss most of a few hundred memories spread over
    them; ``probes`` gives the partitions for a count). The floor matters because RRF counts ranks, not
    scores: in a bank with three Chinese memories an English query's list would rank all three."""
    rows = await counted(store, where, version)
    if rows == 0:
        return []
    hits = await store.search.vector_search(vector, where, fetch, nprobes=probes(rows), version=version)
    return [(row_id, distance) for row_id, distance in hits if similarity(distance) >= CROSS_MIN_SIMILARITY]


def _ranked(hits: list[tuple[dict[str, Any], float]], sign: int, pool: int) -> list[dict[str, Any]]:
    """Best first with ties broken by id, so a rebuilt table ranks exactly like the live one.

    LanceDB sums BM25 and distances in an order that depends on fragments and threads, so equal scores
    can differ in their last bits, and rounding could still split them: a run of scores within ``TIE``
    of the run's first is one tie.
    """
    ordered = sorted(hits, key=lambda hit: sign * hit[1])
    out: list[dict[str, Any]] = []
    start = 0
    for i in range(1, len(ordered) + 1):
        if i == len(ordered) or not tied(ordered[start][1], ordered[i][1]):
            out += sorted((row for row, _ in ordered[start:i]), key=lambda row: row["memory_id"])
            start = i
    return out[:pool]


def _distinct(
    fused: list[tuple[str, float]], rows: dict[str, dict[str, Any]]
) -> tuple[list[tuple[str, float]], dict[str, list[str]]]:
    """One hit per thing said: the same text twice is one hit, and so is an episode with the typed memories
    of its turn when they say all it says (``episodes.repeated``). Best first, with, for each hit that stands
    for others, the memories it stands for (itself among them).

    The typed memory (fact, preference, ...) is kept over the episode, at the better of the two scores. A
    short question ("Lovely! When?") whose answer is a candidate is one hit with it (``scoring.bridges``).
    """
    says = repeated(rows[memory_id] for memory_id, _ in fused)  # episode -> its turn's first typed memory
    asked = bridges(fused, rows)  # short question -> its answer
    says.update({question: says.get(answer, answer) for question, answer in asked.items()})
    best: dict[str, tuple[str, float]] = {}
    folded: dict[str, list[str]] = {}  # text -> the memories said with it
    for memory_id, score in fused:
        row = rows[memory_id]
        text = rows[says.get(memory_id, memory_id)]["text"].strip()  # an episode counted as what it stands in
        folded.setdefault(text, []).append(memory_id)
        kept = best.get(text)
        if kept is None:
            best[text] = (memory_id, score)
        elif (rows[kept[0]]["kind"] == "episode" and row["kind"] != "episode") or (
            kept[0] in asked and memory_id not in asked
        ):
            best[text] = (memory_id, max(kept[1], score))
    stands_for = {best[text][0]: ids for text, ids in folded.items() if len(ids) > 1}
    return sorted(best.values(), key=lambda kv: -kv[1]), stands_for


QUESTION_CHARS = 500
_TITLE = re.compile(r"《([^《》]{1,40})》")  # a work by its title ("《出租车司机》"): a name, mentioned as written


def _about_the_unmentioned(query: str, rows: Iterable[Mapping[str, Any]]) -> bool:
    """The query names people, places or things (capitalised words inside the sentence; in Chinese, a
    person's name or a work's title in 《》) and none of the memories the searches found mentions any of them:
    whatever those say, they are about someone or something else. Full text finds a memory that has a name (a rare word
    weighs most), so one the searches did not find has none. One name the bank knows is enough ("would
    Caroline like Vivaldi?" is answered by what Caroline said about music). Across scripts a memory
    mentions a name in pinyin or a transliteration, or may be about them when it names nobody
    (``recall.mentions``). Not decided for a query of several lines, a conversation so far,
    which names things in passing ("…we got a golden retriever…" recalls the turtle), or of a passage's
    length (more than ``QUESTION_CHARS``), which is not a question about someone."""
    if "\n" in query.strip() or len(query) > QUESTION_CHARS:
        return False
    latin, chinese, titles = entities(query), chinese_names(query), _TITLE.findall(query)
    if not latin and not chinese and not titles:
        return False
    found = list(rows)
    if any(mentions_chinese(name, row) for name in chinese for row in found):
        return False
    if any(title in str(row.get("text") or "") for title in titles for row in found):
        return False
    if (initials := {"".join(w[0] for w in run.split()) for run in _NAME_RUN.findall(query)}) and any(
        re.search(rf"\b(?:{'|'.join(initials)})\b", str(row.get("text") or "")) for row in found
    ):
        return False  # written by its initials: "Leaving SF at 5am" for "when are we leaving San Francisco?"
    return len(unmentioned(latin, found)) == len(latin)


_NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+")  # "San Francisco", "New York City"


def _irrelevant(_memory_id: str) -> float:
    return 0.0


def _hit(row: dict[str, Any], score: str | float, relevance: float) -> RecallHit:
    return RecallHit(
        score=round(float(score), SCORE_DIGITS), relevance=round(relevance, 4), **{c: row[c] for c in COLUMNS}
    )
