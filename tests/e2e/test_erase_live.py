"""Erase while ``up`` runs: over HTTP (the Python client) and with the CLI on the same data directory.
Nothing but the service's own projections writes its tables: the erase destroys the keys and records the
erasure, waits until every projection has applied it, and then no file of the data directory holds a byte
of the erased content. A bank-scoped token cannot erase, even its own bank."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from hindsight_es.remote import HindsightClient
from hindsight_es.remote.errors import ForbiddenError, RefusedError
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
