"""What an import says it left to the target's bank actor: inputs it appended that no memory event of the
file answers, a filler turn aside (it decides nothing); a second import appends and leaves nothing."""

from __future__ import annotations

from pathlib import Path

from hindsight_es.config import TOPIC_TURNS
from hindsight_es.events import TurnRecorded
from hindsight_es.events.memory import erased_text
from hindsight_es.history.transfer import Entry, import_entries
from hindsight_es.log.embedded import EmbeddedLog


async def test_an_import_counts_only_the_inputs_it_appended_and_left_undecided(tmp_path: Path) -> None:
    turns = [
        TurnRecorded(bank_id="b", session_id="s", turn_id="t1", text="thanks!"),
        TurnRecorded(bank_id="b", session_id="s", turn_id="t2", text="I live in Berlin."),
        # "ok thanks", erased: the file holds its placeholder, which decides nothing either
        TurnRecorded(
            bank_id="b",
            session_id="s",
            turn_id="t3",
            text=erased_text("operator", "2026-12-01T14:03:07+00:00", "user asked"),
            metadata={"erased_by": "operator", "erased_at": "2026-12-01T14:03:07+00:00", "erased_reason": "user asked"},
        ),
    ]
    entries = [Entry(TOPIC_TURNS, t) for t in turns]
    log = EmbeddedLog(tmp_path / "log.sqlite3", 2)
    await log.start()
    try:
        first = await import_entries(log, entries)
        assert first.undecided == 1  # Berlin; "thanks!" and the erased turn decide nothing
        again = await import_entries(log, entries)
        assert sum(again.appended.values()) == 0 and again.present == 3 and again.undecided == 0
    finally:
        await log.close()


def test_a_file_named_for_another_format_is_refused() -> None:
    import pytest

    from hindsight_es.errors import InvalidInputError
    from hindsight_es.history.transfer import file_format

    assert [file_format(Path(n)) for n in ("a.jsonl", "a.JSON", "a.ndjson", "a", "a.parquet", "a.pq")] == [
        "jsonl",
        "jsonl",
        "jsonl",
        "jsonl",
        "parquet",
        "parquet",
    ]
    assert file_format(Path("a.csv"), "jsonl") == "jsonl"  # named: as asked
    with pytest.raises(InvalidInputError, match="name the file .jsonl or .parquet"):
        file_format(Path("a.csv"))  # was written as JSON lines under a name that says CSV
