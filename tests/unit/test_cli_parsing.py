"""The command line's parsers: times (``cli.times``), the bank either way (``cli.bank_arg``), the settings'
embedder, and what a failed start removes (``cli.fresh``)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import typer
from pydantic import ValidationError

from hindsight_es.app.cli.fresh import Fresh, undone_on_failure
from hindsight_es.app.cli.times import parse_when, read_time
from hindsight_es.config import EMBEDDER_NAMES, Settings
from hindsight_es.embedding import EMBEDDERS


@pytest.fixture
def zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """This process in a zone of its own for the test; restored after."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_a_time_without_a_zone_is_local_time_as_the_tables_print_it(zone: Callable[[str], None]) -> None:
    zone("Asia/Shanghai")
    utc = datetime(2026, 12, 6, 10, 16, 45, tzinfo=UTC)
    assert read_time("2026-12-06 18:16:45") == utc
    assert read_time("2026-12-06T18:16:45") == utc
    assert read_time("2026-12-06 18:16:45 CST") == utc  # the zone's name, as the tables print it
    assert read_time("2026-12-06 10:16:45 UTC") == utc
    assert read_time("2026-12-06T10:16:45Z") == utc
    assert read_time("2026-12-06T11:16:45+01:00") == utc
    assert read_time("2026-12-06") == datetime(2026, 12, 5, 16, tzinfo=UTC)  # local midnight
    assert parse_when("2026-12-06 18:16:45", "--as-of") == utc and parse_when(None, "--as-of") is None
    assert parse_when("2026-12-06 18:16:45", "--as-of").tzinfo is UTC  # type: ignore[union-attr]


def test_a_zone_with_summer_time_reads_both_of_its_names(zone: Callable[[str], None]) -> None:
    zone("Europe/Berlin")
    assert read_time("2026-07-01 12:00") == datetime(2026, 7, 1, 10, tzinfo=UTC)  # CEST in force
    assert read_time("2026-07-01 12:00 CEST") == datetime(2026, 7, 1, 10, tzinfo=UTC)
    assert read_time("2026-07-01 12:00 CET") == datetime(2026, 7, 1, 11, tzinfo=UTC)  # the name fixes the offset
    assert read_time("2026-12-06 12:00 CET") == datetime(2026, 12, 6, 11, tzinfo=UTC)


@pytest.mark.parametrize("value", ["yesterday", "2026-12-06 10:00 PST", "2026-12-06T10:00+01:00 CST", "12/06/2026"])
def test_other_forms_are_refused_with_the_forms_that_are_accepted(zone: Callable[[str], None], value: str) -> None:
    zone("Asia/Shanghai")
    with pytest.raises(typer.BadParameter) as refused:
        parse_when(value, "--since")
    message = str(refused.value)
    assert value in message and "ISO 8601" in message and "CST / UTC" in message and "local time" in message


def test_settings_refuse_an_unknown_embedder_naming_the_known_ones() -> None:
    assert set(EMBEDDER_NAMES) == set(EMBEDDERS)  # the settings check the registry's names
    with pytest.raises(ValidationError) as refused:
        Settings(embedder="foo")
    assert "unknown embedder 'foo'; valid names: hybrid, minilm, use" in str(refused.value)
    assert Settings(embedder="use").embedder == "use"


# ------------------------------------------------------------------ a failed start


def test_a_failed_start_removes_only_what_it_created(tmp_path: Path) -> None:
    made = tmp_path / "new" / "data"
    fresh = Fresh(Settings(data_dir=made))
    assert fresh.created == [tmp_path / "new"]  # the outermost directory it will create
    with pytest.raises(typer.Exit), undone_on_failure(fresh):
        fresh.own()
        made.mkdir(parents=True)
        (made / "keys.sqlite3").write_text("")
        raise typer.Exit(2)
    assert not (tmp_path / "new").exists() and tmp_path.exists()


def test_a_start_that_wrote_or_did_not_own_the_directory_removes_nothing(tmp_path: Path) -> None:
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "log.sqlite3").write_text("kept")
    assert Fresh(Settings(data_dir=existing)).created == []
    for step in ("keep", "no lock"):
        made = tmp_path / step
        fresh = Fresh(Settings(data_dir=made))
        with pytest.raises(RuntimeError), undone_on_failure(fresh):
            made.mkdir()
            if step == "keep":
                fresh.own()
                fresh.keep()
            raise RuntimeError("failed after writing, or beside another process")
        assert made.exists(), step
    made = tmp_path / "clean stop"
    fresh = Fresh(Settings(data_dir=made))
    with pytest.raises(typer.Exit), undone_on_failure(fresh):
        fresh.own()
        made.mkdir()
        raise typer.Exit(0)
    assert made.exists()
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    assert Fresh(Settings(data_dir=tmp_path / "dangling")).created == []  # a link is never ours


# ------------------------------------------------------------------ the bank, either way


def parsed(*args: str) -> dict[str, object]:
    """The parameters ``hindsight-es ARGS`` gives its command (not run): the leading words name it."""
    from hindsight_es.app.cli.main import Deferred, command

    found: object = command()
    words = list(args)
    while hasattr(found, "commands"):  # down the groups to the command
        found = found.commands[words.pop(0)]
        found = found.load() if isinstance(found, Deferred) else found
    return found.make_context("hindsight-es", words, resilient_parsing=True).params  # type: ignore[attr-defined]


def test_a_bank_argument_is_also_taken_as_bank_option_and_the_other_way() -> None:
    assert parsed("disputes", "reject", "--bank", "bob", "m1", "m2")["bank"] == "bob"
    assert parsed("disputes", "reject", "--bank", "bob", "m1")["memory_ids"] == ["m1"]
    assert parsed("disputes", "reject", "bob", "m1")["bank"] == "bob"
    assert parsed("owners", "show", "--bank=bob")["bank"] == "bob"
    assert parsed("forget", "--since", "2026-12-06", "--bank", "alice")["bank"] == "alice"
    assert parsed("recall", "--bank", "alice", "where do I live")["query"] == "where do I live"
    assert parsed("disputes", "list", "bob")["bank"] == "bob"
    assert parsed("disputes", "list", "--limit", "5", "bob")["bank"] == "bob"  # 5 is --limit's value
    assert parsed("quarantine", "list", "--json", "bob")["bank"] == "bob"
    assert parsed("erase", "bob", "--session", "s1", "--reason", "asked")["bank"] == "bob"
    assert parsed("replay", "state", "bob", "--as-of", "2026-12-06")["bank"] == "bob"
    export = parsed("replay", "export", "bob", "out.jsonl")
    assert export["bank"] == "bob" and str(export["file"]) == "out.jsonl"
    audit = parsed("replay", "audit", "8f0c2d4e-0000-0000-0000-000000000000")  # its argument: a memory id
    assert audit["bank"] is None and audit["memory_id"] == "8f0c2d4e-0000-0000-0000-000000000000"
    assert parsed("disputes", "list")["bank"] is None
