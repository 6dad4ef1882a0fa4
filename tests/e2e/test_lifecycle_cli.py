"""The forgetting lifecycle from the shell: janitor, recall --include-archived, restore, forget by query
(with its confirmation), by session and by time range, end-session, stats. Real processes, no service
running (each command runs the pipeline itself)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.e2e.test_cli import cli, flat, no_traceback, stats_json

TURNS = [
    {
        "session_id": "s1",
        "turn_id": "t1",
        "text": "We went to the lake on Sunday.",
        "occurred_at": "2025-01-05T10:00:00Z",
    },
    {"session_id": "s1", "turn_id": "t2", "text": "I'm allergic to peanuts.", "occurred_at": "2025-01-05T10:01:00Z"},
    {
        "session_id": "s2",
        "turn_id": "t3",
        "text": "The quarterly report is almost finished.",
        "occurred_at": "2026-11-20T09:00:00Z",
    },
    {
        "session_id": "s2",
        "turn_id": "t4",
        "text": "The budget sheet needs another pass.",
        "occurred_at": "2026-11-21T09:00:00Z",
    },
    {
        "session_id": "s3",
        "turn_id": "t5",
        "text": "Just for this chat, call me Captain.",
        "scope": "session",
        "occurred_at": "2026-11-29T11:30:00Z",
    },  # half an hour before the tick: not idle yet
    {
        "session_id": "s3",
        "turn_id": "t6",
        "text": "Agent note: the staging password rotates monthly.",
        "owner": "ops-bot",
        "occurred_at": "2026-11-29T11:31:00Z",
    },
]


def recall(data: Path, query: str, *args: str, **env: str) -> list[dict[str, Any]]:
    proc = cli(data, "recall", "alice", query, "--json", *args, **env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hits"]


def ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr
    no_traceback(proc)
    return flat(proc.stdout)


def test_archive_restore_and_forget_from_the_shell(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lines = "\n".join(json.dumps({"bank_id": "alice", **t}) for t in TURNS).encode()
    assert "published 6 turns" in ok(cli(data, "publish", "-", input=lines))

    ticked = ok(cli(data, "janitor", "--at", "2026-11-29T12:00:00Z"))
    assert "MemoryArchived" in ticked and "alice: " in ticked  # which bank it changed, not only how many
    assert [h["text"] for h in recall(data, "the lake on Sunday")].count("We went to the lake on Sunday.") == 0
    archived = [
        h
        for h in recall(data, "the lake on Sunday", "--include-archived", HINDSIGHT_RESTORE_ON_RECALL="false")
        if h["status"] == "archived"
    ]
    lake = next(h for h in archived if h["text"] == "We went to the lake on Sunday.")
    assert "peanuts" in " ".join(h["text"] for h in recall(data, "peanut allergy"))  # a constraint stays hot
    stats = stats_json(data)["banks"]["alice"]
    assert stats["archived"] >= 1 and stats["hot"] >= 4

    assert "1 MemoryRestored" in ok(cli(data, "restore", "alice", lake["memory_id"], "--reason", "asked"))
    assert "We went to the lake on Sunday." in [h["text"] for h in recall(data, "the lake on Sunday")]

    # private memories: only their agent sees them
    assert not any("staging password" in h["text"] for h in recall(data, "staging password"))
    assert any("staging password" in h["text"] for h in recall(data, "staging password", "--agent", "ops-bot"))

    # forget by query: shown, then asked; "n" keeps everything, --yes goes ahead
    proc = cli(data, "forget", "alice", "--query", "quarterly report", "--limit", "1", input=b"n\n")
    assert proc.returncode == 1 and "quarterly report" in flat(proc.stdout)
    assert any("quarterly" in h["text"] for h in recall(data, "quarterly report"))
    # the default --limit (10): only the hits that themselves reach the relevance floor, not recall's weak tail
    assert "MemoryForgotten" in ok(cli(data, "forget", "alice", "--query", "quarterly report", "--yes"))
    assert not any("quarterly" in h["text"] for h in recall(data, "quarterly report"))
    assert "peanuts" in " ".join(h["text"] for h in recall(data, "peanut allergy"))
    assert "budget sheet" in " ".join(h["text"] for h in recall(data, "the budget sheet"))
    typo = cli(data, "forget", "alice", "00000000-0000-0000-0000-000000000000")  # an id the bank never held
    assert typo.returncode == 1 and "no memory 00000000-0000-0000-0000-000000000000 in bank 'alice'" in typo.stderr

    # by time range, and a session ending: its session-scoped memory expires
    assert "MemoryForgotten" in ok(
        cli(data, "forget", "alice", "--since", "2026-11-21T00:00:00", "--until", "2026-11-22T00:00:00")
    )
    assert not any("budget" in h["text"] for h in recall(data, "budget sheet"))
    assert "MemoryArchived" in ok(cli(data, "end-session", "alice", "s3"))
    assert not any("Captain" in h["text"] for h in recall(data, "what should you call me?"))
    captain = [h for h in recall(data, "what should you call me?", "--include-archived") if "Captain" in h["text"]]
    assert [h["status"] for h in captain] == ["archived"]
    # served by that recall, so the next command's pipeline brings it back (restore on recall)
    assert any("Captain" in h["text"] for h in recall(data, "what should you call me?"))

    stats = stats_json(data)["banks"]["alice"]
    assert stats["forgotten"] >= 2 and stats["archived"] >= 1
    # a forget that changes nothing is refused, saying why (the bank actor's CommandIgnored), not the event's name
    assert "forgot: 1 MemoryForgotten" in ok(cli(data, "forget", "alice", lake["memory_id"]))
    again = cli(data, "forget", "alice", lake["memory_id"])
    assert again.returncode == 1 and "CommandIgnored" not in again.stderr, again.stderr
    assert f"error: nothing to forget: memory {lake['memory_id']} is already forgotten" in flat(again.stderr)
    # a mistyped bank is an error, not "nothing changed" (and nothing is written)
    for args in (("end-session", "alcie", "s1"), ("janitor", "--bank", "alcie")):
        proc = cli(data, *args)
        assert proc.returncode == 1 and "unknown bank 'alcie'" in flat(proc.stderr), (args, proc.stderr)


def test_a_forget_or_restore_with_nothing_to_do_is_refused_as_over_http(tmp_path: Path) -> None:
    """Found by an operator: forgetting a forgotten memory exited 0 ("nothing changed") where the HTTP API
    answers 409 and the MCP tool an error. It is refused, naming the memory and its state, exit 1, also with
    --json (no result printed), and by session, by time range and by a query that matches nothing."""
    data = tmp_path / "data"
    ok(cli(data, "publish", "--text", "My phone number is 555-0199.", "--bank", "alice", "--session", "s1"))
    (fact,) = [h for h in recall(data, "my phone number") if h["kind"] != "episode"]
    restored = cli(data, "restore", "alice", fact["memory_id"])  # active: nothing to restore
    assert restored.returncode == 1, restored.stdout + restored.stderr
    assert f"error: nothing to restore: memory {fact['memory_id']} is active already" in flat(restored.stderr)
    assert "forgot: 1 MemoryForgotten" in ok(cli(data, "forget", "alice", fact["memory_id"]))
    for extra in ((), ("--json",)):
        again = cli(data, "forget", "alice", fact["memory_id"], *extra)
        assert again.returncode == 1 and again.stdout == "", (extra, again.stdout, again.stderr)
        assert f"error: nothing to forget: memory {fact['memory_id']} is already forgotten" in flat(again.stderr), extra
    session = cli(data, "forget", "alice", "--session", "s1")
    assert session.returncode == 1, session.stdout + session.stderr
    assert "error: nothing to forget: bank 'alice' has no memory in session 's1'" in flat(session.stderr)
    query = cli(data, "forget", "alice", "--query", "my phone number", "--yes")
    assert query.returncode == 1 and "error: nothing to forget: no memory of bank 'alice' matches" in flat(
        query.stderr
    ), query.stdout + query.stderr


def test_forget_and_correct_say_what_went_with_them_and_the_new_id(tmp_path: Path) -> None:
    """Found by a new user: forgetting one fact printed "forgot: 2 MemoryForgotten" after a prompt that showed
    one (its turn's episode, which said nothing else, went with it), and correct printed no id to use next."""
    data = tmp_path / "data"
    ok(cli(data, "publish", "--text", "My phone number is 555-0199.", "--bank", "alice", "--session", "s1"))
    (fact,) = [h for h in recall(data, "my phone number") if h["kind"] != "episode"]
    forgot = flat(ok(cli(data, "forget", "alice", fact["memory_id"])))
    assert "forgot: 1 MemoryForgotten; with them 1 episode of their turns, which said nothing else" in forgot
    ok(cli(data, "publish", "--text", "I live in Berlin.", "--bank", "alice", "--session", "s1"))
    (home,) = [h for h in recall(data, "where do I live") if h["kind"] != "episode"]
    corrected = flat(ok(cli(data, "correct", home["memory_id"], "The user lives in Lisbon")))
    new = [h for h in recall(data, "where do I live") if "Lisbon" in h["text"]][0]
    assert f"new memory {new['memory_id']}: The user lives in Lisbon" in corrected


def test_a_janitor_tick_in_the_future_is_refused_and_archives_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lines = "\n".join(json.dumps({"bank_id": "alice", **t}) for t in TURNS[:2]).encode()
    assert "published 2 turns" in ok(cli(data, "publish", "-", input=lines))
    refused = cli(data, "janitor", "alice", "--at", "2030-01-01")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "'2030-01-01' is in the future" in flat(refused.stderr)
    no_traceback(refused)
    assert stats_json(data)["banks"]["alice"].get("archived", 0) == 0
    skewed = (datetime.now(UTC) + timedelta(seconds=20)).isoformat()  # within a clock's skew of now: accepted
    assert "alice: 2 MemoryArchived" in ok(cli(data, "janitor", "alice", "--at", skewed))


def test_a_session_or_bank_never_had_is_an_error_not_nothing_changed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lines = "\n".join(json.dumps({"bank_id": "alice", **t}) for t in TURNS[:2]).encode()
    assert "published 2 turns" in ok(cli(data, "publish", "-", input=lines))
    ends = stats_json(data)["log_end_offsets"]
    for args in (
        ("end-session", "alice", "nosuch"),
        ("forget", "alice", "--session", "nosuch"),
        ("replay", "rollback", "alice", "--session", "nosuch"),
        ("erase", "alice", "--session", "nosuch", "--reason", "typo"),  # as it always did
    ):
        proc = cli(data, *args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "no session 'nosuch' in bank 'alice'" in flat(proc.stderr), (args, proc.stderr)
        no_traceback(proc)
    unknown = cli(data, "forget", "nosuchbank", "00000000-0000-0000-0000-000000000000")
    assert "unknown bank 'nosuchbank'" in flat(unknown.stderr) and "no memory" not in unknown.stderr
    assert stats_json(data)["log_end_offsets"] == ends  # nothing was written
    assert "MemoryForgotten" in ok(cli(data, "forget", "alice", "--session", "s1"))  # a session it had


def test_a_session_of_one_turn_says_one_turn(tmp_path: Path) -> None:
    """Found by a new user: `replay audit --session` titled a one-turn session "1 turns"."""
    data = tmp_path / "data"
    ok(cli(data, "publish", "--text", "I live in Oslo.", "--bank", "alice", "--session", "s1"))
    title = flat(ok(cli(data, "replay", "audit", "--bank", "alice", "--session", "s1"))).split(" ┏")[0]
    assert title.endswith("session 's1': 1 turn"), title
