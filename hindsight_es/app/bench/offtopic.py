"""Off-topic probes: questions asked in a bank where nothing answers them (another bank's questions).

A probe is empty when ``get_context`` (a fresh session, so no recent turns) brings no long-term
memory: what a relevance floor should give for a question about something never said.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.app.cli.common import console
from hindsight_es.client import Hindsight

SESSION = "bench-off-topic"  # a session with no turns: the block holds long-term memories or nothing

# ``--min-relevance`` of the benches that print an off-topic share (``bench locomo``, ``bench banks``)
FloorOption = Annotated[
    Optional[float], typer.Option(help="The floor when on (default HINDSIGHT_MIN_RELEVANCE)", min=0, max=1)
]


async def empty_share(
    hs: Hindsight,
    probes: Sequence[tuple[str, str]],
    *,
    min_relevance: float | None = None,
    on_probe: Callable[[dict], None] | None = None,
) -> dict[str, float]:
    """The share of ``probes`` (bank, question) whose context has no long-term memory, and their count."""
    empty = 0
    for bank, question in probes:
        block = await hs.context(bank, SESSION, question, min_relevance=min_relevance)
        empty += not block.memory_ids
        if on_probe:
            on_probe({"bank": bank, "question": question, "memories": len(block.memory_ids)})
    return {"n": len(probes), "empty": empty / max(len(probes), 1)}


async def off_topic_report(
    hs: Hindsight, probes: list[tuple[str, str]], floors: dict[str, tuple[float, dict[str, dict[str, float]]]]
) -> list[dict]:
    """One row per floor: in-bank recall (already measured) and the share of empty off-topic probes."""
    rows = []
    for name, (floor, results) in floors.items():
        empty = await empty_share(hs, probes, min_relevance=floor)
        overall = results["overall"]
        rows.append({"floor": name, **{m: overall[m] for m in OFF_TOPIC_METRICS if m in overall}, **empty})
    return rows


OFF_TOPIC_METRICS = ("R@1", "R@3", "R@5", "R@10", "Full@10")


def print_off_topic(title: str, rows: list[dict], as_json: bool = False) -> None:
    if as_json:
        print(json.dumps({"title": title, "off_topic": rows}))
        return
    metrics = [m for m in OFF_TOPIC_METRICS if m in rows[0]]
    table = Table(title=title, title_justify="left")
    for column in ("floor", *metrics, "off-topic probes", "empty"):
        table.add_column(column, justify="left" if column == "floor" else "right")
    for row in rows:
        table.add_row(row["floor"], *(f"{row[m]:.3f}" for m in metrics), str(row["n"]), f"{row['empty']:.3f}")
    console.print(table)


# ---- fitting the floor on one set and checking it on another ----------------------------------------
# A floor only removes whole answers, so its effect on a set follows from each question's best relevance
# with the floor off: R@10(t) = mean of R@10 over the questions whose best reaches t (the others score 0),
# and the off-topic share empty at t is that of the probes whose best is below t.
GRID = tuple(i / 100 for i in range(1, 100))
BUDGET = 0.01  # the in-bank R@10 a floor may cost on the set it is fitted on


async def best_relevance(hs: Hindsight, probes: Sequence[tuple[str, str]]) -> list[float]:
    """The best hit's relevance for each probe (bank, question), the floor off."""
    out = []
    for bank, question in probes:
        hits = await hs.recall(bank, question, limit=20, min_relevance=0.0)
        out.append(max((h.relevance for h in hits), default=0.0))
    return out


def at_floor(answered: Sequence[dict], probes: Sequence[float], floor: float) -> dict[str, float]:
    """In-bank R@10 and Full@10 with ``floor``, and the share of off-topic ``probes`` left empty."""
    n = max(len(answered), 1)
    return {
        "R@10": sum(r["R@10"] for r in answered if r["best"] >= floor) / n,
        "Full@10": sum(r["Full@10"] for r in answered if r["best"] >= floor) / n,
        "empty": sum(best < floor for best in probes) / max(len(probes), 1),
    }


def fit(answered: Sequence[dict]) -> float:
    """The highest floor of ``GRID`` that costs at most ``BUDGET`` R@10 on ``answered``."""
    base = at_floor(answered, [], 0.0)["R@10"]
    return max((t for t in GRID if base - at_floor(answered, [], t)["R@10"] <= BUDGET), default=0.0)


def print_cross_fit(title: str, sets: dict[str, tuple[list[dict], list[float]]], default: float) -> None:
    """For each set: the floor fitted on it, and what that floor and ``default`` give on every set."""
    table = Table(title=title, title_justify="left")
    for column in ("floor", "fitted on", "measured on", "R@10 off", "R@10 on", "Full@10 on", "off-topic empty"):
        names = column in ("fitted on", "measured on")
        table.add_column(column, justify="left" if names else "right", overflow="fold" if names else "ellipsis")
    floors = {name: fit(answered) for name, (answered, _) in sets.items()}
    for fitted_on, floor in [*floors.items(), ("(default)", default)]:
        for name, (answered, probes) in sets.items():
            off, on = at_floor(answered, probes, 0.0), at_floor(answered, probes, floor)
            cells = (f"{off['R@10']:.3f}", f"{on['R@10']:.3f}", f"{on['Full@10']:.3f}", f"{on['empty']:.3f}")
            table.add_row(f"{floor:.2f}", fitted_on, name, *cells)
    console.print(table)
