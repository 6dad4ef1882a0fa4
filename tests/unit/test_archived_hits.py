"""Archived hits: one per thing said, as hot recall gives them."""

from __future__ import annotations

import json
from typing import Any

from hindsight_es.recall.relevance import Scale, relevance
from hindsight_es.recall.scoped import archived_hits


def row(
    memory_id: str, kind: str, text: str, turn: str, quote: str | None = None, score: float = 0.5
) -> dict[str, Any]:
    payload = {"valid_from": "2026-11-29T11:30:00+00:00", "quote": quote}
    return {
        "score": score,
        "memory_id": memory_id,
        "kind": kind,
        "text": text,
        "source_turn_ids": [turn],
        "session_id": "s3",
        "payload": json.dumps(payload),
    }


def test_an_episode_said_all_by_its_turns_typed_memory_is_one_hit_at_the_better_rank() -> None:
    sentence = "Just for this chat, call me Captain."
    rows = [
        row("e1", "episode", sentence, "t5"),
        row("m2", "episode", "We went to the lake on Sunday.", "t1"),
        row("f1", "fact", "The user's name: Captain", "t5", quote=sentence),
    ]
    hits = archived_hits(rows, "alice")
    assert [(h.memory_id, h.status) for h in hits] == [("m2", "archived"), ("f1", "archived")]
    assert hits[1].score > hits[0].score  # the fact takes the episode's rank 1


def test_an_episode_that_says_more_than_its_typed_memory_stays() -> None:
    sentence = "I moved to Berlin and my sister just had twins, we are all thrilled about it."
    rows = [
        row("e1", "episode", sentence, "t1"),
        row("f1", "fact", "The user lives in Berlin", "t1", quote="I moved to Berlin"),
    ]
    assert [h.memory_id for h in archived_hits(rows, "alice")] == ["e1", "f1"]


def test_the_hit_an_episode_is_folded_into_shows_the_better_relevance_of_the_two() -> None:
    """As hot recall does: the fact ranks where its episode did, and is as relevant as the episode was."""
    sentence = "Just for this chat, call me Captain."
    rows = [
        row("e1", "episode", sentence, "t5", score=0.8),
        row("m2", "episode", "We went to the lake on Sunday.", "t1", score=0.6),
        row("f1", "fact", "The user's name: Captain", "t5", quote=sentence, score=0.2),
    ]
    on = (Scale(0.1, 0.1), 10)
    hits = {h.memory_id: h for h in archived_hits(rows, "alice", on)}
    assert set(hits) == {"m2", "f1"}
    assert hits["f1"].relevance == round(relevance(0.8, *on), 4) > hits["m2"].relevance
