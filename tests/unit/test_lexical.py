"""``recall.lexical`` scores full-text matches as LanceDB's index does, checked against the installed
LanceDB: the same stop words, and on a fully indexed table of one bank the same BM25 scores."""

from __future__ import annotations

import random

import lancedb
import pyarrow as pa
import pytest
from lancedb.index import FTS

from hindsight_es.recall.lexical import (
    STOP_WORDS,
    bm25,
    evidence,
    evidence_terms,
    full_text,
    gram_count,
    query_terms,
    stems,
    terms_row,
)
from hindsight_es.recall.relevance import odds_relevance

WORDS = (
    "Caroline went to the LGBTQ support group running runs ran adopted adoption Café naïve painting painted "
    "pottery yesterday Melanie's kids camping beach"
).split()
ZH = list("我们下周去上海看展览金融科技论坛主要内容是什么哈")
# Function words LanceDB may or may not drop: the stop list must be exactly the ones it drops.
CANDIDATES = sorted(
    STOP_WORDS | set("above any because before could does during once only ourselves themselves very why would".split())
)


def index(tmp_path, texts: list[str], **fts) -> object:
    table = lancedb.connect(tmp_path).create_table("t", pa.table({"id": list(range(len(texts))), "text": texts}))
    table.create_index("text", config=FTS(**fts))
    return table


def both_scores(table, texts: list[str], query: str, column: str) -> tuple[list[int], list[float], list[float]]:
    """The ids LanceDB matches for ``query``, its scores and ours over the same rows."""
    found = table.search(query, query_type="fts").limit(1000).to_arrow()
    ids = found["id"].to_pylist()
    docs = [terms_row({"_rowid": i, "search_text": texts[i], "text": texts[i]}) for i in ids]
    return ids, found["_score"].to_pylist(), bm25(query_terms(query, column), docs, len(texts), column)


def test_the_stop_words_are_the_ones_lancedb_drops(tmp_path):
    table = index(tmp_path, [f"zzz {w} qqq" for w in CANDIDATES], base_tokenizer="simple", stem=True)
    dropped = {w for w in CANDIDATES if len(table.search(w, query_type="fts").limit(5).to_arrow()) == 0}
    assert dropped == STOP_WORDS


def test_stems_fold_accents_and_drop_long_tokens():
    assert stems("The Café's naïve painters were RUNNING") == ("cafe", "naiv", "painter", "run")
    assert stems("x" * 41 + " ok") == ("ok",)


@pytest.mark.parametrize(
    "query", ["shared running Caroline", "shared cafe painting", "shared the kids' camping", "shared zzz"]
)
def test_stemmed_scores_are_lancedbs_on_a_fully_indexed_bank(tmp_path, query):
    rng = random.Random(3)
    # every row matches "shared": the matching rows are the collection, as their statistics must be
    texts = ["shared " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 12))) for _ in range(300)]
    table = index(tmp_path, texts, base_tokenizer="simple", stem=True, remove_stop_words=True)
    ids, theirs, ours = both_scores(table, texts, query, "search_text")
    assert len(ids) == 300
    assert ours == pytest.approx(theirs, rel=1e-5, abs=1e-6)  # LanceDB sums in float32


def test_ngram_scores_are_lancedbs_on_a_fully_indexed_bank(tmp_path):
    rng = random.Random(5)
    texts = ["哈" + "".join(rng.choice(ZH) for _ in range(rng.randint(3, 20))) for _ in range(200)]
    config = dict(base_tokenizer="ngram", ngram_min_length=1, ngram_max_length=2, stem=False)
    table = index(tmp_path, texts, remove_stop_words=False, lower_case=True, **config)
    query = "哈金融科技论坛的主要内容是什么？"
    ids, theirs, ours = both_scores(table, texts, query, "text_ngram")
    assert len(ids) == 200
    assert ours == pytest.approx(theirs, rel=1e-5, abs=1e-6)  # LanceDB sums in float32


def test_overlapping_grams_are_counted():
    assert (gram_count("哈哈", "哈哈哈"), gram_count("哈", "哈哈哈"), gram_count("ab", "abab")) == (2, 3, 2)


def _evidence(query: str, texts: list[str], rows: int, column: str = "search_text") -> list[float]:
    """Evidence of each text that holds a query term (the matching rows, as recall reads them)."""
    terms = evidence_terms(query, column)
    docs = [terms_row({"_rowid": i, "search_text": t, "text": t}) for i, t in enumerate(texts)]
    held = [d for d in docs if any(d["stems"].get(t) or t in d["grams"] for t in terms)]
    by_id = dict(zip((d["_rowid"] for d in held), evidence(terms, held, rows, column), strict=True))
    return [by_id.get(i, float("-inf")) for i in range(len(texts))]


def test_two_rare_words_of_the_question_in_one_memory_of_a_large_bank_are_strong_evidence():
    # 10,000 memories about people: each first and last name in about 100 of them, "collection" in 400
    rng = random.Random(5)
    first, last = [f"First{i:02d}" for i in range(100)], [f"Last{i:02d}" for i in range(100)]
    texts = [f"{rng.choice(first)} {rng.choice(last)} keeps a collection of stamps" for _ in range(400)]
    texts += [f"{rng.choice(first)} {rng.choice(last)} moved to a new flat" for _ in range(9_599)]
    texts.append("Jonas Suzuki keeps a vinyl record collection")
    odds = _evidence("What does Jonas Suzuki collect?", texts, rows=len(texts))
    assert odds_relevance(odds[-1]) > 0.9  # jonas, suzuki and collect: all three in it
    rivals = sorted(odds[:-1], reverse=True)
    assert odds_relevance(rivals[0]) < 0.05  # "collection" alone: 400 memories hold it


def test_words_as_common_in_a_larger_bank_are_weaker_evidence():
    bank = ["Priya suggested Dr Patel"] + ["the cat sleeps"] * 99
    small = _evidence("Which dentist did Priya suggest?", bank, rows=len(bank))
    large = _evidence("Which dentist did Priya suggest?", bank * 100, rows=len(bank) * 100)  # one in 100 either way
    assert large[0] < small[0]


def test_words_of_the_question_the_answer_does_not_hold_cost_nothing():
    texts = ["Priya Shah adopted a dog called Biscuit", "Omar Rossi adopted a cat called Mango"] + ["filler"] * 98
    with_name = _evidence("What is the name of the dog Priya Shah adopted?", texts, rows=100)
    without = _evidence("What dog did Priya Shah adopt?", texts, rows=100)
    assert with_name[0] == pytest.approx(without[0])  # "name" is in no memory: neither for nor against


def test_chinese_evidence_is_the_questions_two_character_grams():
    assert evidence_terms("曹桂英在准备参加哪场比赛？", "text_ngram")[:3] == ("曹桂", "桂英", "英在")
    assert evidence_terms("猫", "text_ngram") == ("猫",)
    # six other people named 桂英 entered a chess match; only 曹桂英's memory holds 曹桂
    texts = ["曹桂英正在为昆明马拉松做准备。"] + [f"{s}桂英参加了围棋比赛。" for s in "朱王李张刘陈"]
    texts += [f"王{i}喜欢喝茶。" for i in range(200)]
    odds = _evidence("曹桂英在准备参加哪场比赛？", texts, rows=len(texts), column="text_ngram")
    assert odds[0] > max(odds[1:7])


@pytest.mark.parametrize(
    ("query", "column"),
    [("What does Jonas Suzuki collect?", "search_text"), ("曹桂英在准备参加哪场比赛？", "text_ngram")],
)
def test_scores_and_evidence_together_are_each_alone(query, column):
    texts = ["Jonas Suzuki keeps a stamp collection", "曹桂英正在为马拉松做准备", "朱桂英参加了围棋比赛", "Jonas runs"]
    docs = [terms_row({"_rowid": i, "search_text": t, "text": t}) for i, t in enumerate(texts)]
    scores, odds = full_text(query, column, docs, 50)
    assert scores == bm25(query_terms(query, column), docs, 50, column)
    assert odds == evidence(evidence_terms(query, column), docs, 50, column)
