"""Embedder names (``Settings.embedder``) -> the process-wide embedder; models load lazily."""

from __future__ import annotations

import threading
from collections.abc import Callable

from hindsight_es.embedding.base import Embedder
from hindsight_es.errors import ConfigError


class UnknownEmbedderError(ConfigError, ValueError):
    """An embedder name that is not in ``EMBEDDERS``."""


def _minilm() -> Embedder:
    from hindsight_es.embedding.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def _use() -> Embedder:
    from hindsight_es.embedding.use import USEEmbedder

    return USEEmbedder()


def _hybrid() -> Embedder:
    from hindsight_es.embedding.hybrid import HybridEmbedder

    return HybridEmbedder(make_embedder("minilm"), make_embedder("use"))


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
