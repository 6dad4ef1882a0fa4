"""``stats``: per-bank memory counts by status, turns, and positions of the log and its readers.

``hot`` counts the rows of the LanceDB table (any status); ``archived`` memories are out of it, in the
Parquet archive; ``forgotten`` and ``retracted`` count both sides.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.table import Table

from hindsight_es.cli.common import console
from hindsight_es.client import Hindsight
from hindsight_es.config import ALL_TOPICS
from hindsight_es.stores.lance import POSITION_BANK, quote


async def collect(hs: Hindsight) -> dict[str, Any]:
    not_positions = f"bank_id != {quote(POSITION_BANK)}"
    memories = hs.store.scan("memories", not_positions, ["bank_id", "status"])
    turns = hs.store.scan("turns", not_positions, ["bank_id"])
    banks: dict[str, dict[str, int]] = {}
    if memories.num_rows:
        for (bank, status), n in Counter(zip(memories.column("bank_id").to_pylist(),
                                             memories.column("status").to_pylist())).items():
            banks.setdefault(bank, {})[status] = n
    for bank, counts in banks.items():
        counts["hot"] = sum(counts.values())  # every row of the hot table, whatever its status
    for row in hs.archive.cold_memories():  # archived out of the hot table (and forgotten or retracted there since)
        counts = banks.setdefault(row["bank_id"], {})
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    if turns.num_rows:
        for bank, n in Counter(turns.column("bank_id").to_pylist()).items():
            banks.setdefault(bank, {})["turns"] = n
    log_ends = {topic: sum((await hs.log.end_offsets(topic)).values()) for topic in ALL_TOPICS}
    projected = {name: sum(hs.store.positions(name).values()) for name in ("memories", "turns")}
    extraction = {bank: rows for bank in sorted(banks) if (rows := hs.archive.extraction_usage(bank))}
    return {"banks": dict(sorted(banks.items())), "log_end_offsets": log_ends, "projection_positions": projected,
            "llm_extraction": extraction}


def render(report: dict[str, Any]) -> None:
    statuses = ["hot", "active", "superseded", "forgotten", "archived", "quarantined", "retracted", "turns"]
    table = Table(title="banks")
    table.add_column("bank")
    for status in statuses:
        table.add_column(status, justify="right")
    for bank, counts in report["banks"].items():
        table.add_row(bank, *(str(counts.get(s, 0)) for s in statuses))
    console.print(table)
    log_table = Table(title="log")
    log_table.add_column("topic")
    log_table.add_column("records", justify="right")
    for topic, n in report["log_end_offsets"].items():
        log_table.add_row(topic, str(n))
    console.print(log_table)
    console.print("projected records: " + ", ".join(f"{k}={v}" for k, v in report["projection_positions"].items()))
    if report.get("llm_extraction"):
        usage = Table(title="LLM extraction")
        for column in ("bank", "model", "prompt", "batches", "turns", "calls", "prompt tokens", "completion tokens",
                       "failed"):
            usage.add_column(column)
        for bank, rows in report["llm_extraction"].items():
            for r in rows:
                usage.add_row(bank, r["model"], r["prompt_version"], *(str(r[k]) for k in (
                    "batches", "turns", "calls", "prompt_tokens", "completion_tokens", "failed")))
        console.print(usage)
