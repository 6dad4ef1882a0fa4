"""``demo``: a bilingual sample conversation through the real pipeline, then a few recalls."""

from __future__ import annotations

import time
from importlib import resources

from rich.table import Table

from hindsight_es.app.cli.common import console, runs_pipeline
from hindsight_es.app.cli.hits import relevance_cell, weak_caption
from hindsight_es.app.cli.jsonl import read_turns
from hindsight_es.app.gateway.models import hit_of
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

BANK = "demo"
QUERIES = [
    "which carrier do we ship with?",
    "what database do we use?",
    "快递用哪家？",
    "我对什么过敏？",
    "where is the new shop opening?",
]


async def run_demo(settings: Settings, *, tables: bool = True) -> dict[str, list[dict[str, object]]]:
    """Publish the sample, run the pipeline if no service does, and recall; returns the hits per query."""
    from streams.service import ServiceLock, catch_up_all

    sample = resources.files("hindsight_es.assets").joinpath("samples/demo.jsonl").read_bytes()
    turns, problems = read_turns(settings, sample.splitlines(), bank=BANK)
    assert not problems, problems  # the shipped sample is valid
    async with Hindsight(settings) as hs:
        started = time.perf_counter()
        published = f"published {len(turns)} turns to bank {BANK!r} ({settings.broker or settings.log_path})"
        lock = ServiceLock(settings)
        if runs_pipeline(settings, lock):
            try:
                await hs.publish(turns)
                console.print(published)
                n = await catch_up_all(settings, hs.log, embedder=hs.embedder)
            finally:
                lock.release()
            console.print(
                f"pipeline: {n} records through the bank actor and projections in {time.perf_counter() - started:.2f}s"
            )
        else:
            lock.release()
            # the running service decides and projects them: the recalls below wait for it, or they race it
            ready = await hs.publish(turns, wait=True)
            console.print(published)
            took = f"{time.perf_counter() - started:.2f}s"
            console.print(
                f"the service running on this data directory projected them in {took}"
                if ready
                else f"the service running on this data directory had not projected them after {took}: "
                "the recalls below may miss them"
            )
        found: dict[str, list[dict[str, object]]] = {}
        if tables:
            console.print(
                "[dim]Hits come best first by their fused evidence (meaning, words, time, speaker); relevance is "
                "each hit's own calibrated 0–1 score: a question whose best hit is below "
                f"{settings.min_relevance:g} gets no memories.[/dim]"
            )
        await hs.recall(BANK, QUERIES[0], limit=3)  # loads the query models: the timings below are a warm service's
        for query in QUERIES:
            t0 = time.perf_counter()
            hits = await hs.recall(BANK, query, limit=3)
            found[query] = [hit_of(h).model_dump(mode="json") for h in hits]  # the hits of HTTP's and MCP's recall
            if not tables:
                continue
            took = f"{query}   ({(time.perf_counter() - t0) * 1000:.1f} ms)"
            floor = settings.min_relevance
            table = Table(title=took, title_justify="left", caption=weak_caption(hits, floor), caption_justify="left")
            for column in ("relevance", "kind", "memory", "from turn"):
                table.add_column(column)
            for hit in hits:
                row = (relevance_cell(hit, floor), hit.kind, hit.text, ",".join(hit.source_turn_ids))
                table.add_row(*row, style="dim" if hit.relevance < floor else None)
            console.print(table)
        if tables:
            await _show_revision(hs, found)
    return found


REVISED = "what database do we use?"  # the sample corrects MySQL to PostgreSQL (turn s2-3)


async def _show_revision(hs: Hindsight, found: dict[str, list[dict[str, object]]]) -> None:
    """The correction's lineage: what the top memory for ``REVISED`` superseded, kept in its history."""
    from hindsight_es.app.cli.memory_commands import lineage_of

    top = found[REVISED][0] if found[REVISED] else None
    if top is None:
        return
    lineage = await lineage_of(hs, str(top["memory_id"]), BANK)
    if not lineage["supersedes"]:
        return
    turns = ",".join(str(t) for t in top["source_turn_ids"])  # type: ignore[attr-defined]
    console.print(f"\n{top['text']} (turn {turns}) superseded, kept in its history:")
    for old in lineage["supersedes"]:
        console.print(f"  [dim]{old['status']}[/dim]  {old['text']}  (turn {','.join(old['source_turn_ids'])})")
    console.print(f"the whole lineage: hindsight-es history {top['memory_id']}")
