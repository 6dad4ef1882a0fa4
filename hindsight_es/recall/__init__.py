"""Read path: candidates, fusion, packing. No LLM.

The names below load their module on first use: the bank state imports ``recall.indexing``, and must
not pull in the searches and LanceDB with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight_es.recall.fusion import rrf as rrf
    from hindsight_es.recall.models import RecallHit as RecallHit
    from hindsight_es.recall.search import recall as recall

_MODULE_OF = {"rrf": "fusion", "RecallHit": "models", "recall": "search"}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
