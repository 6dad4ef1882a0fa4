"""``bench extraction``: the rule extractor and the bank's decisions scored on labelled turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from hindsight_es.app.cli.common import console

_EXTRACTION_SETS = (
    "extraction_labelled.jsonl",
    "extraction_labelled_after.jsonl",
    "extraction_labelled_third.jsonl",
    "extraction_labelled_fourth.jsonl",
    "extraction_labelled_fifth.jsonl",
    "extraction_labelled_sixth.jsonl",
    "extraction_labelled_seventh.jsonl",
    "extraction_labelled_eighth.jsonl",
    "extraction_labelled_ninth.jsonl",
    "extraction_labelled_tenth.jsonl",
    "extraction_labelled_eleventh.jsonl",
    "extraction_labelled_twelfth.jsonl",
    "extraction_labelled_thirteenth.jsonl",
    "extraction_labelled_fourteenth.jsonl",
    "extraction_labelled_fifteenth.jsonl",
    "extraction_labelled_sixteenth.jsonl",
    "extraction_labelled_seventeenth.jsonl",
    "extraction_labelled_eighteenth.jsonl",
    "extraction_labelled_nineteenth.jsonl",
    "extraction_labelled_twentieth.jsonl",
    "extraction_labelled_twentyfirst.jsonl",
    "extraction_labelled_twentysecond.jsonl",
    "extraction_labelled_twentythird.jsonl",
    "extraction_labelled_twentyfourth.jsonl",
    "extraction_labelled_twentyfifth.jsonl",
    "extraction_labelled_twentysixth.jsonl",
    "extraction_labelled_twentyseventh.jsonl",
    "extraction_labelled_twentyeighth.jsonl",
    "extraction_labelled_twentyninth.jsonl",
    "extraction_labelled_thirtieth.jsonl",
    "extraction_labelled_thirtyfirst.jsonl",
    "extraction_labelled_thirtysecond.jsonl",
    "extraction_labelled_thirtythird.jsonl",
)


def extraction(
    data: Annotated[
        Optional[list[Path]],
        typer.Option(exists=True, dir_okay=False, help="Labelled JSONL sets (default: the shipped ones)"),
    ] = None,
    show_errors: Annotated[bool, typer.Option("--errors", help="Print each turn the pipeline got wrong")] = False,
) -> None:
    """Rule extraction on labelled turns: filler, key+value P/R/F1, supersession accuracy, statements."""
    from hindsight_es.app.bench import extraction as bench
    from hindsight_es.extraction import RuleExtractor

    shipped = Path(__file__).parent / "data"
    extractor = RuleExtractor()
    for path in data or [shipped / name for name in _EXTRACTION_SETS]:
        results = bench.run(extractor, bench.load(path))
        if show_errors:
            for wrong in bench.errors(results):
                typer.echo(json.dumps(wrong, ensure_ascii=False))
        scores = bench.by_language(results)
        table = Table(title=f"extraction {path.name} ({extractor.id})", title_justify="left")
        metrics = [
            ("turns", "turns"),
            ("kv_precision", "K+V P"),
            ("kv_recall", "K+V R"),
            ("kv_f1", "K+V F1"),
            ("key_recall", "key R"),
            ("keyless_recall", "plan R"),
            ("supersession_accuracy", "supersession"),
            ("filler_precision", "filler P"),
            ("filler_recall", "filler R"),
            ("statement_f1", "statement F1"),
            ("statement_length", "len/turn"),
        ]
        table.add_column("language")
        for _, title in metrics:
            table.add_column(title, justify="right")
        for lang, row in scores.items():
            cells = [str(int(row[m])) if m == "turns" else f"{row[m]:.3f}" for m, _ in metrics]
            table.add_row(f"{lang} ({int(row['supersession_turns'])} sup.)", *cells)
        console.print(table)
