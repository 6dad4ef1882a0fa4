"""``stats``: the table of ``Reader.stats`` (per-bank memory counts by status, turns, and positions of
the log and its readers). ``hot`` counts the rows of the LanceDB table (any status); ``archived``
memories are out of it, in the Parquet archive; ``forgotten`` and ``retracted`` count both sides; ``erased``
memories are in neither (their history stays in the archive): a line under the table.
The counts are the stores'; only the log's ends need the log, so with the broker down they are
``null`` (and a line on stderr says why) and the rest is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table

from hindsight_es.app.cli.common import catch_up_if_idle, console, err_console
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight


async def collect(hs: Hindsight) -> dict[str, Any]:
    """``Reader.stats``, with ``log_end_offsets`` None when the log cannot be reached."""
    from hindsight_es.errors import LogError

    await catch_up_if_idle(hs)
    report = await hs.reader.store_stats()
    try:
        ends: dict[str, int] | None = await hs.reader.log_ends()
    except LogError as exc:
        err_console.print(f"note: the log's ends are not shown: {exc}", highlight=False)
        ends = None
    return {"banks": report["banks"], "log_end_offsets": ends, **report}


HEADERS = {"superseded": "super-\nseded", "quarantined": "quaran-\ntined"}


# The topics each hot table projects (``projections.vectors``, ``projections.working_memory``): caught up, its
# position is the sum of their records in the log table above.
READS = {"memories": "hindsight.memories", "turns": "hindsight.turns + hindsight.memories, for erasures"}


def render(report: dict[str, Any]) -> None:
    if not report["banks"]:
        console.print("no bank yet: nothing has been recorded (publish turns, or run `hindsight-es demo`)")
    # Every status a row of the hot table can have, after ``hot``, then the archived ones (out of it).
    statuses = ["hot", "active", "superseded", "disputed", "quarantined", "forgotten", "retracted", "archived", "turns"]
    # one space between columns and no borders: every header whole and the bank ids readable at 80 columns
    table = Table(title="banks", box=box.SIMPLE_HEAD, padding=(0, 0), pad_edge=False)
    table.add_column("bank", overflow="fold")
    for status in statuses:
        header = HEADERS.get(status, status)  # the long ones on two lines, so bank ids keep room at 80 columns
        width = max(len(line) for line in header.splitlines())
        table.add_column(header, justify="right", min_width=width, no_wrap=True)  # headers never cut
    for bank, counts in report["banks"].items():
        table.add_row(bank, *(str(counts.get(s, 0)) for s in statuses))
    console.print(table)
    # Erased memories are in no store but their history: a line, not a column (the table fits 80 columns).
    erased = {bank: counts["erased"] for bank, counts in report["banks"].items() if "erased" in counts}
    if erased:
        console.print(
            "erased (content destroyed; `replay audit` shows the erasure): "
            + ", ".join(f"{bank} {plural(n, 'memory', 'memories')}" for bank, n in erased.items()),
            highlight=False,
        )
    if report["log_end_offsets"] is not None:  # None: the log could not be reached (said on stderr)
        log_table = Table(title="log")
        log_table.add_column("topic")
        log_table.add_column("records", justify="right")
        for topic, n in report["log_end_offsets"].items():
            log_table.add_row(topic, str(n))
        console.print(log_table)
    # Positions count log records applied to each table, of every topic it reads (the turns table also reads
    # the memory topic, for erasures), so they are not the turn counts above: the line says so.
    positions = report["projection_positions"]
    applied = ", ".join(f"{k} table {v} (of {READS.get(k, 'the log')})" for k, v in positions.items())
    console.print(f"log records each table has applied, not rows: {applied}", highlight=False)
    if report.get("llm_extraction"):
        usage = Table(title="LLM extraction")
        for column in (
            "bank",
            "model",
            "prompt",
            "batches",
            "turns",
            "calls",
            "prompt tokens",
            "completion tokens",
            "failed",
        ):
            usage.add_column(column)
        for bank, rows in report["llm_extraction"].items():
            for r in rows:
                usage.add_row(
                    bank,
                    r["model"],
                    r["prompt_version"],
                    *(str(r[k]) for k in ("batches", "turns", "calls", "prompt_tokens", "completion_tokens", "failed")),
                )
        console.print(usage)
