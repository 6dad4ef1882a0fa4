"""Relevance of a hit: how far its cosine with the query stands above what unrelated memories score.

    z(c)            = (c - μ) / σ       μ, σ: mean and spread of the cosine between unrelated texts, for this
                                        embedder and the query's script (Latin or CJK)
    relevance(c, n) = 1 / (1 + exp(-(z - √(2 ln n) - Z_MID) / Z_SCALE))          in (0, 1)

``n`` is the number of memories searched: the best of n unrelated memories scores about √(2 ln n)
spreads above the mean (the maximum of n normal draws), so the same cosine is stronger evidence in a
bank of 10 memories than in one of 10,000. With it, the floors that separate answered from unanswered
questions in 16-message banks and in 700-turn conversations come close (docs/benchmarks.md,
relevance floor); without it they are far apart.

Raw cosines do not compare across models: unrelated pairs score about 0.06 under MiniLM in English
and 0.58 in Chinese, which it cannot read. So each embedder's scale is its own null distribution:
the cosines of ``REFERENCE`` sentences (one topic each, nothing in common) with each other, query
vector against memory vector. Shipped embedders declare theirs (``DECLARED``, measured with
``measure``; ``tests/unit/test_relevance.py`` checks they still agree); any other is measured on
first use, in process.

This is the vector evidence. The full-text evidence of the query's words a memory holds (``lexical.evidence``,
log-odds from a prior of one memory in the bank answering) adds to it: the cosine's log-odds plus
``LEXICAL_WEIGHT`` times what the words add to that prior, or the words' log-odds alone where they are the
stronger reading (in a large bank of look-alike memories the cosine of a question with its answer is often
no higher than the best of thousands of unrelated ones, while the names it shares are not). Added at half
weight, since the two are not independent: the words a question shares with its answer raise its cosine
too. Relevance is shown and used for the floor; it never reorders.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from hindsight_es.embedding import Embedder
from hindsight_es.embedding.base import CrossScript
from hindsight_es.errors import InvalidInputError
from hindsight_es.recall.asked import KEYED, Asked, answers
from hindsight_es.recall.lexical import prior
from hindsight_es.recall.models import RecallHit

# The weight of the full-text evidence added to the cosine's: 0 (the better of the two), 0.5 and 1 were
# measured (docs/benchmarks.md, relevance floor); 1 counted shared words twice.
LEXICAL_WEIGHT = 0.5
Z_MID = 1.0  # one spread above the best unrelated memory expected among n: relevance 0.5
Z_SCALE = 1.0


class Scale(NamedTuple):
    mean: float
    std: float


# Sentences that share no topic: their cosines with each other are the embedder's noise.
REFERENCE = {
    "latin": (
        "My sister moved to Lisbon last spring.",
        "The dentist appointment is on Thursday at nine.",
        "I prefer green tea without sugar.",
        "Our team switched the database to PostgreSQL.",
        "The cat knocked a glass off the kitchen table.",
        "We are planning a hiking trip in the Alps in July.",
        "I'm allergic to peanuts and shellfish.",
        "The quarterly report is due next Friday.",
        "He learned to play the violin as a child.",
        "Please send invoices to the accounting address.",
        "The train to Boston leaves at 7:15.",
        "I started running every morning before work.",
        "Her favourite author is Haruki Murakami.",
        "The roof leaked during last night's storm.",
        "We adopted a rescue dog named Biscuit.",
        "My passport expires in March.",
        "The new phone has a cracked screen already.",
        "I volunteer at the food bank on Saturdays.",
        "The wedding will be held in a vineyard.",
        "Use FedEx for all shipments from now on.",
        "I'm reading a book about the history of Rome.",
        "The server crashed because the disk was full.",
        "My son scored two goals in the football match.",
        "We painted the living room light blue.",
        "I can't eat gluten since the diagnosis.",
        "The conference in Singapore was cancelled.",
        "Grandma's recipe uses a lot of cinnamon.",
        "I've been learning Japanese for two years.",
        "The car needs new tires before winter.",
        "She works as a nurse in the children's hospital.",
        "The password manager locked me out again.",
        "We watched a documentary about octopuses.",
        "I lost my keys at the gym yesterday.",
        "The landlord raised the rent by ten percent.",
        "He's training for a marathon in October.",
        "Our flight was delayed by four hours.",
    ),
    "cjk": (
        "我妹妹去年春天搬到了里斯本。",
        "周四上午九点要去看牙医。",
        "我喜欢喝不加糖的绿茶。",
        "我们团队把数据库换成了PostgreSQL。",
        "猫把厨房桌上的杯子打翻了。",
        "我们计划七月去阿尔卑斯山徒步。",
        "我对花生和贝类过敏。",
        "季度报告下周五截止。",
        "他小时候学过小提琴。",
        "发票请寄到财务部的地址。",
        "去杭州的高铁早上七点出发。",
        "我开始每天上班前晨跑。",
        "她最喜欢的作家是村上春树。",
        "昨晚暴雨屋顶漏水了。",
        "我们领养了一只叫饼干的狗。",
        "我的护照明年三月到期。",
        "新手机的屏幕已经裂了。",
        "我每周六去食物银行做志愿者。",
        "婚礼在一个葡萄园里举行。",
        "以后寄快递都用顺丰。",
        "我在读一本关于罗马历史的书。",
        "服务器因为磁盘满了而宕机。",
        "我儿子在足球赛里进了两个球。",
        "我们把客厅刷成了浅蓝色。",
        "确诊以后我不能吃含麸质的东西。",
        "新加坡的会议取消了。",
        "奶奶的菜谱里放很多肉桂。",
        "我学日语已经两年了。",
        "冬天之前车要换新轮胎。",
        "她在儿童医院当护士。",
        "密码管理器又把我锁在外面了。",
        "我们看了一部关于章鱼的纪录片。",
        "我昨天在健身房丢了钥匙。",
        "房东把房租涨了百分之十。",
        "他在为十月的马拉松训练。",
        "我们的航班延误了四个小时。",
    ),
}

# Measured with ``measure`` on the shipped models (query vector against document vector); "cross-" +
# the query's script: the cross-script search of an embedder that has one (``measure_cross``).
_MINILM, _USE = "minilm-l6-v2-qint8@1", "use-multilingual-v3@1"
_HYBRID = f"hybrid({_MINILM}+{_USE})@1"
DECLARED: dict[tuple[str, str], Scale] = {
    (_MINILM, "latin"): Scale(0.0598, 0.0823),
    (_MINILM, "cjk"): Scale(0.5829, 0.0866),  # MiniLM is not trained on Chinese: every pair looks alike
    (_USE, "latin"): Scale(0.1059, 0.0793),
    (_USE, "cjk"): Scale(0.1142, 0.078),
    (_HYBRID, "latin"): Scale(0.0713, 0.0703),
    (_HYBRID, "cjk"): Scale(0.1142, 0.078),  # a CJK query is its USE half alone
    (_HYBRID, "cross-latin"): Scale(0.0846, 0.0537),  # English query, Chinese memory (``measure_cross``)
    (_HYBRID, "cross-cjk"): Scale(0.0846, 0.0512),
}

_MEASURED: dict[tuple[str, str], Scale] = {}
_LOCK = threading.Lock()


def measure(embedder: Embedder, script: str) -> Scale:
    """The mean and spread of the cosine between a query and an unrelated memory, over ``REFERENCE``."""
    texts = list(REFERENCE[script])
    docs = embedder.embed(texts)
    docs = docs / np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-12)
    queries = np.stack([embedder.embed_query(t) for t in texts])
    queries = queries / np.maximum(np.linalg.norm(queries, axis=1, keepdims=True), 1e-12)
    cosines = queries @ docs.T
    off = cosines[~np.eye(len(texts), dtype=bool)]
    return Scale(round(float(off.mean()), 4), round(max(float(off.std()), 1e-3), 4))


def measure_cross(embedder: Embedder, script: str) -> Scale:
    """The scale of cross-script cosines (``Embedder.cross_script``) for queries in ``script``.

    ``REFERENCE``'s two lists are translations of each other: the unrelated pairs give the null, and
    a sentence and its translation give what a perfect cross-script match scores, below 1 (0.71 for
    USE). The spread is shrunk by that ratio, so a cross-script match is as relevant as a same-script
    one that stands as far above noise, relative to a perfect match.
    """
    cross = embedder.cross_script
    if cross is None:
        return measure(embedder, script)
    other = "cjk" if script == "latin" else "latin"
    queries = np.stack([cross.text(t) for t in REFERENCE[script]])
    docs = embedder.embed(list(REFERENCE[other]))
    docs = docs / np.maximum(np.linalg.norm(docs, axis=1, keepdims=True), 1e-12)
    similar = np.vectorize(lambda c: cross.similarity(1.0 - c, memory_cjk=other == "cjk"))(queries @ docs.T)
    off = similar[~np.eye(len(queries), dtype=bool)]
    same = measure(embedder, other)  # how far a perfect same-script match (cosine 1) stands above noise
    ratio = (float(np.diag(similar).mean()) - float(off.mean())) / (1.0 - same.mean)
    return Scale(round(float(off.mean()), 4), round(max(float(off.std()) * min(ratio, 1.0), 1e-3), 4))


def scale(embedder: Embedder, script: str) -> Scale:
    """The embedder's declared scale for queries in ``script``, else its measured one (once per process)."""
    key = (embedder.id, script)
    if key in DECLARED:
        return DECLARED[key]
    with _LOCK:
        if key not in _MEASURED:
            how = measure_cross if script.startswith("cross-") else measure
            _MEASURED[key] = how(embedder, script.removeprefix("cross-"))
        return _MEASURED[key]


def relevance(cosine: float, of: Scale, memories: int) -> float:
    """The calibrated relevance of a cosine on the scale ``of`` among ``memories`` searched (see the module)."""
    z = (cosine - of.mean) / of.std - math.sqrt(2.0 * math.log(max(memories, 1)))
    return odds_relevance((z - Z_MID) / Z_SCALE)


def odds_relevance(log_odds: float) -> float:
    """The probability of log-odds (the cosine's, above, or the full-text evidence's, ``lexical.evidence``)."""
    return 1.0 / (1.0 + math.exp(-max(min(log_odds, 50.0), -50.0)))


def _log_odds(probability: float) -> float:
    p = min(max(probability, 1e-12), 1.0 - 1e-12)
    return math.log(p / (1.0 - p))


def check_min_relevance(value: float | None) -> float | None:
    """``value`` if it is a number in [0, 1] (or None: the default applies), else ``InvalidInputError``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value) or not 0 <= value <= 1:
        raise InvalidInputError(f"min_relevance must be a number between 0 and 1, got {value!r}")
    return float(value)


def floor(hits: Sequence[RecallHit], min_relevance: float) -> list[RecallHit]:
    """``hits`` when the best of them is at least ``min_relevance`` relevant, else none: a query nothing
    in the bank answers gets nothing, one that something answers keeps its whole ranking. A context block
    applies it to the hits it would show (``recall.context``), not to recall's answer."""
    if min_relevance <= 0 or any(h.relevance >= min_relevance for h in hits):
        return list(hits)
    return []


def memory_relevance(
    found: list[tuple[str, list[tuple[int, float]]]],
    by_row_id: dict[int, dict[str, Any]],
    embedder: Embedder,
    query_cjk: bool,
    cross_script: CrossScript | None,
    memories: int,
    lexical: Mapping[int, float],
    asks: frozenset[Asked],
) -> Callable[[str], float]:
    """memory id -> its calibrated relevance: its vector evidence (the best cosine any vector list saw for it;
    a memory no vector list returned is at most as similar as the last one listed) with its full-text evidence
    added (``lexical``: log-odds by row id, ``lexical.evidence``; see the module), or its key's (``recall.asked``)."""
    same = scale(embedder, "cjk" if query_cjk else "latin")
    cross = scale(embedder, "cross-cjk" if query_cjk else "cross-latin") if cross_script is not None else same
    best: dict[str, float] = {}
    bound = 1.0
    for name, hits in found:
        if name not in ("vector", "cross"):
            continue
        for row_id, distance in hits:
            if (row := by_row_id.get(row_id)) is None:
                continue
            if name == "cross" and cross_script is not None:
                r = relevance(cross_script.similarity(distance, memory_cjk=not query_cjk), cross, memories)
            else:
                r = relevance(1.0 - distance, same, memories)
            best[row["memory_id"]] = max(best.get(row["memory_id"], 0.0), r)
        if name == "vector" and hits:
            bound = min(bound, relevance(1.0 - max(d for _, d in hits), same, memories))
    if not any(name == "vector" and hits for name, hits in found):
        bound = 0.0
    start = prior(memories)
    for row_id, odds in lexical.items():
        if (row := by_row_id.get(row_id)) is not None:
            m = row["memory_id"]
            vector = best.get(m, bound)
            joint = odds_relevance(_log_odds(vector) + LEXICAL_WEIGHT * (odds - start))
            best[m] = max(vector, odds_relevance(odds), joint)
    for row in by_row_id.values():
        if answers(asks, row.get("key")):
            best[row["memory_id"]] = max(best.get(row["memory_id"], bound), odds_relevance(KEYED))
    return lambda memory_id: best.get(memory_id, bound)
