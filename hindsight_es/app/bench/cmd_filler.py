"""``bench filler``: the write filter on labelled turns, each alone: what it leaves out of memory.

Sets are JSONL of ``{"id", "lang", "text", "filler"}``: pleasantries, acknowledgements, greetings and reactions
(``filler: true``) beside short turns that carry something (``false``). The turn goes through the rule
extractor, as the bank actor's path does; filler is "no candidate at all". The shipped sets were written
blind, from a brief, by people who had not read the filter (``docs/benchmarks.md#write-filter``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.app.cli.common import console

_FILLER_SETS = ("filler_blind_a.jsonl", "filler_blind_b.jsonl", "filler_blind_c.jsonl")


def filler(
    data: Annotated[
        Optional[list[Path]],
        typer.Option(exists=True, dir_okay=False, help="Labelled JSONL sets (default: the shipped ones)"),
    ] = None,
    show_errors: Annotated[bool, typer.Option("--errors", help="Print each turn the filter got wrong")] = False,
) -> None:
    """The write filter on labelled turns: precision and recall of "nothing retained", per language."""
    from hindsight_es.extraction import RuleExtractor

    shipped = Path(__file__).parent / "data"
    extractor = RuleExtractor()
    for path in data or [shipped / name for name in _FILLER_SETS]:
        counts: Counter[tuple[str, bool, bool]] = Counter()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not {"lang", "text", "filler"} <= row.keys():
                raise typer.BadParameter(f"{path}:{n}: a turn needs lang, text and filler")
            left_out = not extractor.extract(row["text"])
            counts[(row["lang"], bool(row["filler"]), left_out)] += 1
            if show_errors and left_out != row["filler"]:
                wrong = "kept filler" if row["filler"] else "left out content"
                typer.echo(json.dumps({"id": row.get("id"), "wrong": wrong, "text": row["text"]}, ensure_ascii=False))
        table = Table(title=f"write filter {path.name} ({extractor.id})", title_justify="left")
        for column in ("language", "turns", "filler", "precision", "recall"):
            table.add_column(column, justify="left" if column == "language" else "right")
        for lang in sorted({k[0] for k in counts}):
            tp, fn = counts[(lang, True, True)], counts[(lang, True, False)]
            fp, tn = counts[(lang, False, True)], counts[(lang, False, False)]
            precision = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
            recall = f"{tp / (tp + fn):.3f}" if tp + fn else "-"
            table.add_row(lang, str(tp + fn + fp + tn), str(tp + fn), precision, recall)
        console.print(table)
