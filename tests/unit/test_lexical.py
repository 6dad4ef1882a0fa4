"""``recall.lexical`` scores full-text matches as LanceDB's index does, checked against the installed
LanceDB: the same stop words, and on a fully indexed table of one bank the same BM25 scores."""

from __future__ import annotations

import random

import lancedb
import pyarrow as pa
import pytest
from lancedb.index import FTS

from hindsight_es.recall.lexical import STOP_WORDS, bm25, gram_count, query_terms, stems, terms_row

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
