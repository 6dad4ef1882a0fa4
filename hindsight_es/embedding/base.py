"""The ``Embedder`` protocol, a batching base class and the name -> embedder factory.

Every embedder is offline: its weights ship in installed packages, nothing is downloaded.
Vectors are float32, one L2-normalized row per text.
"""

from __future__ import annotations

import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from hindsight_es.errors import ConfigError

DEFAULT_BATCH_SIZE = 64
MAX_THREADS = 4


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors; ``id`` names the exact model and is carried in events."""

    id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 array of shape ``(len(texts), dim)`` with L2-normalized rows."""
        ...


class UnknownEmbedderError(ConfigError, ValueError):
    """An embedder name that is not in ``EMBEDDERS``."""


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length as float32; all-zero rows stay zero."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, np.float32(1e-12))


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


def _minilm() -> Embedder:
    from hindsight_es.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _use() -> Embedder:
    from hindsight_es.embedding.use import USEEmbedder

    return USEEmbedder()


def _hybrid() -> Embedder:
    from hindsight_es.embedding.hybrid import HybridEmbedder

    return HybridEmbedder(make_embedder("minilm"), make_embedder("use"))


def vector_space(embedder: Embedder) -> tuple[str, ...]:
    """The ids of the vectors ``embedder``'s queries can be compared with: its own, then those it
    declares ``compatible`` (the same model computed differently, so stores from before still match)."""
    return (embedder.id, *getattr(embedder, "compatible", ()))


def embed_query(embedder: Embedder, text: str) -> np.ndarray:
    """The query vector: the embedder's own ``embed_query`` where it weighs queries differently."""
    special = getattr(embedder, "embed_query", None)
    return special(text) if special is not None else embedder.embed([text])[0]


#: Embedder names accepted by ``make_embedder`` (and ``Settings.embedder``) -> factory.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {"minilm": _minilm, "use": _use, "hybrid": _hybrid}

_instances: dict[str, Embedder] = {}
_instances_lock = threading.Lock()


def make_embedder(name: str) -> Embedder:
    """The process-wide embedder called ``name``; models load lazily, once per name."""
    if name not in EMBEDDERS:
        valid = ", ".join(sorted(EMBEDDERS))
        raise UnknownEmbedderError(f"unknown embedder {name!r}; valid names: {valid}")
    with _instances_lock:
        if name in _instances:
            return _instances[name]
    embedder = EMBEDDERS[name]()  # outside the lock: a composite embedder makes its parts
    with _instances_lock:
        return _instances.setdefault(name, embedder)
