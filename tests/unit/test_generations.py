"""The store pointer (``current.json``) and export files: what readers open, what a file may hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.errors import InvalidInputError, StoreError
from hindsight_es.events import TurnRecorded, encode
from hindsight_es.history import read_export
from hindsight_es.stores import generations
from hindsight_es.stores.generations import store_path


def test_without_a_pointer_the_stores_are_at_their_first_location(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert (store_path(settings.data_dir, "lance"), store_path(settings.data_dir, "archive")) == (
        tmp_path / "lance",
        tmp_path / "archive",
    )
    assert generations.unused(tmp_path) == []


def test_a_switch_moves_only_the_stores_named_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "lance").mkdir()
    gen_id, root = generations.new_generation(tmp_path)
    (root / "lance").mkdir()
    before = generations.switch(tmp_path, {"lance": root / "lance"})
    settings = Settings(data_dir=tmp_path)
    assert (
        store_path(settings.data_dir, "lance") == root / "lance"
        and store_path(settings.data_dir, "archive") == tmp_path / "archive"
    )
    assert before["lance"] == tmp_path / "lance"
    pointer = json.loads((tmp_path / "current.json").read_text())
    assert pointer["stores"]["lance"] == f"generations/{gen_id}/lance"  # relative: the directory can move
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp file left
    assert generations.unused(tmp_path) == [tmp_path / "lance"]
    assert generations.generation_stores(tmp_path, gen_id) == {"lance": root / "lance"}
    generations.remove(generations.unused(tmp_path), tmp_path)
    assert not (tmp_path / "lance").exists() and (root / "lance").is_dir()


def test_unknown_generations_and_a_broken_pointer_are_named(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no generation 'nope'"):
        generations.generation_stores(tmp_path, "nope")
    with pytest.raises(StoreError, match="no generation"):
        generations.generation_stores(tmp_path, "../..")
    (tmp_path / "current.json").write_text("{not json")
    with pytest.raises(StoreError, match="cannot read the store pointer"):
        generations.current(tmp_path)


def test_an_export_names_its_first_bad_line(tmp_path: Path) -> None:
    turn = TurnRecorded(bank_id="alice", session_id="s", turn_id="t", text="hi")
    good = json.dumps({"topic": TOPIC_TURNS, "key": "alice", "value": json.loads(encode(turn))})
    path = tmp_path / "bank.jsonl"
    for bad, reason in [
        ("{", "line 2: not JSON"),
        (json.dumps({"topic": TOPIC_TURNS, "value": {}}), "line 2: expected an object with exactly topic, key"),
        (good.replace(TOPIC_TURNS, "elsewhere"), "line 2: topic 'elsewhere' is not one of"),
        (good.replace(TOPIC_TURNS, TOPIC_MEMORIES), "line 2: a TurnRecorded does not belong on hindsight.memories"),
        (good.replace('"key": "alice"', '"key": "bob"'), "line 2: key 'bob' is not the event's bank 'alice'"),
        (good.replace('"text": "hi"', '"text": 5'), "line 2: invalid TurnRecorded: TurnRecorded.text"),
    ]:
        path.write_text(f"{good}\n{bad}\n")
        with pytest.raises(InvalidInputError, match=reason):
            read_export(path)
    path.write_text(f"{good}\n\n{good}\n")
    assert [e.event.event_id for e in read_export(path)] == [turn.event_id] * 2
