"""Offline sentence embedders behind one ``Embedder`` protocol; ``make_embedder(name)`` picks one.

The models themselves (``minilm``, ``use``, ``hybrid``) are imported when first made, not here.
"""

from hindsight_es.embedding.base import CrossScript, Embedder, vector_space
from hindsight_es.embedding.registry import EMBEDDERS, UnknownEmbedderError, make_embedder

__all__ = ["EMBEDDERS", "CrossScript", "Embedder", "UnknownEmbedderError", "make_embedder", "vector_space"]
