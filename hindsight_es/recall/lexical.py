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
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from py_rust_stemmers import SnowballStemmer

from hindsight_es.text import CJK_RUN, has_cjk

EXACT_MATCHES = 2_000  # up to this many matching rows a full-text list is scored here
# ln of the prior odds against a bank answering a question at all (e^-1.5: about 1 in 5.5 answered), for
# ``evidence``. Chosen from 0, 1.5 and 3: at 0 a single word shared with a memory of a 10-message bank passed
# the default floor, and off-topic probes lost up to 0.18 of their empty answers (MemoryBank 0.19 -> 0.01);
# at 1.5 they moved by at most 0.13 (MemoryBank) and mostly not at all; at 3 the 10k-memory peers corpus left
# 78 of 372 direct questions without an answer instead of 44 (docs/benchmarks.md, relevance floor).
ANSWERED = 1.5
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


def holds(query: str, column: str) -> Callable[[str], bool]:
    """Whether a text of ``column`` holds a term of ``query``: a full-text match, as the index finds one
    (for rows no index covers yet, ``stores.tail``)."""
    terms = query_terms(query, column)
    if column == "text_ngram":

        def has_gram(text: str) -> bool:
            low = text.lower()
            return any(term in low for term in terms)

        return has_gram
    wanted = frozenset(terms)
    return lambda text: not wanted.isdisjoint(_stem_set(text))


@lru_cache(maxsize=16_384)
def _stem_set(text: str) -> frozenset[str]:
    return frozenset(stems(text))


def query_terms(query: str, column: str) -> tuple[str, ...]:
    """The distinct terms of a query in ``column``'s tokenization."""
    return grams(query) if column == "text_ngram" else tuple(dict.fromkeys(stems(query)))


def _counts(terms: Sequence[str], docs: Sequence[dict[str, Any]], column: str) -> tuple[list[list[int]], list[int]]:
    """Each doc's count of each term, and each doc's length in terms (as the index counts them)."""
    if column == "text_ngram":
        texts = [str(d["grams"]) for d in docs]
        counts = [[gram_count(g, t) if g in t else 0 for g in terms] for t in texts]
        return counts, [max(0, 2 * len(t) - 1) for t in texts]
    return [[d["stems"].get(term, 0) for term in terms] for d in docs], [int(d["length"]) for d in docs]


def _idf(tf: list[list[int]], terms: int, rows: int) -> list[float]:
    """BM25's idf of each term; a term's document frequency is the number of matching rows holding it."""
    frequency = [sum(1 for counts in tf if counts[j]) for j in range(terms)]
    return [math.log(1 + (max(rows, len(tf)) - df + 0.5) / (df + 0.5)) for df in frequency]


def bm25(terms: Sequence[str], docs: Sequence[dict[str, Any]], rows: int, column: str) -> list[float]:
    """BM25 of each of ``docs`` (``terms_row`` shapes: every row that matches the terms) for ``terms``,
    in a collection of ``rows`` rows; the statistics are the matching rows'."""
    if not docs:
        return []
    tf, lengths = _counts(terms, docs, column)
    return _bm25(tf, lengths, _idf(tf, len(terms), rows))


def _bm25(tf: list[list[int]], lengths: list[int], idf: list[float]) -> list[float]:
    average = sum(lengths) / len(lengths) or 1.0
    scores = []
    for counts, length in zip(tf, lengths, strict=True):
        norm = K1 * (1 - B + B * length / average)
        scores.append(sum(w * c * (K1 + 1) / (c + norm) for w, c in zip(idf, counts, strict=True) if c))
    return scores


def full_text(query: str, column: str, docs: Sequence[dict[str, Any]], rows: int) -> tuple[list[float], list[float]]:
    """``bm25`` and ``evidence`` of each of ``docs`` for ``query``, counting the terms once (the evidence
    terms are some of the query's terms, and a term's idf is the same for both)."""
    if not docs:
        return [], []
    terms = query_terms(query, column)
    tf, lengths = _counts(terms, docs, column)
    idf = _idf(tf, len(terms), rows)
    wanted = set(evidence_terms(query, column))
    held = [j for j, term in enumerate(terms) if term in wanted]
    sub = [[counts[j] for j in held] for counts in tf]
    return _bm25(tf, lengths, idf), _evidence(sub, [idf[j] for j in held], rows)


def evidence_terms(query: str, column: str) -> tuple[str, ...]:
    """The query terms whose presence is evidence (``evidence``): its stems; for n-grams, the two-character
    grams of its CJK runs (single characters match nearly every Chinese memory), or the character of a
    one-character run."""
    if column != "text_ngram":
        return query_terms(query, column)
    out: list[str] = []
    for run in CJK_RUN.findall(query.lower()):
        out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return tuple(dict.fromkeys(out))


def evidence(terms: Sequence[str], docs: Sequence[dict[str, Any]], rows: int, column: str) -> list[float]:
    """The log-odds that each of ``docs`` answers the question ``terms`` come from, from the terms it holds:

        λ(d) = Σ_{t in d} (idf(t) + ln p) − ln(rows) − ANSWERED

    If the bank answers the question, a memory among ``rows`` is a priori the answer with odds of about 1 to
    ``rows``; holding term t multiplies the odds by P(t | the answer) / P(t | any other) = p / (df_t / rows),
    i.e. idf(t) + ln p with p = 1/2 (Croft and Harper's assumption: half the words of a question are in its
    answer, the rest paraphrased). A term it does not hold changes nothing (a question's own words, "name",
    "kind", and n-grams across Chinese word boundaries, are seldom in the answer). ``ANSWERED`` is the
    prior against the bank answering at all. So two rare words of the question in one memory of a large bank
    are strong evidence, and a common one is none; ``rows`` makes the same share of the bank weaker evidence
    in a larger bank, as ``relevance`` does for a cosine. ``docs``: every row that holds one of the terms
    (the statistics are theirs, as in ``bm25``)."""
    tf, _ = _counts(terms, docs, column)
    return _evidence(tf, _idf(tf, len(terms), rows), rows)


def prior(rows: int) -> float:
    """The log-odds ``evidence`` starts from in a bank of ``rows`` memories: that one of them answers."""
    return -math.log(max(rows, 1)) - ANSWERED


def _evidence(tf: list[list[int]], idf: list[float], rows: int) -> list[float]:
    if not idf:
        return [-math.inf] * len(tf)
    prior_ = prior(max(rows, len(tf)))
    return [prior_ + sum(w - math.log(2.0) for w, c in zip(idf, counts, strict=True) if c) for counts in tf]
