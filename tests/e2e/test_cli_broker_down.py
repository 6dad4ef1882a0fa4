"""The CLI with the broker down, as an operator meets it: the commands that only read the stores (recall,
stats, history, the review lists, audit, owners) answer from them, and what needs the log fails in one line
naming the broker. Recall says in one line that what it served was not recorded; with the broker up it is.

The stores are written by an embedded run, then read with ``--broker`` at an address nothing listens on;
on Kafka by a Tansu run that is then stopped."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import tansu
from tests.e2e.test_cli import cli, command, env, flat, no_traceback, stats_json, wait_for

QUESTION = "which carrier do we use?"


def closed_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def carrier(data: Path, *broker: str) -> tuple[dict, subprocess.CompletedProcess[str]]:
    """The FedEx memory recall serves, and the run that served it."""
    proc = cli(data, *broker, "recall", "alice", QUESTION, "--json")
    assert proc.returncode == 0, proc.stderr
    hits = [h for h in json.loads(proc.stdout)["hits"] if "FedEx" in h["text"]]
    assert hits, proc.stdout
    return hits[0], proc


def test_reads_answer_from_the_stores_and_log_commands_fail_in_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    said = cli(data, "publish", "--text", "From now on use FedEx for every order.", "--bank", "alice")
    assert said.returncode == 0, said.stderr
    memory, _ = carrier(data)  # the embedded run decides and projects it
    down = ("--broker", closed_address())

    hit, recalled = carrier(data, *down)
    assert hit["memory_id"] == memory["memory_id"]
    note = lines(recalled.stderr)
    assert len(note) == 1, recalled.stderr  # one line: no aiokafka lines before it
    assert note[0].startswith("note: what recall served (") and "was not recorded for retention" in note[0]
    assert f"cannot reach the Kafka broker at '{down[1]}'" in note[0], note

    stats = cli(data, *down, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    report = json.loads(stats.stdout)
    assert report["banks"]["alice"]["active"] >= 1 and report["log_end_offsets"] is None, report
    assert len(lines(stats.stderr)) == 1 and "the log's ends are not shown" in stats.stderr, stats.stderr
    table = cli(data, *down, "stats")
    assert table.returncode == 0 and "alice" in table.stdout, table.stderr

    for args in (
        ("history", memory["memory_id"], "--json"),
        ("disputes", "list", "--json"),
        ("quarantine", "list", "--json"),
        ("replay", "audit", "--bank", "alice", "--json"),
        ("owners", "show", "alice", "--json"),
    ):
        proc = cli(data, *down, *args)
        assert proc.returncode == 0 and proc.stderr == "", (args, proc.stderr)
        assert isinstance(json.loads(proc.stdout), dict), (args, proc.stdout)  # an object, not a bare list

    for args in (
        ("replay", "state", "--bank", "alice"),
        ("forget", "alice", memory["memory_id"]),
        ("publish", "--text", "I moved to Oslo.", "--bank", "alice"),
    ):
        proc = cli(data, *down, *args)
        no_traceback(proc)
        assert proc.returncode == 1, (args, proc.stderr)
        assert len(lines(proc.stderr)) == 1, (args, proc.stderr)  # one line: no aiokafka lines before it
        assert flat(proc.stderr).startswith(f"error: cannot reach the Kafka broker at '{down[1]}'"), proc.stderr

    assert stats_json(data)["banks"]["alice"]["active"] == report["banks"]["alice"]["active"]  # nothing changed


@pytest.mark.kafka
def test_on_kafka_recall_records_what_it_served_and_answers_once_the_broker_is_gone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    quick = {"HINDSIGHT_KAFKA_SESSION_TIMEOUT_MS": "1500", "HINDSIGHT_KAFKA_HEARTBEAT_INTERVAL_MS": "300"}
    quick |= {"HINDSIGHT_MCP_HTTP": "false", "HINDSIGHT_JANITOR_ENABLED": "false"}
    with tansu() as broker:
        on = ("--broker", broker)
        log_path = tmp_path / "up.err"
        with open(log_path, "wb") as err:
            up = subprocess.Popen(
                command(data, *on, "up"), stdout=subprocess.DEVNULL, stderr=err, env=env(**quick), cwd=tmp_path
            )
        try:
            wait_for(log_path, "hindsight up:", up, 90)
            said = cli(data, *on, "publish", "--text", "From now on use FedEx for every order.", "--bank", "alice")
            assert said.returncode == 0, said.stderr
            deadline, found = time.monotonic() + 60, None
            while found is None:
                proc = cli(data, *on, "recall", "alice", QUESTION, "--json", **quick)
                hits = [h for h in json.loads(proc.stdout)["hits"] if "FedEx" in h["text"]] if proc.stdout else []
                found = hits[0] if hits else None
                assert found or time.monotonic() < deadline, f"never projected: {proc.stderr}"
            up.send_signal(signal.SIGINT)
            assert up.wait(timeout=30) == 0, log_path.read_text(errors="replace")
        finally:
            if up.poll() is None:
                up.kill()
                up.wait(timeout=10)

        before = json.loads(cli(data, *on, "stats", "--json", **quick).stdout)["log_end_offsets"]
        hit, served = carrier(data, *on)
        assert served.stderr == "", served.stderr  # recorded: no note
        after = json.loads(cli(data, *on, "stats", "--json", **quick).stdout)["log_end_offsets"]
        assert after["hindsight.commands"] == before["hindsight.commands"] + 1  # its RecallsTallied

    hit_down, recalled = carrier(data, *on)  # the broker is gone; the stores it wrote are not
    assert hit_down["memory_id"] == hit["memory_id"] == found["memory_id"]
    assert len(lines(recalled.stderr)) == 1 and f"cannot reach the Kafka broker at '{broker}'" in recalled.stderr
    gone = cli(data, *on, "replay", "state", "--bank", "alice")
    assert gone.returncode == 1 and len(lines(gone.stderr)) == 1, gone.stderr
    assert flat(gone.stderr).startswith(f"error: cannot reach the Kafka broker at '{broker}'"), gone.stderr
