"""Small single-topic banks: a few first-person messages about one event, person, place or item, and
questions that each ask for one attribute (``data/zh_banks_*.jsonl``, or MemoryBank reshaped).

The product: each bank's messages are published as one session of user turns (an hour apart) and
every question goes through ``Hindsight.recall``. The raw baseline ranks the same raw messages by
char-bigram BM25 and multilingual USE cosine fused by RRF (k = 60): when the product ranks below it,
its own indexing and ranking lose to the plainest reading of the text.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_es.app.bench.metrics import aggregate, score_ranking
from hindsight_es.client import Hindsight, make_turn
from hindsight_es.embedding import Embedder

T0 = datetime(2026, 5, 1, 9, tzinfo=UTC)
_LATIN = re.compile(r"[0-9a-z]+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


def load(path: Path) -> list[dict[str, Any]]:
    banks = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    for bank in banks:
        ids = {m["id"] for m in bank["messages"]}
        for q in bank["questions"]:
            if not q["evidence"] or not set(q["evidence"]) <= ids:
                raise ValueError(f"{path}: bank {bank['bank']!r}: evidence of {q['question']!r} is not its messages")
    return banks


def in_traditional(banks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same banks with their questions written in Traditional Chinese (their messages as they are)."""
    import opencc

    convert = opencc.OpenCC("s2t").convert
    return [{**b, "questions": [{**q, "question": convert(q["question"])} for q in b["questions"]]} for b in banks]


def memorybank(history: Path, evidence: Path) -> list[dict[str, Any]]:
    """MemoryBank's users as banks (one session per day, the user's and the companion's turns, ids
    ``<day>.<pair>u`` / ``a``) with the probing questions whose evidence ``evidence`` labels."""
    users = json.loads(Path(history).read_text(encoding="utf-8"))
    questions: dict[str, list[dict[str, Any]]] = {}
    for line in Path(evidence).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            questions.setdefault(row["user"], []).append(row)
    out = []
    for n, (name, user) in enumerate(users.items()):
        bank = f"memorybank-{n}"
        messages = []
        for d, (day, pairs) in enumerate(user["history"].items()):
            start = datetime.fromisoformat(day).replace(hour=20, tzinfo=UTC)
            for p, pair in enumerate(pairs):
                at = start + timedelta(minutes=2 * p)
                common = {"session": day, "time": at.isoformat()}
                messages.append({"id": f"{bank}/{d}.{p}u", "text": pair["query"], "speaker": name.strip(), **common})
                answer = {"id": f"{bank}/{d}.{p}a", "text": pair["response"], "speaker": "AI", "source": "assistant"}
                messages.append({**answer, **common, "time": (at + timedelta(minutes=1)).isoformat()})
        asked = [
            {"question": q["question"], "evidence": [f"{bank}/{e}" for e in q["evidence"]]}
            for q in questions.get(name, [])
        ]
        out.append({"bank": bank, "kind": "companion", "messages": messages, "questions": asked})
    return [b for b in out if b["questions"]]


def message_time(bank: dict[str, Any], i: int) -> datetime:
    """When message ``i`` of ``bank`` was said: its own ``time``, else an hour after the one before."""
    messages = bank["messages"]
    if i < len(messages) and "time" in messages[i]:
        return datetime.fromisoformat(messages[i]["time"])
    if i >= len(messages) and messages and "time" in messages[-1]:
        return datetime.fromisoformat(messages[-1]["time"]) + timedelta(hours=1)
    return T0 + timedelta(hours=i)


async def ingest(hs: Hindsight, banks: Sequence[dict[str, Any]]) -> None:
    turns = [
        make_turn(
            hs.settings,
            bank["bank"],
            m["text"],
            session_id=m.get("session", "trajectory"),
            turn_id=m["id"],
            occurred_at=message_time(bank, i),
            speaker=m.get("speaker"),
            source=m.get("source", "user"),
        )
        for bank in banks
        for i, m in enumerate(bank["messages"])
    ]
    await hs.publish(turns)


UNTYPED = "untyped"  # the group of a question without a ``type``


def question_types(banks: Sequence[dict[str, Any]]) -> dict[str, int]:
    """The question types a set names (``type``: simple, update, past, …; ``UNTYPED`` without one), each a
    category of ``aggregate``: the product's and the raw baseline's figures come out per type and overall."""
    found = {_type(q) for bank in banks for q in bank["questions"]}
    return {t: i for i, t in enumerate(sorted(found))}


def _type(question: dict[str, Any]) -> str:
    return question.get("type") or UNTYPED


def _row(bank: dict[str, Any], n: int, items: list[list[str]], types: dict[str, int]) -> dict[str, Any]:
    """The ``aggregate`` row of the bank's ``n``-th question, ranked as ``items``: its id, its type's category,
    the ranking's scores."""
    question = bank["questions"][n]
    return {
        "qid": f"{bank['bank']}#{n}",
        "category": types[_type(question)],
        **score_ranking(items, question["evidence"]),
    }


async def evaluate(
    hs: Hindsight,
    banks: Sequence[dict[str, Any]],
    *,
    k: int = 10,
    min_relevance: float | None = None,
    on_question: Callable[[dict], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Evidence recall per question type and overall; ``min_relevance``: the floor (None: the settings' default)."""
    types = question_types(banks)
    rows = []
    for bank in banks:
        now = message_time(bank, len(bank["messages"]))
        for n, q in enumerate(bank["questions"]):
            hits = await hs.recall(bank["bank"], q["question"], limit=k, now=now, min_relevance=min_relevance)
            items = [[t] for t in dict.fromkeys(t for h in hits for t in h.source_turn_ids)]
            row = _row(bank, n, items, types)
            row["best"] = max((h.relevance for h in hits), default=0.0)
            rows.append(row)
            if on_question:
                on_question({**row, "question": q["question"], "evidence": q["evidence"], "items": items[:5]})
    return aggregate(rows, {i: t for t, i in types.items()})


async def corrections(hs: Hindsight, banks: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Questions whose evidence is a correction and the message it corrects, in that order (a correction that
    means nothing alone: "Sorry, make that July 14."): the share whose top 3 hold a memory of the uncorrected
    message alone (``stale@3``), and whose top hit cites the correction (``current@1``)."""
    n = stale = current = 0
    for bank in banks:
        now = message_time(bank, len(bank["messages"]))
        for q in bank["questions"]:
            if q.get("type") != "update" or len(q["evidence"]) < 2:
                continue
            fix, said = q["evidence"][:2]
            hits = await hs.recall(bank["bank"], q["question"], limit=3, now=now)
            n += 1
            stale += any(said in h.source_turn_ids and fix not in h.source_turn_ids for h in hits)
            current += bool(hits) and fix in hits[0].source_turn_ids
    return {"n": n, "stale@3": stale / n if n else 0.0, "current@1": current / n if n else 0.0}


def off_topic_probes(banks: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(bank, question): each bank's questions asked in the next bank of the set."""
    out = []
    for n, bank in enumerate(banks):
        other = banks[(n + 1) % len(banks)]
        if other is not bank:
            out += [(other["bank"], q["question"]) for q in bank["questions"]]
    return out


# ---- the raw baseline -------------------------------------------------------------------------------
def bigrams(text: str) -> list[str]:
    """Char bigrams of each CJK run (a lone character stands for itself) and lowercase Latin words."""
    low = text.lower()
    out = _LATIN.findall(low)
    for run in _CJK_RUN.findall(low):
        out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return out


def bm25(docs: Sequence[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    n, avg = len(docs), sum(map(len, docs)) / max(1, len(docs))
    df = Counter(t for d in docs for t in set(d))
    scores = np.zeros(n)
    for i, d in enumerate(docs):
        tf = Counter(d)
        for t in set(query) & tf.keys():
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            scores[i] += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(d) / avg))
    return scores


def raw_baseline(
    embedder: Embedder,
    banks: Sequence[dict[str, Any]],
    *,
    rrf_k: int = 60,
    on_question: Callable[[dict], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Char-bigram BM25 + USE cosine over the raw messages, fused by RRF; ties by message order. Per question
    type and overall, as ``evaluate``."""
    types = question_types(banks)
    rows = []
    for bank in banks:
        ids = [m["id"] for m in bank["messages"]]
        texts = [m["text"] for m in bank["messages"]]
        docs = [bigrams(t) for t in texts]
        vectors = embedder.embed(texts)
        for n, q in enumerate(bank["questions"]):
            lexical = bm25(docs, bigrams(q["question"]))
            dense = vectors @ embedder.embed([q["question"]])[0]
            fused = np.zeros(len(ids))
            for scores in (lexical, dense):
                for rank, i in enumerate(np.argsort(-scores, kind="stable"), start=1):
                    fused[i] += 1.0 / (rrf_k + rank)
            items = [[ids[i]] for i in np.argsort(-fused, kind="stable")]
            row = _row(bank, n, items, types)
            rows.append(row)
            if on_question:
                on_question({**row, "question": q["question"], "evidence": q["evidence"], "items": items[:5]})
    return aggregate(rows, {i: t for t, i in types.items()})
