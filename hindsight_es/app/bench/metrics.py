"""Retrieval metrics, computed as ``shared/bench/locomo_retrieval.py`` computes them.

    R@k      |evidence ∩ ids cited by the top-k items| / |evidence|
    Full@10  1 if the whole evidence set is cited by the top 10 items, else 0
    NDCG@10  binary relevance over the flattened, de-duplicated id list
Macro-averaged over questions, per category and overall.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

KS = (1, 3, 5, 10, 20)


def score_ranking(items: Sequence[Sequence[str]], evidence: Sequence[str], ks: Sequence[int] = KS) -> dict[str, float]:
    gold = set(evidence)
    out: dict[str, float] = {}
    for k in ks:
        covered = {i for item in items[:k] for i in item}
        out[f"R@{k}"] = len(gold & covered) / len(gold)
    covered10 = {i for item in items[:10] for i in item}
    out["Full@10"] = float(gold <= covered10)
    flat: list[str] = list(dict.fromkeys(i for item in items for i in item))
    dcg = sum(1.0 / math.log2(r + 2) for r, i in enumerate(flat[:10]) if i in gold)
    idcg = sum(1.0 / math.log2(r + 2) for r in range(min(len(gold), 10)))
    out["NDCG@10"] = dcg / idcg
    return out


def hits_at(items: Sequence[Sequence[str]], gold: Sequence[str], ks: Sequence[int] = KS) -> dict[str, float]:
    """Hit@k: 1 if any gold id is cited by the top-k items (MADial-Bench counts a dialogue this way)."""
    wanted = set(gold)
    return {f"Hit@{k}": float(bool(wanted & {i for item in items[:k] for i in item})) for k in ks}


def aggregate(rows: Sequence[dict], names: dict[int, str] | None = None) -> dict[str, dict[str, float]]:
    """Mean of every metric per category and overall; ``n`` is the question count."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        groups[(names or {}).get(row["category"], str(row["category"]))].append(row)
        groups["overall"].append(row)
    metrics = [m for m in rows[0] if m not in ("category", "qid")] if rows else []
    return {g: {"n": len(rs), **{m: sum(r[m] for r in rs) / len(rs) for m in metrics}} for g, rs in groups.items()}
