"""``hindsight-es bench filler``: its blind sets ship and parse, and it scores the filter as labelled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hindsight_es.app.bench import cmd_filler

DATA = Path(cmd_filler.__file__).parent / "data"


def test_every_default_set_ships_balanced_and_labelled():
    for name in cmd_filler._FILLER_SETS:
        turns = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line]
        assert len({t["id"] for t in turns}) == len(turns), name
        for lang in ("en", "zh"):
            labels = [t["filler"] for t in turns if t["lang"] == lang]
            assert labels.count(True) == labels.count(False) > 0, (name, lang)


def test_the_bench_prints_precision_and_recall_per_language(tmp_path: Path):
    data = tmp_path / "set.jsonl"
    rows = [
        {"id": "1", "lang": "en", "text": "thanks so much!", "filler": True},
        {"id": "2", "lang": "en", "text": "thanks, I moved to Oslo", "filler": False},
        {"id": "3", "lang": "en", "text": "I moved to Oslo", "filler": True},  # labelled wrong on purpose
        {"id": "4", "lang": "zh", "text": "好的谢谢", "filler": True},
    ]
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "bench", "filler", "--data", str(data), "--errors"]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "120"}).stdout
    assert '"id": "3", "wrong": "kept filler"' in out
    en = next(line for line in out.splitlines() if "│ en" in line).split("│")
    zh = next(line for line in out.splitlines() if "│ zh" in line).split("│")
    assert [c.strip() for c in en[2:6]] == ["3", "2", "1.000", "0.500"]
    assert [c.strip() for c in zh[2:6]] == ["1", "1", "1.000", "1.000"]
