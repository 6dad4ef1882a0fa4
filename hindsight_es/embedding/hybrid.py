"""Bilingual embedder: MiniLM (strong on English) and multilingual USE side by side in one vector.

    doc   = [ minilm(text) | use(text) ] / √2        (the MiniLM half is zero for CJK text)
    query = [ a · minilm(q) | b · use(q) ]            a, b by the query's language
    cos(query, doc) ∝ a · cos_minilm + b · cos_use

So one vector column and one index serve both languages, and the mix is chosen per query: an
English query leans on MiniLM, a Chinese one uses only USE (MiniLM is not trained on Chinese).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from hindsight_es.embedding.base import CrossScript, Embedder, vector_space
from hindsight_es.text import is_cjk

_QUERY_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="embed-query")
_BATCH_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-batch")  # queries never wait on it

# (MiniLM weight, USE weight) of a query, by language; measured on LoCoMo (en) and MADial-Bench (zh).
ENGLISH_QUERY = (1.0, 0.5)
CJK_QUERY = (0.0, 1.0)


class HybridEmbedder:
    def __init__(self, english: Embedder, multilingual: Embedder) -> None:
        self.english, self.multilingual = english, multilingual
        self.id = f"hybrid({english.id}+{multilingual.id})@1"
        self.compatible = tuple(
            f"hybrid({e}+{m})@1"
            for e in vector_space(english)
            for m in vector_space(multilingual)
            if (e, m) != (english.id, multilingual.id)
        )
        self.dim = english.dim + multilingual.dim
        self.cross_script: CrossScript | None = _MultilingualHalf(english.dim, multilingual)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        latin = [i for i, t in enumerate(texts) if not is_cjk(t)]
        # USE (one BLAS thread) runs beside MiniLM (two threads): the two models release the GIL.
        multilingual = _BATCH_POOL.submit(self.multilingual.embed, list(texts))
        if latin:
            out[latin, : self.english.dim] = self.english.embed([texts[i] for i in latin])
        out[:, self.english.dim :] = multilingual.result()
        return out / np.float32(np.sqrt(2.0))

    def embed_query(self, text: str) -> np.ndarray:
        a, b = CJK_QUERY if is_cjk(text) else ENGLISH_QUERY
        vector = np.zeros(self.dim, dtype=np.float32)
        # The two models run side by side, one thread each (both release the GIL).
        english = _QUERY_POOL.submit(self.english.embed, [text]) if a else None
        vector[self.english.dim :] = b * self.multilingual.embed_query(text)
        if english is not None:
            vector[: self.english.dim] = a * english.result()[0]
        return vector / max(float(np.linalg.norm(vector)), 1e-12)


class _MultilingualHalf:
    """The USE half of a hybrid vector: the only half that compares texts across scripts (a CJK memory's
    MiniLM half is zero). Recall searches other-script memories with it, where the full query vector
    ranks them all below same-script ones."""

    def __init__(self, offset: int, multilingual: Embedder) -> None:
        self.offset, self.multilingual = offset, multilingual
        self.dim = offset + multilingual.dim

    def query(self, vector: np.ndarray) -> np.ndarray:
        cross = vector.copy()
        cross[: self.offset] = 0.0
        return cross / max(float(np.linalg.norm(cross)), 1e-12)

    def text(self, text: str) -> np.ndarray:
        vector = np.zeros(self.dim, dtype=np.float32)
        vector[self.offset :] = self.multilingual.embed_query(text)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)

    def similarity(self, distance: float, memory_cjk: bool) -> float:
        """A CJK memory's vector is its USE half alone, a Latin one's is [MiniLM | USE] (norms equal),
        so there the distance only sees half of the vector's weight (cos / √2)."""
        cosine = 1.0 - distance
        return cosine if memory_cjk else cosine * float(np.sqrt(2.0))
