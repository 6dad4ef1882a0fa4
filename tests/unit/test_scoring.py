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


def _turn(session: str, minute: int, speaker: str, text: str, kind: str = "episode") -> dict:
    return {"session_id": session, "valid_from": datetime(2023, 10, 1, 12, minute, tzinfo=UTC), "speaker": speaker,
            "text": text, "kind": kind}  # fmt: skip


def test_an_answer_inherits_part_of_the_question_it_answers():
    """ "October 10th to the 20th." names neither Rome nor the trip; the question before it does."""
    rows = {
        "other": _turn("s1", 0, "Sofia", "Rome in the fall would be amazing, I've always wanted to go."),
        "booked": _turn("s1", 1, "Sofia", "I booked my flights to Rome this morning!"),
        "when": _turn("s1", 2, "Jamal", "Yes! When are you going?"),
        "dates": _turn("s1", 3, "Sofia", "October 10th to the 20th. Ten whole days."),
    }
    fused = [("booked", 0.30), ("when", 0.20), ("other", 0.14), ("dates", 0.12)]
    order = [m for m, _ in rescore(fused, rows, parse_query("How long was the trip to Rome?", NOW))]
    assert order.index("dates") < order.index("other")
    assert sorted(order) == sorted(rows)  # reordered, never added or removed


def test_only_a_question_by_someone_else_just_before_passes_its_score_on():
    query = parse_query("How long was the trip?", NOW)
    said = {"q": _turn("s1", 1, "Jamal", "When are you going?"), "a": _turn("s1", 2, "Sofia", "The 10th to the 20th.")}
    other = {"x": _turn("s1", 0, "Sofia", "What a trip that was")}  # one session: one session boost
    fused = [("q", 0.20), ("x", 0.15), ("a", 0.12)]

    def order(rows: dict) -> list[str]:
        return [m for m, _ in rescore(fused, rows, query)]

    assert order(said | other).index("a") < order(said | other).index("x")
    statement = {**said, "q": {**said["q"], "text": "I am going soon."}}  # a statement before: nothing passed on
    same_speaker = {**said, "q": {**said["q"], "speaker": "Sofia"}}  # one asking and answering herself
    late = {**said, "a": _turn("s1", 59, "Sofia", "The 10th to the 20th.")}  # an hour later: no reply to it
    for rows in (statement, same_speaker, late):
        assert order(rows | other) == ["q", "x", "a"]


def test_a_question_about_now_prefers_what_changed():
    """ "现在…" / "now" is answered by the latest word on its topic: the memory that says what changed ranks
    above the first plan it revises, which matches more of the question's words; others keep their order."""
    rows = {
        "plan": {"text": "刘洋约我下周六去打羽毛球"},
        "moved": {"text": "羽毛球改到周日了，周六他要去试婚纱"},
        "other": {"text": "刘洋是我新来的同事"},
    }
    fused = [("plan", 0.10), ("moved", 0.09), ("other", 0.085)]
    assert [m for m, _ in rescore(fused, rows, parse_query("跟刘洋打羽毛球现在是什么安排？", NOW))] == [
        "moved",
        "plan",
        "other",
    ]
    unmarked = rescore(fused, rows, parse_query("跟刘洋打羽毛球是什么安排？", NOW))
    assert [m for m, _ in unmarked] == ["plan", "moved", "other"]
    en = {"a": {"text": "I take the 7:40 train to work."}, "b": {"text": "I switched to the 8:15 train last week."}}
    order = rescore([("a", 0.10), ("b", 0.085)], en, parse_query("Which train do I take now?", NOW))
    assert [m for m, _ in order] == ["b", "a"]


def test_a_user_and_the_assistant_are_two_parties_without_speaker_names():
    """An agent's turns carry no speaker: the user's answer to the assistant's question is a reply all the same."""
    query = parse_query("How long was the trip?", NOW)
    rows = {
        "q": {**_turn("s1", 1, "", "When are you going?"), "speaker": None, "source": "assistant"},
        "x": {**_turn("s1", 0, "", "What a trip that was"), "speaker": None, "source": "user"},
        "a": {**_turn("s1", 2, "", "The 10th to the 20th."), "speaker": None, "source": "user"},
    }
    order = [m for m, _ in rescore([("q", 0.20), ("x", 0.15), ("a", 0.12)], rows, query)]
    assert order.index("a") < order.index("x")


def test_a_short_question_is_one_hit_with_its_answer():
    from hindsight_es.recall.scoring import bridges

    rows = {
        "trip": _turn("s1", 0, "Sofia", "I booked my flights to Rome this morning!"),
        "when": _turn("s1", 1, "Jamal", "Lovely! When?!"),
        "dates": _turn("s1", 2, "Sofia", "October 10th to the 20th."),
        "long": _turn("s1", 3, "Jamal", "Are you going to visit the Vatican museums while you are there?"),
        "yes": _turn("s1", 4, "Sofia", "Yes, on the 12th."),
    }
    fused = [(m, 0.1) for m in rows]
    assert bridges(fused, rows) == {"when": "dates"}  # a question that names its topic is a hit of its own
    assert bridges([m for m in fused if m[0] != "dates"], rows) == {}  # without its answer it stays
    assert bridges(fused, {**rows, "dates": {**rows["dates"], "speaker": "Jamal"}}) == {}  # asking himself
