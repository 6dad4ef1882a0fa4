"""Read path: candidates, fusion, packing. No LLM."""

from hindsight_es.recall.fusion import rrf
from hindsight_es.recall.models import RecallHit
from hindsight_es.recall.search import build_filter, recall

__all__ = ["RecallHit", "build_filter", "recall", "rrf"]
