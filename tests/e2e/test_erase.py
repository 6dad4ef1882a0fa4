"""Erase by crypto-shredding, proved on the bytes: after ``erase``, no file of the data directory (the
SQLite log, the key store, the LanceDB tables and their versions, the Parquet archive, the snapshots)
holds the erased text, a slice of its memory's vector or its data keys; what was not erased still
recalls; rebuild, export and audit show the placeholder. Real processes, no service running."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import json
import sqlite3
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.events import MemoryRetained, decoded
from hindsight_es.log import compression, replay, started_log
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.memory import columnar
from tests.e2e.test_cli import cli, flat, no_traceback

SECRET = "ZX9931Q"
TURNS = [
    {"session_id": "s1", "turn_id": "t1", "text": f"My passport number is {SECRET} and I live in Hangzhou."},
    {"session_id": "s1", "turn_id": "t2", "text": "I'm allergic to peanuts, remember that."},
    {"session_id": "s2", "turn_id": "t3", "text": "I prefer green tea in the morning."},
]
ENV = {"HINDSIGHT_SNAPSHOT_EVERY": "1"}  # every catch-up leaves snapshots: they must not keep the content


def publish(data: Path, turns: list[dict[str, str]], **env: str) -> None:
    lines = "".join(json.dumps({"bank_id": "alice", **t}) + "\n" for t in turns).encode()
    proc = cli(data, "publish", input=lines, **ENV, **env)
    assert proc.returncode == 0, proc.stderr


def recall_texts(data: Path, query: str) -> list[str]:
    proc = cli(data, "recall", "alice", query, "--json", **ENV)
    assert proc.returncode == 0, proc.stderr
    return [m["text"] for m in json.loads(proc.stdout)["hits"]]


def log_ends(data: Path) -> dict[str, int]:
    async def read() -> dict[str, int]:
        async with started_log(Settings(data_dir=data)) as log:
            return {t: sum((await log.end_offsets(t)).values()) for t in ("hindsight.turns", "hindsight.commands")}

    return asyncio.run(read())


def retained(data: Path) -> list[MemoryRetained]:
    async def read() -> list[MemoryRetained]:
        async with started_log(Settings(data_dir=data)) as log:
            return [
                e
                for records in [r async for r in replay(log, TOPIC_MEMORIES)]
                for _, e in decoded(records)
                if isinstance(e, MemoryRetained)
            ]

    return asyncio.run(read())


def decoded_parquet(path: Path) -> bytes:
    """Every cell of a Parquet file as bytes: text as UTF-8, the archive's int8 vector codes as raw bytes."""
    table = pq.read_table(path)
    out = bytearray()
    for column in table.columns:
        if pa.types.is_list(column.type) and pa.types.is_int8(column.type.value_type):
            for cell in column.to_pylist():
                out += b"" if cell is None else np.asarray(cell, np.int8).tobytes() + b"\n"
        else:
            out += "\n".join(str(v) for v in column.to_pylist()).encode("utf-8") + b"\n"
    return bytes(out)


def decompressed_log(path: Path) -> bytes:
    """Every record value of the log, as the log reads it (the records in the WAL file included)."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return b"\n".join(compression.unpack(v) for (v,) in db.execute("SELECT value FROM records"))


def files_holding(root: Path, needles: list[bytes]) -> list[str]:
    found = []
    paths = sorted(root.parent.glob(root.name + "*")) if root.is_file() else sorted(root.rglob("*"))
    for path in (p for p in paths if p.is_file()):
        data = path.read_bytes()
        if path.suffix == ".gz":  # the snapshots of format 3
            data = gzip.decompress(data)
        elif path.suffix == ".hsnap":  # the snapshots: compressed Arrow columns
            data += columnar.plain(data)
        elif path.suffix == ".parquet":  # zstd pages: the raw bytes and what they decode to
            data += decoded_parquet(path)
        elif path.name == "log.sqlite3":  # compressed records: the raw bytes and what they decompress to
            data += decompressed_log(path)
        lowered = data.lower()
        found += [f"{path.relative_to(root)}: {n[:16]!r}" for n in needles if n in data or n.lower() in lowered]
    return found


def test_erase_session_leaves_no_byte_of_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(data, TURNS)
    assert any("Hangzhou" in t for t in recall_texts(data, "where do I live?"))  # the statement of turn t1
    mine = [m for m in retained(data) if m.session_id == "s1"]
    assert mine and all(m.embedding().any() for m in mine)
    keys = SqliteKeyStore(data / "keys.sqlite3")
    units = keys.select("alice", session_id="s1")
    key_bytes = [k for k in keys.lookup("alice", units).values() if isinstance(k, bytes)]
    keys.close()
    assert {"turn:t1", "turn:t2"} <= set(units) and len(key_bytes) == len(units)
    fingerprints = [m.vector[16:48] for m in mine] + [base64.b64encode(m.vector).decode().encode() for m in mine]
    needles = [SECRET.encode(), b"Hangzhou", b"peanuts", *fingerprints, *key_bytes]
    for store in ("snapshots", "lance", "archive"):  # the proof below can fail: the content was there
        assert files_holding(data / store, [SECRET.encode()]), store
    assert not files_holding(data / "log.sqlite3", [SECRET.encode()])  # sealed in the log from the start

    proc = cli(data, "erase", "--bank", "alice", "--session", "s1", "--reason", "user request (GDPR art. 17)", **ENV)
    assert proc.returncode == 0, proc.stderr
    no_traceback(proc)
    assert "2 turns" in flat(proc.stdout)

    assert files_holding(data, needles) == []
    for query in ("what is my passport number?", "where do I live?"):
        assert not any(SECRET in t or "Hangzhou" in t or "erased" in t for t in recall_texts(data, query))
    assert any("green tea" in t for t in recall_texts(data, "what do I drink in the morning?"))  # s2 untouched

    erased = [m for m in retained(data) if m.session_id == "s1"]
    assert {m.memory_id for m in erased} == {m.memory_id for m in mine}
    assert all(m.text.startswith("[erased by operator at ") and not m.embedding().any() for m in erased)
    back = cli(data, "restore", "alice", str(erased[0].memory_id), **ENV)  # not "no memory … in bank"
    assert back.returncode == 1 and f"memory {erased[0].memory_id} was erased by operator at" in flat(back.stderr)
    assert "cannot be restored" in flat(back.stderr), back.stderr

    export = tmp_path / "alice.jsonl"
    assert cli(data, "replay", "export", "--bank", "alice", str(export), **ENV).returncode == 0
    exported = export.read_text()
    assert SECRET not in exported and "user request (GDPR art. 17)" in exported and "green tea" in exported
    audit = cli(data, "replay", "audit", "--bank", "alice", "--session", "s1", "--json", **ENV)
    assert audit.returncode == 0 and SECRET not in audit.stdout and "[erased by operator at" in audit.stdout
    table = cli(data, "replay", "audit", "--bank", "alice", "--session", "s1", **ENV)  # text, not markup
    assert table.returncode == 0 and SECRET not in table.stdout and "[erased by" in table.stdout, table.stdout
    verify = cli(data, "replay", "verify", **ENV)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rebuild = cli(data, "replay", "rebuild", **ENV)
    assert rebuild.returncode == 0, rebuild.stderr
    assert files_holding(data, needles) == []


def test_erase_all_leaves_no_byte_of_the_bank_and_another_bank_untouched(tmp_path: Path) -> None:
    """A user who closes their account: every session of their bank erased, one erasure each, with progress."""
    data = tmp_path / "data"
    publish(data, TURNS)
    other = [{"bank_id": "bob", "session_id": "s1", "turn_id": "b1", "text": "I live in Oslo, near the fjord."}]
    proc = cli(data, "publish", input="".join(json.dumps(t) + "\n" for t in other).encode(), **ENV)
    assert proc.returncode == 0, proc.stderr
    assert any("Hangzhou" in t for t in recall_texts(data, "where do I live?"))  # caught up: every store holds it
    alice = [m for m in retained(data) if m.bank_id == "alice"]
    keys = SqliteKeyStore(data / "keys.sqlite3")
    live = keys.live("alice")
    key_bytes = [k for k in keys.lookup("alice", live).values() if isinstance(k, bytes)]
    keys.close()
    assert {"turn:t1", "turn:t2", "turn:t3"} <= set(live) and set(live.values()) == {"s1", "s2"}
    fingerprints = [m.vector[16:48] for m in alice]
    needles = [SECRET.encode(), b"Hangzhou", b"peanuts", b"green tea", *fingerprints, *key_bytes]
    for store in ("snapshots", "lance", "archive"):  # the proof below can fail: the content was there
        assert files_holding(data / store, [SECRET.encode()]), store

    proc = cli(data, "erase", "--bank", "alice", "--all", "--reason", "account closed", "--json", **ENV)
    assert proc.returncode == 0, proc.stderr
    no_traceback(proc)
    answer = json.loads(proc.stdout)
    assert answer["bank_id"] == "alice" and len(answer["erasures"]) == 2  # a session each
    assert all(e["ready"] and e["erased_at"] for e in answer["erasures"])
    assert sorted(u for e in answer["erasures"] for u in e["units"]) == sorted(live)
    assert "erased session s1 (1 of 2)" in flat(proc.stderr) and "erased session s2 (2 of 2)" in flat(proc.stderr)

    assert files_holding(data, needles) == []
    for query in ("what is my passport number?", "what do I drink in the morning?"):
        assert not any(SECRET in t or "green tea" in t for t in recall_texts(data, query))
    bob = cli(data, "recall", "bob", "where do I live?", "--json", **ENV)
    assert bob.returncode == 0 and "Oslo" in bob.stdout  # another bank keeps every word
    again = cli(data, "erase", "--bank", "alice", "--all", "--reason", "again", **ENV)
    assert again.returncode == 2 and "holds no live data key: nothing to erase" in flat(again.stderr)
    both = cli(data, "erase", "--bank", "alice", "--all", "--session", "s1", "--reason", "x", **ENV)
    assert both.returncode == 2 and "exactly one of --session, --turn, --memory, --all" in flat(both.stderr)
    verify = cli(data, "replay", "verify", **ENV)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_erasing_a_session_brings_back_what_it_displaced_and_keeps_no_byte_of_it(tmp_path: Path) -> None:
    """Found by a user: erasing "I moved to Berlin" left no current home, where a rollback of the session
    brings "I live in Paris" back. The erase brings it back too, and still leaves no byte of Berlin."""
    data = tmp_path / "data"
    publish(data, [{"session_id": "s1", "turn_id": "t1", "text": "I live in Paris."}])
    publish(data, [{"session_id": "s2", "turn_id": "t2", "text": f"I moved to Berlin, flat {SECRET}."}])
    assert any("Berlin" in t for t in recall_texts(data, "where do I live?"))
    berlin = [m for m in retained(data) if m.session_id == "s2"]
    proc = cli(data, "erase", "--bank", "alice", "--session", "s2", "--reason", "asked", **ENV)
    assert proc.returncode == 0, proc.stderr
    assert any("Paris" in t for t in recall_texts(data, "where do I live?"))
    fingerprints = [m.vector[16:48] for m in berlin]
    assert files_holding(data, [SECRET.encode(), b"Berlin", *fingerprints]) == []
    verify = cli(data, "replay", "verify", **ENV)  # a rebuild folds the restore as the live run did
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_erase_one_turn_keeps_the_rest_of_its_session(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(data, TURNS)
    proc = cli(data, "erase", "--bank", "alice", "--turn", "t1", "--reason", "asked", **ENV)
    assert proc.returncode == 0, proc.stderr
    assert files_holding(data, [SECRET.encode(), b"Hangzhou"]) == []
    assert any("peanuts" in t for t in recall_texts(data, "what am I allergic to?"))
    again = cli(data, "erase", "--bank", "alice", "--turn", "t1", "--reason", "asked again", **ENV)
    assert again.returncode == 0, again.stderr  # idempotent, and says when, by whom and why it was erased
    assert "nothing left to erase: erased before [erased by operator at " in again.stdout, again.stdout
    assert ": asked] (the turn 't1')" in again.stdout, again.stdout  # the first erasure's who and why, kept
    state = cli(data, "replay", "state", "--bank", "alice", "--all", "--json", **ENV)  # the log's own fold
    assert state.returncode == 0 and ": asked]" in state.stdout and "asked again" not in state.stdout, state.stdout
    ends = log_ends(data)
    for scope, what in (("--session", "session 's9'"), ("--turn", "turn 't9'")):  # ids the bank never held
        typo = cli(data, "erase", "--bank", "alice", scope, what.split("'")[1], "--reason", "asked", **ENV)
        assert typo.returncode == 2 and typo.stderr.strip().count("\n") == 0, typo
        assert f"error: no {what} in bank 'alice': nothing to erase" in flat(typo.stderr), typo.stderr
    elsewhere = cli(data, "erase", "--bank", "bob", "--turn", "t1", "--reason", "asked", **ENV)  # alice's turn
    assert elsewhere.returncode == 2 and "no turn 't1' in bank 'bob'" in flat(elsewhere.stderr), elsewhere
    assert log_ends(data) == ends  # refused before anything was recorded
    proc = cli(data, "recall", "alice", "what do I drink in the morning?", "--json", **ENV)
    assert proc.returncode == 0, proc.stderr
    tea = [m["memory_id"] for m in json.loads(proc.stdout)["hits"] if "green tea" in m["text"]]
    assert tea
    one = cli(data, "erase", "--bank", "alice", "--memory", tea[0], "--reason", "asked", **ENV)
    assert one.returncode == 0, one.stderr
    assert tea[0] not in cli(data, "recall", "alice", "what do I drink in the morning?", "--json", **ENV).stdout
    history = cli(data, "history", tea[0], "--json", **ENV)  # the erasure is in its history, and its status
    assert history.returncode == 0, history.stderr
    lineage = json.loads(history.stdout)
    assert lineage["status"] == "erased" and lineage["events"][-1]["type"] == "ContentErased", lineage


def test_a_log_written_before_sealing_still_reads(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(data, TURNS[2:], HINDSIGHT_SEAL_CONTENT="false")
    assert files_holding(data / "log.sqlite3", [b"green tea"])  # plaintext, as an older release wrote it
    assert any("green tea" in t for t in recall_texts(data, "what do I drink in the morning?"))


def test_an_erase_of_content_written_before_sealing_says_the_log_keeps_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    publish(data, TURNS[2:], HINDSIGHT_SEAL_CONTENT="false")
    assert cli(data, "stats", HINDSIGHT_SEAL_CONTENT="false").returncode == 0  # decided unsealed too: no key at all
    kept = cli(data, "erase", "--bank", "alice", "--turn", "t3", "--reason", "asked", **ENV)
    assert kept.returncode == 0, kept.stderr  # the bank holds it (its archive does): not a typo
    assert "nothing to erase for good: no key of the turn 't3' in bank 'alice' (written before" in flat(kept.stdout)
    typo = cli(data, "erase", "--bank", "alice", "--turn", "t4", "--reason", "asked", **ENV)
    assert typo.returncode == 2 and "no turn 't4' in bank 'alice'" in flat(typo.stderr), typo


def test_a_bank_with_an_erased_session_exports_and_imports_as_it_is(tmp_path: Path) -> None:
    """Filler turns decide nothing, so no memory event answers them in an export; erased, they read as the
    placeholder, which is no one's words: the importing bank actor must find nothing in them either."""
    data, other, export = tmp_path / "data", tmp_path / "other", tmp_path / "x" / "alice.parquet"
    publish(
        data,
        [
            {"session_id": "b1", "turn_id": "f1", "text": "hi there, how are you doing today?"},
            {"session_id": "b1", "turn_id": "m1", "text": "We use MySQL for the orders database."},
            {"session_id": "b1", "turn_id": "f2", "text": "ok thanks"},
            *TURNS[2:],
        ],
    )
    assert cli(data, "erase", "--bank", "alice", "--session", "b1", "--reason", "user asked", **ENV).returncode == 0
    assert cli(data, "replay", "export", "--bank", "alice", str(export), **ENV).returncode == 0
    imported = cli(other, "replay", "import", str(export), **ENV)
    assert imported.returncode == 0, imported.stderr

    def state(where: Path) -> list[tuple[str, str, str]]:
        proc = cli(where, "replay", "state", "--bank", "alice", "--all", "--json", **ENV)
        assert proc.returncode == 0, proc.stderr
        return sorted((m["memory_id"], m["status"], m["text"]) for m in json.loads(proc.stdout)["memories"])

    assert state(other) == state(data)  # not a new active memory holding the placeholder
    assert "no decision in the file" not in imported.stderr, imported.stderr  # nothing left to decide again
    assert [e.event_id for e in retained(other)] == [e.event_id for e in retained(data)]  # nothing decided again
    for where in (data, other):
        assert not any("erased" in t for t in recall_texts(where, "hi there, how are you doing today?"))

    def hashes(where: Path) -> dict[tuple[str, str], str]:
        """The live rows' content hashes per table (the archive's records differ in their append times)."""
        proc = cli(where, "replay", "verify", "--json", **ENV)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        checks = json.loads(proc.stdout)["checks"]
        return {(c["table"], c["bank"]): c["live"] for c in checks if c["table"] != "archive"}

    assert hashes(other) == hashes(data)
