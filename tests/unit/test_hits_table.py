"""The CLI's recall table: a hit under the floor, kept because a better hit of the answer reached it, is marked."""

from __future__ import annotations

from datetime import UTC, datetime

from rich.console import Console

from hindsight_es.app.cli.hits import hits_table
from hindsight_es.recall.models import RecallHit


def hit(i: int, text: str, relevance: float) -> RecallHit:
    return RecallHit(
        memory_id=f"00000000-0000-0000-0000-{i:012d}",
        kind="fact",
        text=text,
        score=1 / (i + 1),
        relevance=relevance,
        source_turn_ids=[f"t{i}"],
        session_id="s1",
        speaker=None,
        key=None,
        valid_from=datetime(2026, 3, 2, tzinfo=UTC),
    )


def rendered(hits: list[RecallHit], floor: float) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(hits_table("b", "what am I allergic to?", hits, floor))
    return console.export_text()


def test_hits_under_the_floor_show_their_relevance_in_brackets_with_a_caption() -> None:
    out = rendered([hit(1, "Lin is allergic to peanuts", 0.73), hit(2, "Lin's courier: SF Express", 0.02)], 0.19)
    assert " 0.73 " in out and "(0.02)" in out and "(0.73)" not in out
    assert "in brackets: relevance under 0.19" in out


def test_no_caption_when_every_hit_reaches_the_floor_or_the_floor_is_off() -> None:
    hits = [hit(1, "Lin is allergic to peanuts", 0.73), hit(2, "Lin's courier: SF Express", 0.02)]
    assert "in brackets" not in rendered(hits[:1], 0.19)
    off = rendered(hits, 0.0)
    assert "in brackets" not in off and "(0.02)" not in off
