"""``hindsight-es recall``: a table, or with ``--json`` the ``RecallResult`` the HTTP API and MCP answer.

A read of the stores (``common.reading``): on Kafka it answers with the broker down; what it served is
recorded after the answer is printed, or a line on stderr says it was not.
"""

from __future__ import annotations

import math
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from hindsight_es.app.cli.common import catch_up_if_idle, console, print_json, reading, record_served, run_async, shown
from hindsight_es.config import Settings
from hindsight_es.recall.context import source_label
from hindsight_es.recall.models import RecallHit


def answer(settings: Settings, bank: str, query: str, *, as_json: bool, **options: Any) -> None:
    """Recall, print the hits, then record what they served."""

    async def go() -> None:
        async with reading(settings) as hs:
            await catch_up_if_idle(hs, loading=query)
            hits = await hs.recall(bank, query, **options)
            floor = settings.min_relevance if options.get("min_relevance") is None else options["min_relevance"]
            if as_json:
                print_hits(bank, query, hits)
            elif hits:
                console.print(hits_table(bank, query, hits, floor))
            else:
                below = f" at relevance {floor:g} or more (--min-relevance 0 shows every hit)" if floor > 0 else ""
                console.print(f"no hits in bank {bank!r} for {query!r}{below}")
            await record_served(hs)

    run_async(go)


def relevance_cell(hit: RecallHit, floor: float) -> str:
    """A hit's relevance as the tables print it: in brackets under ``floor`` (``weak_caption`` says why), rounded
    down there, so 0.1899 under a floor of 0.19 reads "(0.18)", not "(0.19)"."""
    if hit.relevance < floor:
        return f"({math.floor(hit.relevance * 100) / 100:.2f})"
    return f"{hit.relevance:.2f}"


def weak_caption(hits: list[RecallHit], floor: float) -> str | None:
    """The line under a table with a hit under the floor, kept because a better hit of the answer reached it."""
    weak = any(h.relevance < floor for h in hits)
    return f"(in brackets: relevance under {floor:g}, listed beside a better hit)" if weak else None


def hits_table(bank: str, query: str, hits: list[RecallHit], floor: float = 0.0) -> Table:
    """Four columns, so the text keeps its width at 80 columns: where it came from, when and its status go on a
    dim line under it; the id is whole, to copy into forget, correct or history. A hit less relevant than
    ``floor`` is dim: it is no answer alone, and is listed because a better hit of the answer reached it."""
    table = Table(
        title=f"recall {bank!r}: {query}",
        caption=weak_caption(hits, floor),
        box=box.SIMPLE_HEAD,
        padding=(0, 0),
        pad_edge=False,
    )
    table.add_column("relev", no_wrap=True)
    table.add_column("kind", overflow="fold")
    table.add_column("memory", overflow="fold", ratio=1)
    table.add_column("id", no_wrap=True, min_width=36)
    for h in hits:
        status = h.status + (f" ({h.bank_id})" if h.bank_id not in (None, bank) else "")
        turns = ", ".join(h.source_turn_ids)
        details = f"{'turn' if len(h.source_turn_ids) == 1 else 'turns'} {turns} · " if turns else ""  # a correction's
        details += f"{shown(h.valid_from)} · {status}"
        if not h.trusted:  # as get_context labels it: a document's or a tool's text is not the user's word
            details = f"{source_label(h.provenance)}, unverified · {details}"
        details += f" · score {h.score:.4f}"
        table.add_row(
            relevance_cell(h, floor),
            h.kind,
            Text(h.text) + Text("\n") + Text(details, style="dim"),
            h.memory_id,
            style="dim" if h.relevance < floor else None,
        )
    return table


def print_hits(bank: str, query: str, hits: list[RecallHit]) -> None:
    """``recall --json``: the recall's ``RecallResult`` (``bank_id``, ``query``, ``hits``), as over HTTP and MCP."""
    from hindsight_es.app.gateway.models import hit_of
    from hindsight_es.remote.models import RecallResult

    print_json(RecallResult(bank_id=bank, query=query, hits=[hit_of(h) for h in hits]))
