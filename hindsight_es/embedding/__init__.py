"""Offline sentence embedders behind one ``Embedder`` protocol; ``make_embedder(name)`` picks one."""

from hindsight_es.embedding.base import EMBEDDERS, Embedder, UnknownEmbedderError, make_embedder
from hindsight_es.embedding.minilm import MiniLMEmbedder
from hindsight_es.embedding.use import USEEmbedder

__all__ = [
    "EMBEDDERS",
    "Embedder",
    "MiniLMEmbedder",
    "USEEmbedder",
    "UnknownEmbedderError",
    "make_embedder",
]
