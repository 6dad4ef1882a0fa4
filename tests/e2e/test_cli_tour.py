"""What a tour of the command line found, run as real subprocesses (helpers of ``test_cli``): times read
in the zone the tables print, one bank spelling or the other, an unknown embedder refused by every command,
messages that say what happened, tables that fit 80 columns, and no half-made data directory after a failure.
"""

from __future__ import annotations

import json
import re
import socket
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.e2e.test_cli import cli, flat, no_traceback

SHANGHAI = {"TZ": "Asia/Shanghai"}


def ok(data: Path, *args: str, **env: str) -> str:
    proc = cli(data, *args, **env)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_times_without_a_zone_are_the_local_times_the_tables_print(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ok(data, "publish", "--bank", "alice", "--text", "I live in Berlin", **SHANGHAI)
    ok(data, "stats", **SHANGHAI)  # no service runs: a reading command drains the log through the pipeline
    now = datetime.now(ZoneInfo("Asia/Shanghai"))
    local = "%Y-%m-%d %H:%M:%S"
    soon = (now + timedelta(minutes=1)).strftime(local)
    state = flat(ok(data, "replay", "state", "--bank", "alice", "--as-of", soon, **SHANGHAI))
    held = re.search(rf"as of {soon} CST: (\d+) memor(?:y|ies)\b", state)
    assert held and int(held.group(1)) >= 1, state  # not 8 hours earlier, before the memory was said
    before = (now - timedelta(minutes=1)).strftime(local)  # read as UTC, 8 hours later: after the memory
    assert "CST: 0 memories" in flat(ok(data, "replay", "state", "--bank", "alice", "--as-of", before, **SHANGHAI))
    named = ok(data, "replay", "state", "alice", "--as-of", f"{soon} CST", "--json", **SHANGHAI)
    assert len(json.loads(named)["memories"]) == int(held.group(1))  # the zone's name as the tables print it
    refused = cli(data, "replay", "state", "--bank", "alice", "--as-of", f"{soon} PST", **SHANGHAI)
    assert refused.returncode == 2 and "(CST / UTC)" in flat(refused.stderr) and "local time" in refused.stderr

    since, until = (now - timedelta(minutes=10)).strftime(local), soon
    forgot = flat(ok(data, "forget", "alice", "--since", since, "--until", until, **SHANGHAI))
    assert re.search(r"forgot: \d+ MemoryForgotten", forgot), forgot
    again = cli(data, "forget", "alice", "--since", since, "--until", until, **SHANGHAI)
    assert again.returncode == 1 and (
        f"error: nothing to forget: bank 'alice' has no memory valid from a time between "
        f"{since} CST and {until} CST, that is not forgotten already"
    ) in flat(again.stderr)
    typo = cli(data, "forget", "alice", "--session", "nosuch", **SHANGHAI)  # a session alice never had
    assert typo.returncode == 2 and "no session 'nosuch' in bank 'alice'" in flat(typo.stderr), typo.stderr


def test_an_unknown_embedder_is_refused_by_every_command(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for args, env in (((data, "--embedder", "foo", "stats"), {}), ((data, "stats"), {"HINDSIGHT_EMBEDDER": "foo"})):
        proc = cli(*args, **env)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "unknown embedder 'foo'; valid names: hybrid, minilm, use" in flat(proc.stderr)
        assert ("--embedder" if not env else "HINDSIGHT_EMBEDDER") in proc.stderr


def test_a_failed_import_or_start_leaves_no_data_directory_behind(tmp_path: Path) -> None:
    data = tmp_path / "new"
    missing = cli(data, "replay", "import", str(tmp_path / "nonexist.parquet"))
    assert missing.returncode == 2 and f"cannot read {tmp_path / 'nonexist.parquet'}: no such file" in flat(
        missing.stderr
    )
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n')
    failed = cli(data, "replay", "import", str(bad))
    assert failed.returncode == 2 and "line 1" in failed.stderr  # bad input, as every usage error
    assert not data.exists()

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        up = cli(data, "up", HINDSIGHT_MCP_PORT=port)
        assert up.returncode == 2 and "cannot serve MCP" in up.stderr, up.stderr
        assert not data.exists()  # no keys.sqlite3, no locks/
        kept = tmp_path / "kept"
        kept.mkdir()
        (kept / "note").write_text("mine")
        assert cli(kept, "up", HINDSIGHT_MCP_PORT=port).returncode == 2
        assert (kept / "note").read_text() == "mine"  # a directory that was there stays, with what it held


def test_bank_spellings_messages_and_tables_of_a_tour(tmp_path: Path) -> None:
    data = tmp_path / "data"
    ok(data, "publish", "--bank", "bob", "--session", "s1", "--text", "I live in Berlin")
    ok(data, "publish", "--bank", "bob", "--session", "s2", "--text", "Actually I live in Paris now")
    ok(data, "stats")  # no service runs: a reading command drains the log through the pipeline
    memories = json.loads(ok(data, "replay", "state", "bob", "--all", "--json"))["memories"]
    paris = next(m["memory_id"] for m in memories if "Paris" in m["text"])
    berlin = next(m["memory_id"] for m in memories if "Berlin" in m["text"])

    # the bank either way
    assert "no dispute is waiting in bank 'bob'" in ok(data, "disputes", "list", "bob")
    reject = cli(data, "disputes", "reject", "--bank", "bob", paris)
    assert reject.returncode == 1 and "is active, not disputed" in reject.stderr  # refused for what it is
    assert ok(data, "owners", "show", "--bank", "bob").startswith("bob: user")
    assert "nothing is quarantined in bank 'bob'" in ok(data, "quarantine", "list", "bob")
    assert "or give it as --bank BANK" in flat(ok(data, "disputes", "reject", "--help"))

    # a unique prefix of a memory id, as git reads a short commit id; an event's name whole at 80 columns
    lineage = ok(data, "history", berlin[:8], COLUMNS="80")
    assert f"memory {berlin}" in lineage and "MemorySuperseded" in lineage and "MemorySuperse " not in lineage
    assert "no memory id starts with 'ffffffff'" in flat(cli(data, "history", "ffffffff").stderr)

    # undoing a rollback twice says the second time that it was undone; each records the operator's reason,
    # shown in the memory's history beside its event
    rolled = ok(data, "replay", "rollback", "bob", "--session", "s2", "--reason", "a mistaken session", COLUMNS="80")
    retraction = re.search(r"\(SourceRetracted (\S+)\)", flat(rolled)).group(1)  # type: ignore[union-attr]
    # the command to undo it is whole on its line at 80 columns, to copy into a shell
    assert f"`hindsight-es replay undo-rollback --bank bob --retraction {retraction}`" in rolled, rolled
    undone = flat(
        ok(data, "replay", "undo-rollback", "--bank", "bob", "--retraction", retraction, "--reason", "it was right")
    )
    back = re.search(r"restored: (\d+) (memory|memories) back", undone)
    assert back and int(back.group(1)) >= 1 and (back.group(1) == "1") == (back.group(2) == "memory"), undone
    events = json.loads(ok(data, "history", paris, "--json"))["events"]
    reasons = {(e["type"], e["reason"]) for e in events if e["type"] in ("SourceRetracted", "MemoryRestored")}
    assert reasons == {("SourceRetracted", "a mistaken session"), ("MemoryRestored", "it was right")}, events
    assert "(it was right)" in flat(ok(data, "history", paris, COLUMNS="200"))
    twice = flat(ok(data, "replay", "undo-rollback", "bob", "--retraction", retraction))
    assert "nothing to undo:" in twice and "active again (undone already)" in twice and "0 memories" not in twice
    # the retraction id as a memory id is taken, by its first 8 characters (was "is not a memory id (a UUID)");
    # what is no id is refused as what it is not
    short = flat(ok(data, "replay", "undo-rollback", "bob", "--retraction", retraction[:8]))
    assert "nothing to undo:" in short and retraction[:8] in short, short
    wrong = cli(data, "replay", "undo-rollback", "bob", "--retraction", "s2")
    assert wrong.returncode == 2 and "'s2' is not a retraction id" in flat(wrong.stderr), wrong.stderr

    # stats: every status that counts toward hot, and what the positions are
    stats = flat(ok(data, "stats", COLUMNS="80"))
    assert "disputed" in stats and "bob" in stats
    assert "log records each table has applied, not rows: memories table" in stats


def test_state_and_export_decide_what_is_published_first_and_refuse_an_unknown_bank(tmp_path: Path) -> None:
    """Found on a tour: right after a publish, with no service running, `replay state` said "0 memories" (it
    folded the log without deciding the new turn, as audit and recall do first); `replay state nobody` printed an
    empty table and `replay export --bank nobody` an empty file, both with exit code 0; `replay audit --session s9`
    (a session alice never had) an empty timeline."""
    data = tmp_path / "data"
    ok(data, "publish", "--bank", "alice", "--text", "I live in Lyon.")
    state = json.loads(ok(data, "replay", "state", "--bank", "alice", "--json"))
    assert "The user lives in Lyon" in [m["text"] for m in state["memories"]], state
    unknown = cli(data, "replay", "state", "--bank", "nobody")
    assert unknown.returncode == 1 and "bank 'nobody'" in flat(unknown.stderr), unknown.stdout + unknown.stderr
    for json_flag in ((), ("--json",)):  # an unknown session is a usage error, as forget's and rollback's
        nosuch = cli(data, "replay", "audit", "--bank", "alice", "--session", "s9", *json_flag)
        assert nosuch.returncode == 2 and "no session 's9' in bank 'alice'" in flat(nosuch.stderr), nosuch
    out = tmp_path / "nobody.jsonl"
    refused = cli(data, "replay", "export", "--bank", "nobody", str(out))
    assert refused.returncode == 1 and "unknown bank 'nobody'" in flat(refused.stderr), refused.stderr
    assert not out.exists()
    exported = tmp_path / "alice.jsonl"
    written = flat(ok(data, "replay", "export", "--bank", "alice", str(exported)))
    assert "1 hindsight.turns, 2 hindsight.memories" in written, written
