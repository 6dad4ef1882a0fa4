"""The ``Embedder`` protocol and a batching base class (the name -> embedder factory is ``registry``).

Every embedder is offline: its weights ship in installed packages, nothing is downloaded.
Vectors are float32, one L2-normalized row per text.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

DEFAULT_BATCH_SIZE = 64
MAX_THREADS = 4


class CrossScript(Protocol):
    """How an embedder whose vector joins several models compares texts across scripts (Chinese and
    English): with the part of its vector that all scripts share."""

    def query(self, vector: np.ndarray) -> np.ndarray:
        """A query vector (``Embedder.embed_query``) reduced to its cross-script part."""
        ...

    def text(self, text: str) -> np.ndarray:
        """``query(embed_query(text))``, computed directly."""
        ...

    def similarity(self, distance: float, memory_cjk: bool) -> float:
        """The cross-script cosine from the cosine distance of ``query`` to a memory's vector."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; ``id`` names the exact model and is carried in events.

    ``compatible``: ids of vectors its queries compare with besides its own (the same model computed
    differently, so stores written before still match). ``cross_script``: None when one vector space
    serves every script, else how to search the other script's memories.
    """

    id: str
    dim: int
    compatible: tuple[str, ...]
    cross_script: CrossScript | None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape ``(len(texts), dim)`` with L2-normalized rows."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of a search query (an embedder may weigh queries differently from documents)."""
        ...


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; all-zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalized: np.ndarray = vectors / np.maximum(norms, np.float32(1e-12))
    return normalized


def default_threads() -> int:
    """Threads for one model: the CPUs this process may use, at most ``MAX_THREADS``."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, MAX_THREADS))


def batches(n: int, size: int) -> Iterator[slice]:
    """Consecutive slices of at most ``size`` covering ``range(n)``."""
    for start in range(0, n, size):
        yield slice(start, min(start + size, n))


class BatchedEmbedder(ABC):
    """Base of the concrete embedders: lazy thread-safe load, batching, L2 normalization."""

    id: str
    dim: int
    compatible: tuple[str, ...] = ()
    cross_script: CrossScript | None = None

    def __init__(self, batch_size: int = DEFAULT_BATCH_SIZE) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._loaded = False

    @abstractmethod
    def _load(self) -> None:
        """Load the model; called once, under a lock, before the first batch."""

    @abstractmethod
    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        """Raw vectors for at most ``batch_size`` texts, shape ``(len(texts), dim)``."""

    def _batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        """Indices of the texts of each batch; consecutive runs of ``batch_size`` by default."""
        for part in batches(len(texts), self.batch_size):
            yield np.arange(part.start, part.stop)

    def load(self) -> None:
        """Load the model now instead of on the first ``embed`` call (idempotent)."""
        if self._loaded:
            return
        with self._lock:
            if not self._loaded:
                self._load()
                self._loaded = True

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a single str")
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not len(texts):
            return out
        self.load()
        for idx in self._batches(texts):
            out[idx] = l2_normalize(self._embed_batch([texts[i] for i in idx]))
        return out

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.embed([text])[0]
        return vector


def vector_space(embedder: Embedder) -> tuple[str, ...]:
    """The ids of the vectors ``embedder``'s queries can be compared with: its own, then its ``compatible``."""
    return (embedder.id, *embedder.compatible)
