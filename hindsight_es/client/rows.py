"""One memory as the client reads it back: its hot row with the scores the bank actor decided for it."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import field_validator

from hindsight_es.recall.models import MemoryView

SCORE_COLUMNS = ("importance", "confidence")


def stored_score(value: Any) -> float | None:
    """A score as it was decided, read back from the float32 the hot store keeps (0.6, not 0.6000000238418579)."""
    return None if value is None else float(str(np.float32(value)))


class MemoryRow(MemoryView):
    """A ``MemoryView`` with ``importance`` and ``confidence`` as the bank actor decided them: what one memory's
    read returns and a write's receipt lists (``Receipt.retained``), so a retain's answer carries them."""

    importance: float | None = None
    confidence: float | None = None

    _scores = field_validator(*SCORE_COLUMNS, mode="before")(stored_score)
