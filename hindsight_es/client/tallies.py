"""What ``stats`` counts from the stores, without the log (``Reader.store_stats``)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from hindsight_es.stores.filters import MemoryFilter, TurnFilter

if TYPE_CHECKING:
    from hindsight_es.client.connection import Stores


def store_counts(stores: Stores) -> dict[str, Any]:
    """Every bank's memory counts by status, turns, projection positions and LLM usage, from the stores alone
    (``Reader.stats`` without the log's ends; blocking: call from a thread)."""
    memories = stores.lance.scan("memories", MemoryFilter(statuses=None), ["bank_id", "status"])
    turns = stores.lance.scan("turns", TurnFilter(), ["bank_id"])
    banks: dict[str, dict[str, int]] = {}
    if memories.num_rows:
        for (bank, status), n in Counter(
            zip(memories.column("bank_id").to_pylist(), memories.column("status").to_pylist(), strict=True)
        ).items():
            banks.setdefault(bank, {})[status] = n
    for counts in banks.values():
        counts["hot"] = sum(counts.values())
    for row in stores.archive.cold_memories():  # archived out of the hot table (and changed there since)
        counts = banks.setdefault(row["bank_id"], {})
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    for bank, n in stores.archive.erased_counts().items():  # out of both; a bank all erased stays listed
        banks.setdefault(bank, {})["erased"] = n
    if turns.num_rows:
        for bank, n in Counter(turns.column("bank_id").to_pylist()).items():
            banks.setdefault(bank, {})["turns"] = n
    projected = {name: sum(stores.lance.positions(name).values()) for name in ("memories", "turns")}
    extraction = stores.archive.extraction_usage_by_bank()
    return {
        "banks": dict(sorted(banks.items())),
        "projection_positions": projected,
        "llm_extraction": extraction,
    }
