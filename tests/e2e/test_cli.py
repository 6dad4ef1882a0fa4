"""The ``hindsight-es`` command line, run as a real process on a data directory of its own.

A one-shot command runs in a process forked from a warm interpreter (tests/e2e/warm.py: ~1 s where a fresh one
takes ~3.5 s), or in a fresh interpreter with ``HINDSIGHT_TEST_FRESH_CLI=1``; the service commands always start
a fresh interpreter. Related checks still share a run where they can.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hindsight_es.app.cli.demo import QUERIES
from tests.e2e import warm

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 60


def env(**extra: str) -> dict[str, str]:
    """The environment of a run: no HINDSIGHT_* from outside, wide output so rich does not wrap."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    base["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    # One process per `up`: by default it starts a reader per core, and the tests already run 3 to a machine.
    return {**base, "COLUMNS": "200", "HINDSIGHT_LOG_LEVEL": "WARNING", "HINDSIGHT_READERS": "1", **extra}


def command(data_dir: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "hindsight_es.app.cli.main", "--data-dir", str(data_dir), *args]


def cli(
    data_dir: Path, *args: str, input: bytes | None = None, timeout: float = TIMEOUT_S, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    if os.environ.get("HINDSIGHT_TEST_FRESH_CLI") != "1":
        argv = command(data_dir, *args)[3:]
        return warm.run(argv, env=env(**extra_env), cwd=data_dir.parent, input=input, timeout=timeout)
    proc = subprocess.run(
        command(data_dir, *args),
        input=input,
        capture_output=True,
        timeout=timeout,
        env=env(**extra_env),
        cwd=data_dir.parent,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def flat(text: str) -> str:
    """Whitespace collapsed, so a message is found even if the terminal wrapped it."""
    return " ".join(text.split())


def no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr


def recall_json(data_dir: Path, bank: str, query: str) -> list[dict[str, Any]]:
    proc = cli(data_dir, "recall", bank, query, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hits"]  # the RecallResult of the HTTP API and MCP


def stats_json(data_dir: Path) -> dict[str, Any]:
    proc = cli(data_dir, "stats", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ------------------------------------------------------------------ demo, stats


def recall_tables(stdout: str) -> str:
    """The demo's recall tables, without the timings."""
    tables = stdout[stdout.index(QUERIES[0]) :]
    return flat(re.sub(r"\(\s*[\d.]+ ms\)", "", tables))


def test_demo_twice_and_stats(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = cli(data, "demo")
    assert first.returncode == 0, first.stderr
    no_traceback(first)
    assert "published 11 turns to bank 'demo'" in first.stdout
    for query in QUERIES:
        assert query in first.stdout
    assert "PostgreSQL" in first.stdout and "FedEx" in first.stdout
    # "We use MySQL ..." was corrected to PostgreSQL: neither its fact nor its turn's utterance answers any more.
    database = first.stdout[first.stdout.index("what database do we use?") : first.stdout.index(QUERIES[2])]
    assert "MySQL for the order" not in flat(database)
    # ... and is kept in the correction's history, which the demo shows after the recalls
    revised = flat(first.stdout[first.stdout.index("superseded, kept in its history") :])
    assert "superseded We use MySQL for the order database." in revised
    assert "superseded The team's database: MySQL" in revised
    assert "hindsight-es history " in revised

    stats = stats_json(data)
    demo = stats["banks"]["demo"]
    assert list(stats["banks"]) == ["demo"]
    assert demo["turns"] == 11 and demo["active"] > 0 and demo["superseded"] >= 1  # MySQL -> PostgreSQL
    ends = stats["log_end_offsets"]
    # the demo's recalls are recorded as one tally of the bank (RecallsTallied, flushed as the demo
    # closes), whatever their number, and counted by the actor (RecallsCounted)
    assert ends["hindsight.turns"] == 11 and ends["hindsight.commands"] == 1
    assert ends["hindsight.deadletter"] == 0
    assert ends["hindsight.memories"] >= demo["active"] + demo["superseded"]
    # the turns table's projection reads the memories topic too (for erasures): its positions cover both
    turns_table = ends["hindsight.turns"] + ends["hindsight.memories"]
    assert stats["projection_positions"] == {"memories": ends["hindsight.memories"], "turns": turns_table}

    # The same turns again (fixed turn ids): published twice, decided once.
    second = cli(data, "demo")
    assert second.returncode == 0, second.stderr
    no_traceback(second)
    assert recall_tables(second.stdout) == recall_tables(first.stdout)
    again = stats_json(data)
    assert again["banks"] == stats["banks"]
    recalled = 1  # the second run's recalls: one RecallsTallied and one RecallsCounted
    assert again["log_end_offsets"] == {
        **ends,
        "hindsight.turns": 22,
        "hindsight.commands": 2 * recalled,
        "hindsight.memories": ends["hindsight.memories"] + recalled,
    }
    memories = ends["hindsight.memories"] + recalled
    assert again["projection_positions"] == {"memories": memories, "turns": 22 + memories}


# ------------------------------------------------------------------ publish, recall, stats


GOOD_FILE_TEXT = "We use PostgreSQL for the billing database."
GOOD_FILE_TEXT_2 = "From now on use DHL for all parcels."
STDIN_TEXT = "I live in Lisbon."


def test_demo_beside_a_running_up_waits_for_it_to_project_the_turns(tmp_path: Path) -> None:
    from tests.e2e.served import running_up  # served imports this module

    with running_up(tmp_path) as up:
        first = cli(up.data, "demo")
        assert first.returncode == 0, first.stderr  # it had recalled before up projected: "unknown bank 'demo'"
        no_traceback(first)
        assert "the service running on this data directory projected them in" in flat(first.stdout)
        database = first.stdout[first.stdout.index("what database do we use?") : first.stdout.index(QUERIES[2])]
        assert "PostgreSQL" in database
        again = cli(up.data, "demo")  # decided before: nothing to wait for
        assert again.returncode == 0 and recall_tables(again.stdout) == recall_tables(first.stdout), again.stderr


def jsonl(*lines: bytes) -> bytes:
    return b"\n".join(lines) + b"\n"


def test_publish_reports_bad_lines_and_publishes_the_good_ones(tmp_path: Path) -> None:
    data = tmp_path / "data"
    source = tmp_path / "turns.jsonl"
    source.write_bytes(
        jsonl(
            json.dumps({"bank_id": "acme", "session_id": "s1", "turn_id": "t1", "text": GOOD_FILE_TEXT}).encode(),
            b'{"bank_id": "acme", "text": ',  # 2: malformed JSON
            b'{"bank_id": "acme", "text": "   "}',  # 3: empty text
            b'{"bank_id": "acme", "text": "caf\xe9 au lait"}',  # 4: Latin-1, not UTF-8
            b'{"bank_id": "acme", "text": "hello", "mood": "happy"}',  # 5: unknown field
            json.dumps({"bank_id": "acme", "text": "x" * 201}).encode(),  # 6: over the limit of 200
            b'{"text": "I live in Oslo."}',  # 7: no bank
            b"",  # 8: blank, ignored
            json.dumps({"bank_id": "acme", "turn_id": "t2", "text": GOOD_FILE_TEXT_2}).encode(),
        )
    )
    proc = cli(data, "publish", str(source), HINDSIGHT_MAX_TEXT_CHARS="200")
    assert proc.returncode == 2, proc.stderr
    no_traceback(proc)
    assert "published 2 turns, skipped 6 bad lines" in flat(proc.stdout)
    err = flat(proc.stderr)
    for number, reason in [
        (2, "not JSON"),
        (3, "text is empty"),
        (4, "not UTF-8"),
        (5, "unknown fields ['mood']"),
        (6, "text of 201 chars exceeds the limit of 200"),
        (7, "no bank_id"),
    ]:
        assert f"line {number}: {reason}" in err, (number, err)
    for number in (1, 8, 9):
        assert f"line {number}:" not in err

    # From stdin ('-'), with the bank and session from the options.
    piped = cli(
        data,
        "publish",
        "-",
        "--bank",
        "acme",
        "--session",
        "s2",
        input=jsonl(json.dumps({"turn_id": "t3", "text": STDIN_TEXT}).encode()),
    )
    assert piped.returncode == 0, piped.stderr
    assert "published 1 turn\n" in piped.stdout and piped.stderr.strip() == ""

    hits = recall_json(data, "acme", "which database do we use for billing?")
    assert all(h["status"] == "active" for h in hits)
    by_turn = {tuple(h["source_turn_ids"]): h for h in hits}  # GOOD_FILE_TEXT is turn t1 of session s1
    assert ("t1",) in by_turn and by_turn[("t1",)]["session_id"] == "s1"
    lisbon = {tuple(h["source_turn_ids"]): h for h in recall_json(data, "acme", "where do I live?")}
    assert lisbon[("t3",)]["session_id"] == "s2"  # STDIN_TEXT

    stats = stats_json(data)
    assert list(stats["banks"]) == ["acme"]  # the bank-less line went nowhere
    acme = stats["banks"]["acme"]
    assert acme["turns"] == 3 and acme["active"] >= 3  # only the good lines: an episode each, and typed memories
    assert stats["log_end_offsets"]["hindsight.turns"] == 3
    assert stats["log_end_offsets"]["hindsight.deadletter"] == 0

    # A document's text is shown as the document's, not the user's word (as get_context shows it).
    notice = "The office moves to 12 Harbour Street in March."
    doc = cli(data, "publish", "--text", notice, "--bank", "acme", "--session", "s3", "--source", "document")
    assert doc.returncode == 0, doc.stderr
    table = cli(data, "recall", "acme", "where is the office moving?", "--min-relevance", "0")
    lines = table.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "Harbour Street" in line)
    assert "document, unverified" in lines[at + 1], table.stdout
    assert not any("unverified" in line for line in lines if "Lisbon" in line)

    unknown = cli(data, "recall", "nobody", "anything")
    assert unknown.returncode == 1
    no_traceback(unknown)
    assert "unknown bank 'nobody'" in flat(unknown.stderr)
    assert unknown.stdout.strip() == ""


# ------------------------------------------------------------------ up


def wait_for(path: Path, text: str, proc: subprocess.Popen[bytes], deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    while text not in path.read_text(errors="replace"):
        assert proc.poll() is None, f"exited with {proc.returncode}: {path.read_text(errors='replace')}"
        assert time.monotonic() < deadline, f"no {text!r} within {deadline_s}s: {path.read_text(errors='replace')}"
        time.sleep(0.1)


def test_up_serves_published_turns_and_stops_cleanly_on_sigint(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    log_path = tmp_path / "up.err"
    with socket.socket() as probe:  # a free port for the MCP HTTP server `up` also runs
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with open(log_path, "wb") as err:
        up = subprocess.Popen(
            command(data, "up"),
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env(HINDSIGHT_MCP_PORT=str(port)),
            cwd=tmp_path,
        )
    try:
        wait_for(log_path, "hindsight up:", up, 90)

        second = cli(data, "up", timeout=20)
        assert second.returncode == 1
        no_traceback(second)
        assert "another `hindsight-es up` is running" in flat(second.stderr)

        published = cli(
            data,
            "publish",
            "-",
            "--bank",
            "zed",
            input=jsonl(b'{"turn_id": "u1", "text": "We use MongoDB for the search service."}'),
        )
        assert published.returncode == 0, published.stderr

        # The service (not the recall command: it sees the service's lock) projects the turn.
        deadline, found = time.monotonic() + 30, []
        while time.monotonic() < deadline:
            proc = cli(data, "recall", "zed", "which database does search use?", "--json")
            if proc.returncode == 0:
                found = [h for h in json.loads(proc.stdout)["hits"] if "MongoDB" in h["text"]]
                if found:
                    break
            else:
                assert "unknown bank 'zed'" in flat(proc.stderr), proc.stderr  # not projected yet
            time.sleep(0.3)
        assert found, "the running service never projected the published turn"
        assert {h["source_turn_ids"][0] for h in found} == {"u1"}

        # Idle maintenance (index builds, ~5 s after start) must not bring the service down.
        indices = [data / "lance" / f"{table}.lance" / "_indices" for table in ("memories", "turns")]
        deadline = time.monotonic() + 20
        while not all(p.is_dir() and any(p.iterdir()) for p in indices) and time.monotonic() < deadline:
            assert up.poll() is None, log_path.read_text(errors="replace")
            time.sleep(0.2)
        time.sleep(0.5)
        assert up.poll() is None, log_path.read_text(errors="replace")
        assert all(p.is_dir() for p in indices), "the service never built its indexes"
        # the same memories served after the index builds (their order may change: issue 20, item 5)
        assert {h["text"] for h in recall_json(data, "zed", "MongoDB")} == {h["text"] for h in found}

        up.send_signal(signal.SIGINT)
        assert up.wait(timeout=10) == 0
        out = flat(log_path.read_text(errors="replace"))
        assert "hindsight stopped cleanly" in out
        assert "Traceback" not in out
    finally:
        if up.poll() is None:
            up.kill()
            up.wait(timeout=10)


# ------------------------------------------------------------------ broker errors


def test_publish_to_an_unreachable_broker_fails_cleanly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    started = time.monotonic()
    proc = cli(
        data,
        "--broker",
        "127.0.0.1:1",
        "publish",
        "-",
        "--bank",
        "acme",
        input=jsonl(b'{"text": "We use MySQL."}'),
        timeout=30,
        HINDSIGHT_REQUEST_TIMEOUT_S="2",
    )
    elapsed = time.monotonic() - started
    assert proc.returncode not in (0, 2), proc.stderr
    no_traceback(proc)
    assert "cannot reach the Kafka broker at '127.0.0.1:1'" in flat(proc.stderr)
    assert "published" not in proc.stdout
    assert elapsed < 15, elapsed


def test_publish_from_a_missing_file_fails_cleanly(tmp_path: Path) -> None:
    proc = cli(tmp_path / "data", "publish", str(tmp_path / "missing.jsonl"))
    assert proc.returncode == 2  # a bad argument, as replay import's
    no_traceback(proc)
    assert f"cannot read {tmp_path / 'missing.jsonl'}: No such file or directory" in flat(proc.stderr)


def test_bench_replay_prints_its_speed_and_removes_what_it_rebuilt(tmp_path: Path) -> None:
    data = tmp_path / "data"
    run = cli(data, "bench", "replay", "--events", "300", "--banks", "1")
    assert run.returncode == 0, run.stderr
    assert re.search(r"rebuilt [\d,]+ events .* [\d,]+ events/s", " ".join(run.stdout.split())), run.stdout
    assert "removed generation" in run.stdout
    assert not any((data / "generations").glob("*/lance"))  # the rebuilt stores are gone
    kept = cli(data, "bench", "replay", "--events", "300", "--banks", "1", "--keep")
    assert kept.returncode == 0, kept.stderr
    assert len(list((data / "generations").glob("*/lance"))) == 1


def test_recall_refuses_a_min_relevance_outside_0_to_1(tmp_path: Path) -> None:
    for bad in ("nan", "-0.1", "1.5"):
        proc = cli(tmp_path / "data", "recall", "alice", "anything", "--min-relevance", bad)
        assert proc.returncode == 2 and "from 0 to 1" in flat(proc.stderr), proc.stderr
        no_traceback(proc)
    assert not (tmp_path / "data" / "log.sqlite3").exists()  # refused before anything was opened


def test_a_rollback_without_a_criterion_is_one_line_and_changes_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert cli(data, "publish", "--text", "We use PostgreSQL.", "--bank", "acme", "--session", "s1").returncode == 0
    proc = cli(data, "replay", "rollback", "--bank", "acme", "--reason", "oops")
    no_traceback(proc)  # it was a traceback: the error was raised outside the command's run_async
    assert proc.returncode == 2 and "a rollback needs at least one criterion" in flat(proc.stderr), proc.stderr
    backwards = cli(data, "replay", "rollback", "acme", "--since", "2026-12-07", "--until", "2026-12-06")
    assert backwards.returncode == 2 and "must be before until" in flat(backwards.stderr), backwards.stderr  # bad input
    assert stats_json(data)["log_end_offsets"]["hindsight.commands"] == 0


def test_a_stores_path_that_cannot_be_a_directory_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """Found by an operator: HINDSIGHT_STORES_URI under a file printed NotADirectoryError's traceback."""
    (tmp_path / "file").write_text("not a directory")
    stores = tmp_path / "file" / "stores"
    proc = cli(
        tmp_path / "d", "publish", "--text", "I live in Oslo.", "--bank", "alice", HINDSIGHT_STORES_URI=str(stores)
    )
    no_traceback(proc)
    assert proc.returncode == 2 and f"cannot use {stores}: Not a directory" in flat(proc.stderr), proc.stderr


def test_a_mistyped_data_dir_is_an_error_not_an_empty_store(tmp_path: Path) -> None:
    """Found by an operator: `--data-dir /nonexist/deep/dir stats` created the directory and a log, `replay
    verify` said "verified" and `erase` "nothing to erase", all with exit code 0."""
    missing = tmp_path / "dta"  # the commands run in its parent
    for args in (
        ("stats",),
        ("recall", "alice", "anything"),
        ("replay", "verify"),
        ("replay", "audit", "--bank", "alice"),
        ("erase", "--bank", "alice", "--session", "s1", "--reason", "x"),
        ("forget", "alice", "--session", "s1"),
    ):
        proc = cli(missing, *args)
        no_traceback(proc)
        assert proc.returncode == 2 and f"no hindsight data in {missing}" in flat(proc.stderr), (args, proc.stderr)
    assert not missing.exists()
    # writers create the store: publish, then the same commands find it
    assert cli(missing, "publish", "--text", "We use PostgreSQL.", "--bank", "alice").returncode == 0
    assert cli(missing, "stats").returncode == 0
