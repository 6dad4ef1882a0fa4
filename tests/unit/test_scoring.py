"""Query parsing and rescoring: names and times in the query reorder candidates, never add any."""

from __future__ import annotations

from datetime import UTC, datetime

from hindsight_es.recall.query import parse_query, without_names
from hindsight_es.recall.scoring import rescore

NOW = datetime(2023, 11, 1, tzinfo=UTC)


def test_parse_query_finds_names_time_and_script():
    q = parse_query("What did Melanie's kids paint in October 2023?", NOW)
    assert q.names == {"melanie", "october"} and not q.cjk
    assert (q.since, q.until) == (datetime(2023, 10, 1, tzinfo=UTC), datetime(2023, 11, 1, tzinfo=UTC))
    zh = parse_query("我上个月去了哪里？", NOW)
    assert zh.cjk and zh.since == datetime(2023, 10, 1, tzinfo=UTC) and not zh.names


def test_speaker_named_in_the_query_is_preferred():
    rows = {"a": {"speaker": "Caroline"}, "b": {"speaker": "Melanie Smith"}}
    fused = [("a", 0.10), ("b", 0.08)]
    assert [m for m, _ in rescore(fused, rows, parse_query("What does Mel like?", NOW))] == ["b", "a"]
    assert [m for m, _ in rescore(fused, rows, parse_query("what does she like?", NOW))] == ["a", "b"]


def test_memories_inside_the_time_range_are_preferred():
    rows = {
        "old": {"valid_from": datetime(2023, 3, 5, tzinfo=UTC)},
        "oct": {"valid_from": datetime(2023, 10, 13, tzinfo=UTC)},
    }
    out = rescore([("old", 0.10), ("oct", 0.06)], rows, parse_query("what happened in October 2023", NOW))
    assert [m for m, _ in out] == ["oct", "old"] and len(out) == 2


def test_without_names_drops_only_the_given_names():
    names = frozenset({"lin", "mel"})
    assert without_names("When does Lin open the Shanghai store?", names) == "When does open the Shanghai store?"
    assert without_names("Is Mel's dog still with Lin?", names) == "Is dog still with ?"
    assert without_names("Lin 对什么过敏？", names) == "对什么过敏？"
    assert without_names("Lin", names) == ""
    assert without_names("Linda and lin", names) == "Linda and lin"  # whole capitalised words only
