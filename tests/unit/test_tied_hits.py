"""Tied fused scores go to the more relevant hit, not to the order the lists were fused in."""

from __future__ import annotations

import json

from hindsight_es.recall.scoped import archived_hits, merge


def _hits(texts: list[str]):  # type: ignore[no-untyped-def]
    rows = [
        {
            "memory_id": f"m{i}",
            "kind": "fact",
            "text": text,
            "source_turn_ids": [f"t{i}"],
            "session_id": "s1",
            "payload": json.dumps({"valid_from": "2026-11-29T11:30:00+00:00"}),
        }
        for i, text in enumerate(texts)
    ]
    return archived_hits(rows, "alice")


def test_a_tie_goes_to_the_more_relevant_hit_and_the_score_still_decides_first() -> None:
    a, b, c = _hits(["first fused", "second fused", "best score"])
    a = a.model_copy(update={"score": 0.5, "relevance": 0.2, "bank_id": "alice"})
    b = b.model_copy(update={"score": 0.5, "relevance": 0.9, "bank_id": "alice"})
    c = c.model_copy(update={"score": 0.6, "relevance": 0.1, "bank_id": "alice"})
    assert [h.text for h in merge([a, b, c], "alice", None, {}, 10)] == ["best score", "second fused", "first fused"]
    # equal relevance too: the order given stands
    b = b.model_copy(update={"relevance": 0.2})
    assert [h.text for h in merge([a, b], "alice", None, {}, 10)] == ["first fused", "second fused"]
