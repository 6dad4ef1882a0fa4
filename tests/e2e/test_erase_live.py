"""Erase while ``up`` runs: over HTTP (the Python client) and with the CLI on the same data directory.
Nothing but the service's own projections writes its tables: the erase destroys the keys and records the
erasure, waits until every projection has applied it, and then no file of the data directory holds a byte
of the erased content. A bank-scoped token cannot erase, even its own bank."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from hindsight_es.remote import HindsightClient
from hindsight_es.remote.errors import ForbiddenError, NotFoundError, RefusedError
from tests.e2e.served import ALICE, OPS, TOKENS, Up, running_up
from tests.e2e.test_cli import cli
from tests.e2e.test_erase import SECRET, files_holding, retained

BANK = "alice"  # the bank ALICE's token is scoped to: scoped, it still may not erase


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    with running_up(tmp_path_factory.mktemp("erase-live"), tokens=TOKENS, HINDSIGHT_SNAPSHOT_EVERY="1") as served:
        yield served


def test_erase_over_http_and_cli_beside_a_running_service(up: Up) -> None:
    with HindsightClient(up.base, OPS) as hs:
        hs.retain(BANK, f"My passport number is {SECRET} and I live in Hangzhou.", session_id="s1", turn_id="t1")
        hs.retain(BANK, "I prefer green tea in the morning.", session_id="s2", turn_id="t3", wait=True)
        hs.retain(BANK, "I'm allergic to peanuts, remember that.", session_id="s2", turn_id="t4", wait=True)
        assert any("Hangzhou" in h.text for h in hs.recall(BANK, "where do I live?").hits)
        mine = [m for m in retained(up.data) if m.session_id == "s1"]
        assert mine and all(m.embedding().any() for m in mine)
        needles = [SECRET.encode(), b"Hangzhou", *(m.vector[16:48] for m in mine)]
        assert files_holding(up.data / "log.sqlite3", [SECRET.encode()]) == []  # sealed from the start
        with pytest.raises(RefusedError, match="exactly one"):
            hs.operator.erase(BANK, "asked", session_id="s1", turn_id="t1")

        with HindsightClient(up.base, ALICE) as alice, pytest.raises(ForbiddenError):
            alice.operator.erase(BANK, "asked", session_id="s1")

        done = hs.operator.erase(BANK, "user request (GDPR art. 17)", session_id="s1", timeout_s=60)
        assert done.ready and "turn:t1" in done.units and done.turn_ids == ["t1"]
        assert sorted(done.memory_ids) == sorted(str(m.memory_id) for m in mine)
        assert files_holding(up.data, needles) == []  # the log, the keys, LanceDB, Parquet, snapshots
        assert not any(SECRET in h.text or "Hangzhou" in h.text for h in hs.recall(BANK, "where do I live?").hits)
        timeline = hs.session(BANK, "s1").model_dump_json()  # the archive: the placeholder, who and when
        assert SECRET not in timeline and "[erased by " in timeline, timeline

        # The CLI on the same data directory: the running service's projections apply it, the CLI waits.
        proc = cli(up.data, "erase", "--bank", BANK, "--turn", "t3", "--reason", "asked", "--json", "--timeout", "60")
        assert proc.returncode == 0, proc.stderr
        found = json.loads(proc.stdout)
        assert found["ready"] and found["turn_ids"] == ["t3"], found
        assert files_holding(up.data, [b"green tea"]) == []
        texts = [h.text for h in hs.recall(BANK, "what am I allergic to?").hits]
        assert any("peanuts" in t for t in texts) and not any("green tea" in t for t in texts)
    assert "Traceback" not in up.errors.read_text()


def test_an_erased_memory_reads_as_erased_and_a_bank_all_erased_as_known(up: Up) -> None:
    import httpx

    bank = "carol"
    with HindsightClient(up.base, OPS) as hs:
        said = hs.retain(bank, "We use PostgreSQL for the billing database.", session_id="c1", turn_id="c1", wait=True)
        again = hs.retain(bank, "We use MySQL for the billing database.", session_id="c2", turn_id="c2", wait=True)
        old = next(m.memory_id for m in said.memories if m.kind == "fact")
        new = next(m.memory_id for m in again.memories if m.kind == "fact")
        assert [m.memory_id for m in hs.history(bank, old).superseded_by] == [new]  # MySQL replaced PostgreSQL
        assert hs.operator.erase(bank, "user asked", memory_id=new, timeout_s=60).ready
        # PostgreSQL again, brought back by the erase itself (as a rollback would): nothing replaces it now
        assert hs.history(bank, old).events[-1].reason == "what had displaced it was erased"

        erased = hs.history(bank, new)
        assert erased.status == "erased" and erased.text and erased.text.startswith("[erased by "), erased
        assert erased.events[-1].type == "ContentErased"
        back = hs.history(bank, old)
        assert back.status == "active" and back.superseded_by == [], back  # no link to what no longer replaces it
        assert "MemorySuperseded" in [e.type for e in back.events]  # the events keep the supersession
        episode = next(m.memory_id for m in again.memories if m.kind == "episode")
        assert hs.history(bank, episode).events[-1].reason == f"says only what {new} said, erased: user asked"

        # The CLI's history: erased, with the placeholder (text, not markup) and what the erasure did
        shown = cli(up.data, "history", str(new))
        assert shown.returncode == 0, shown.stderr
        assert "fact, erased, bank 'carol'" in shown.stdout and "  [erased by " in shown.stdout, shown.stdout
        assert "erased: its content is destroyed, for good (user asked)" in shown.stdout, shown.stdout

        with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=30) as ui:
            assert ui.post("/ui/login", data={"token": OPS}).status_code == 303
            sessions = ui.get(f"/ui/banks/{bank}/sessions")
            # c2: its fact erased, its episode forgotten with it (it said only what the fact said)
            assert sessions.status_code == 200 and "1 erased" in sessions.text, sessions.text
            assert "2 forgotten" not in sessions.text, sessions.text
            page = ui.get(f"/ui/banks/{bank}/memories/{old}")
            assert page.status_code == 200 and "superseded by →" not in page.text, page.text
            page = ui.get(f"/ui/banks/{bank}/memories/{new}")  # its history, not a 404
            assert page.status_code == 200 and '<dd id="status">erased</dd>' in page.text, page.text

        # A bank whose only session was erased: known, with nothing left in it, and how much was erased
        hs.retain("mcp2", "We use MySQL for the orders database.", session_id="s1", wait=True)
        assert hs.operator.erase("mcp2", "user asked", session_id="s1", timeout_s=60).ready
        assert hs.recall("mcp2", "which database do we use?").hits == []
        assert hs.stats("mcp2").memories == {"erased": 2}
    recall = cli(up.data, "recall", "mcp2", "which database do we use?")
    assert recall.returncode == 0 and "no hits in bank 'mcp2'" in recall.stdout, recall
    stats = cli(up.data, "stats")
    assert stats.returncode == 0 and "mcp2 2 memories" in stats.stdout, stats.stdout


def test_a_whole_bank_erased_over_http_beside_a_running_service(up: Up) -> None:
    bank = "dave"
    with HindsightClient(up.base, OPS) as hs:
        hs.retain(bank, f"My passport number is {SECRET} and I live in Lisbon.", session_id="d1", turn_id="d1")
        hs.retain(bank, "I take the 8:15 ferry to work.", session_id="d2", turn_id="d2", wait=True)
        hs.retain("erin", "I take the 7:40 tram to work.", session_id="e1", turn_id="e1", wait=True)
        assert any("Lisbon" in h.text for h in hs.recall(bank, "where do I live?").hits)
        mine = [m for m in retained(up.data) if m.bank_id == bank]
        needles = [SECRET.encode(), b"Lisbon", b"8:15 ferry", *(m.vector[16:48] for m in mine)]
        with HindsightClient(up.base, ALICE) as alice, pytest.raises(ForbiddenError):
            alice.operator.erase_bank(BANK, "asked")

        done = hs.operator.erase_bank(bank, "account closed", timeout_s=60)
        assert done.bank_id == bank and len(done.erasures) == 2  # a session each
        assert all(e.ready for e in done.erasures)
        assert sorted(m for e in done.erasures for m in e.memory_ids) == sorted(str(m.memory_id) for m in mine)
        assert files_holding(up.data, needles) == []
        assert not any("ferry" in h.text or "Lisbon" in h.text for h in hs.recall(bank, "how do I get to work?").hits)
        assert any("tram" in h.text for h in hs.recall("erin", "how do I get to work?").hits)  # another bank
        with pytest.raises(NotFoundError, match="nothing to erase"):
            hs.operator.erase_bank(bank, "again")
    assert "Traceback" not in up.errors.read_text()
