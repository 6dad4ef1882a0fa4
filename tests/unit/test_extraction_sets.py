"""The labelled extraction sets ``hindsight-es bench extraction`` runs by default ship with the package and parse."""

from __future__ import annotations

import json
from pathlib import Path

from hindsight_es.app.bench import cmd_extraction

DATA = Path(cmd_extraction.__file__).parent / "data"


def test_every_default_set_ships_and_each_turn_is_labelled():
    for name in cmd_extraction._EXTRACTION_SETS:
        lines = (DATA / name).read_text(encoding="utf-8").splitlines()
        turns = [json.loads(line) for line in lines if line.strip()]
        assert turns, name
        ids = {t["id"] for t in turns}
        assert len(ids) == len(turns), name
        for t in turns:
            assert {"id", "seq", "lang", "text", "filler", "memories", "supersedes"} <= t.keys(), (name, t["id"])
            assert set(t["supersedes"]) <= ids, (name, t["id"])
