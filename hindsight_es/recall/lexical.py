"""Full-text scores that only the bank's own memories decide: BM25 over the statistics of the rows
that match, not over those of the index.

LanceDB scores the hits it has indexed with the statistics of its index (row count, lengths and
document frequencies of every row it has covered, every bank's) and the rows it has not covered yet
with those of all rows. So the same rows rank differently before and after a maintenance pass folds
new rows into the index, a rebuilt store ranks differently from the live one, and one bank's ranking
moves with what other banks write (a word another tenant uses a lot weighs less in yours).

When the query's words match few enough of the bank's memories that LanceDB returns every one of them
(``EXACT_MATCHES``), they are scored here instead, with the same BM25 and the same tokenization as the
index: the row count is the bank's (under the recall's filter), a word's document frequency is the
number of matching rows that hold it (every row holding a query word matches, so that is the bank's),
and the average length is the matching rows'. Those depend on the rows alone: equal rows give equal
scores, whatever the index has covered. A larger match (a common word in a large bank) keeps LanceDB's
scores (``search._scored``).

The tokenization is LanceDB's: the "simple" tokenizer (runs of letters and digits), lower case, its
English stop words, ASCII folding and the Snowball English stemmer of ``rust-stemmers`` (the crate its
index uses) for ``search_text``; every one- and two-character gram of the lower-cased text for
``text_ngram``. ``tests/unit/test_lexical.py`` checks the stop words and the scores against the
installed LanceDB.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from py_rust_stemmers import SnowballStemmer

from hindsight_es.text import has_cjk

EXACT_MATCHES = 2_000  # up to this many matching rows a full-text list is scored here
K1, B = 1.2, 0.75  # LanceDB's BM25 parameters
MAX_TOKEN_CHARS = 40  # LanceDB's index drops longer tokens
# The English stop words of LanceDB's full-text index (lancedb 0.40), read off the index itself.
STOP_WORDS = frozenset(
    """a about after again against ain all am an and are aren as at be been being below between both but
    by can couldn d did didn do doesn doing don down each few for from further had hadn has hasn have
    haven having he her here hers herself him himself his how i if in into is isn it its itself just ll m
    ma me mightn more most mustn my myself needn no nor not now o of off on or other our ours out over own
    re s same shan she should shouldn so some such t than that the their theirs them then there these they
    this those through to too under until up ve was wasn we were weren what when where which while who
    whom will with won wouldn y you your yours yourself""".split()
)
_WORD = re.compile(r"[^\W_]+")
_STEMMER = SnowballStemmer("english")


def stems(text: str) -> tuple[str, ...]:
    """The terms ``search_text`` is indexed by, in order."""
    out = []
    for word in _WORD.findall(text.lower()):
        if len(word) <= MAX_TOKEN_CHARS and word not in STOP_WORDS:
            out.append(_stem(word))
    return tuple(out)


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    folded = unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode() if not word.isascii() else word
    return str(_STEMMER.stem_word(folded or word))


def grams(text: str) -> tuple[str, ...]:
    """The distinct one- and two-character grams of ``text`` (lower case): a query's ``text_ngram`` terms."""
    low = text.lower()
    return tuple(dict.fromkeys([*low, *(low[i : i + 2] for i in range(len(low) - 1))]))


def gram_count(gram: str, text: str) -> int:
    """Occurrences of a one- or two-character gram in ``text``, overlapping ones too ("哈哈哈" holds "哈哈" twice)."""
    if len(gram) == 2 and gram[0] == gram[1]:
        return sum(1 for i in range(len(text) - 1) if text[i : i + 2] == gram)
    return text.count(gram)


def terms_row(row: dict[str, Any]) -> dict[str, Any]:
    """What the term cache keeps of a row: its stems counted and their number, and its lower-cased text
    when the n-gram index holds it (memories with CJK; see ``projections.vectors``)."""
    text = str(row.get("search_text") or "")
    terms = stems(text)
    return {
        "_rowid": row["_rowid"],
        "stems": Counter(terms),
        "length": len(terms),
        "grams": text.lower() if has_cjk(str(row.get("text") or "")) else "",
    }


def query_terms(query: str, column: str) -> tuple[str, ...]:
    """The distinct terms of a query in ``column``'s tokenization."""
    return grams(query) if column == "text_ngram" else tuple(dict.fromkeys(stems(query)))


def bm25(terms: Sequence[str], docs: Sequence[dict[str, Any]], rows: int, column: str) -> list[float]:
    """BM25 of each of ``docs`` (``terms_row`` shapes: every row that matches the terms) for ``terms``,
    in a collection of ``rows`` rows; the statistics are the matching rows'."""
    if not docs:
        return []
    if column == "text_ngram":
        texts = [str(d["grams"]) for d in docs]
        lengths = [max(0, 2 * len(t) - 1) for t in texts]
        tf = [[gram_count(g, t) if g in t else 0 for g in terms] for t in texts]
    else:
        lengths = [int(d["length"]) for d in docs]
        tf = [[d["stems"].get(term, 0) for term in terms] for d in docs]
    average = sum(lengths) / len(lengths) or 1.0
    frequency = [sum(1 for counts in tf if counts[j]) for j in range(len(terms))]
    idf = [math.log(1 + (max(rows, len(docs)) - df + 0.5) / (df + 0.5)) for df in frequency]
    scores = []
    for counts, length in zip(tf, lengths, strict=True):
        norm = K1 * (1 - B + B * length / average)
        scores.append(sum(w * c * (K1 + 1) / (c + norm) for w, c in zip(idf, counts, strict=True) if c))
    return scores
