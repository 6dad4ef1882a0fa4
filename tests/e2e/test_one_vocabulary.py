"""One vocabulary at every door: the CLI's ``--json``, the HTTP API and the MCP tools answer the same object
with the same model (``hindsight_es.remote.models``), over one data directory.

The pipeline runs in this process (``app.local``); HTTP goes through the real ASGI app, MCP through an
in-memory connection to the real server, and the CLI runs as a subprocess beside them (a running service
to it: it waits for this process's pipeline, so it runs in a thread while the loop serves).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from mcp import Client

from hindsight_es.app.gateway.app import build_app
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.server import build_server
from hindsight_es.app.local import local
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.remote.models import TrustResult
from tests.e2e.test_cli import cli

pytestmark = pytest.mark.asyncio(loop_scope="module")
WAIT_S = 60


@dataclass
class Doors:
    hs: Hindsight
    http: httpx.AsyncClient
    data: Path

    async def mcp(self, tool: str, **arguments: Any) -> dict[str, Any]:
        async with Client(build_server(self.hs, Access.local())) as client:
            result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content
        assert result.structured_content is not None
        return result.structured_content

    async def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        return await asyncio.to_thread(cli, self.data, *args, HINDSIGHT_EMBEDDER="minilm", timeout=180)

    async def cli_json(self, *args: str) -> Any:
        proc = await self.cli(*args, "--json")
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    async def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        answer = await self.http.post(path, json=body)
        assert answer.status_code == status, answer.text
        return answer.json()

    async def get(self, path: str) -> Any:
        answer = await self.http.get(path)
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def doors(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Doors]:
    data = tmp_path_factory.mktemp("vocabulary") / "data"
    settings = Settings(data_dir=data, embedder="minilm", mcp_wait_timeout_s=WAIT_S)
    async with local(settings) as hs:
        app = build_app(hs, settings)
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=WAIT_S
        ) as http:
            yield Doors(hs, http, data)


def bank(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def test_a_retain_answers_the_importance_and_confidence_the_bank_actor_decided(doors: Doors) -> None:
    said = {"text": "I'm allergic to peanuts.", "session_id": "s1", "wait": True, "timeout_s": WAIT_S}
    over_mcp = await doors.mcp("retain", bank_id=bank("mcp"), **said)
    over_http = await doors.post(f"/v1/banks/{bank('http')}/memories", said, 201)
    for answer in (over_mcp, over_http):
        assert answer["ready"] is True and answer["memories"], answer
        for memory in answer["memories"]:
            decided = (await doors.hs.history(answer["bank_id"], memory["memory_id"]))["retained"]
            assert (memory["importance"], memory["confidence"]) == (decided["importance"], decided["confidence"])
            assert memory["importance"] is not None and memory["confidence"] is not None
    one = over_http["memories"][-1]
    again = await doors.get(f"/v1/banks/{over_http['bank_id']}/memories/{one['memory_id']}")
    assert (again["importance"], again["confidence"]) == (one["importance"], one["confidence"])
    page = await doors.get(f"/v1/banks/{over_http['bank_id']}/memories")
    listed = {m["memory_id"]: m for m in page["memories"]}[one["memory_id"]]  # not the float32 the store holds
    assert (listed["importance"], listed["confidence"]) == (one["importance"], one["confidence"])


async def test_an_erasure_not_decided_says_null_for_its_time_at_every_door(doors: Doors) -> None:
    b = bank("erase")
    said = {"text": "My passport number is ZX9931Q.", "session_id": "s1", "turn_id": "t1", "wait": True}
    assert (await doors.post(f"/v1/banks/{b}/memories", said | {"timeout_s": WAIT_S}, 201))["ready"]
    first = await doors.post(f"/v1/banks/{b}/erase", {"turn_id": "t1", "reason": "asked", "timeout_s": WAIT_S})
    assert first["ready"] and first["erased_at"] and first["units"], first
    assert first["ignored"] is None, first  # nothing ignored: null, not ""
    again = {
        "http": await doors.post(f"/v1/banks/{b}/erase", {"turn_id": "t1", "reason": "again"}),
        "mcp": await doors.mcp("erase", bank_id=b, turn_id="t1", reason="again"),
        "cli": await doors.cli_json("erase", "--bank", b, "--turn", "t1", "--reason", "again"),
    }
    assert set(again["cli"]) == set(again["http"]) == set(again["mcp"])  # the ErasureResult at every door
    for door, answer in again.items():
        assert answer["erased_at"] is None and answer["units"] == [], (door, answer)
        assert answer["ignored"].startswith("nothing left to erase: erased before"), (door, answer)
    unwaited = await doors.post(f"/v1/banks/{b}/erase", {"turn_id": "t1", "reason": "again", "wait": False})
    assert unwaited["erased_at"] is None and unwaited["ready"] is False and unwaited["ignored"] is None


async def disputed_bank(doors: Doors) -> str:
    """A bank whose owner said one thing and a document another: a hit with an open dispute."""
    b = bank("words")
    said = {"session_id": "s1", "wait": True, "timeout_s": WAIT_S}
    await doors.post(
        f"/v1/banks/{b}/memories", said | {"text": "Our office is at 12 Oak Avenue.", "turn_id": "u1"}, 201
    )
    doc = said | {"text": "The office moved to 5 Elm St.", "turn_id": "d1", "source": "document"}
    assert {m["status"] for m in (await doors.post(f"/v1/banks/{b}/memories", doc, 201))["memories"]} == {"disputed"}
    return b


async def test_recall_json_is_the_recall_result_of_http_and_mcp(doors: Doors) -> None:
    b = await disputed_bank(doors)
    query = "where is our office?"
    over_cli = await doors.cli_json("recall", b, query)
    over_http = await doors.post(f"/v1/banks/{b}/recall", {"query": query})
    over_mcp = await doors.mcp("recall", bank_id=b, query=query)
    assert set(over_cli) == set(over_http) == set(over_mcp) == {"bank_id", "query", "hits"}
    assert over_cli["hits"] and [h["memory_id"] for h in over_cli["hits"]] == [
        h["memory_id"] for h in over_http["hits"]
    ]
    for cli_hit, http_hit in zip(over_cli["hits"], over_http["hits"], strict=True):
        assert set(cli_hit) == set(http_hit) and "agent" in cli_hit and not {"owner", "disputed_by"} & set(cli_hit)
        assert cli_hit["disputes"] == http_hit["disputes"]
    assert any(h["disputes"] for h in over_cli["hits"])
    listed = await doors.cli_json("disputes", "list", "--bank", b)
    assert listed["disputes"] and listed == await doors.get(f"/v1/banks/{b}/disputes")  # the TrustResult
    every = await doors.cli_json("disputes", "list")  # every bank's: an object too, its bank_id null
    assert every["bank_id"] is None and set(every) == set(listed) and listed["disputes"][0] in every["disputes"]
    TrustResult.model_validate(every)  # what the schema says: a client generated from it reads this too
    quarantined = await doors.cli_json("quarantine", "list", "--bank", b)
    assert quarantined == await doors.get(f"/v1/quarantine?bank_id={b}")  # the QuarantineResult


async def retained_fact(doors: Doors) -> tuple[str, str]:
    """A bank and the id of the typed memory retained from its one turn (session s1)."""
    b = bank("lineage")
    said = {"text": "We use MySQL for billing.", "session_id": "s1", "turn_id": "t1", "wait": True}
    retained = await doors.post(f"/v1/banks/{b}/memories", said | {"timeout_s": WAIT_S}, 201)
    return b, next(m for m in retained["memories"] if m["kind"] != "episode")["memory_id"]


async def test_history_json_is_the_history_result(doors: Doors) -> None:
    b, mid = await retained_fact(doors)
    assert await doors.cli_json("history", mid) == await doors.get(f"/v1/banks/{b}/memories/{mid}/history")


async def test_correct_json_is_the_correct_result_with_the_memory_as_http_reads_it(doors: Doors) -> None:
    b, mid = await retained_fact(doors)
    corrected = await doors.cli_json("correct", mid, "We use PostgreSQL for billing.", "--timeout", str(WAIT_S))
    assert set(corrected) == {"bank_id", "corrected_id", "ready", "memory"} and corrected["corrected_id"] == mid
    assert corrected["ready"] is True and corrected["memory"]["provenance"] == "user", corrected
    new = corrected["memory"]["memory_id"]
    assert corrected["memory"] == await doors.get(f"/v1/banks/{b}/memories/{new}")


async def test_forget_and_restore_json_are_the_results_of_http(doors: Doors) -> None:
    b, mid = await retained_fact(doors)
    forgot = await doors.cli_json("forget", b, mid, "--timeout", str(WAIT_S))
    assert forgot == {"bank_id": b, "memory_id": mid, "ready": True}  # a ForgetResult
    assert set(forgot) == set(await doors.post(f"/v1/banks/{b}/memories/{mid}/restore", {"wait": True}))
    again = await doors.cli_json("forget", b, mid, "--timeout", str(WAIT_S))
    restored = await doors.cli_json("restore", b, mid, "--timeout", str(WAIT_S))
    assert again["ready"] is True and restored == {"bank_id": b, "memory_id": mid, "ready": True}  # RestoreResult
    ended = await doors.cli_json("end-session", b, "s1", "--timeout", str(WAIT_S))  # no HTTP operation: an object
    assert ended["bank_id"] == b and ended["session_id"] == "s1" and isinstance(ended["events"], list)


async def test_replay_json_is_the_operator_results_of_http(doors: Doors) -> None:
    b, mid = await retained_fact(doors)
    assert await doors.cli_json("replay", "state", "--bank", b) == await doors.get(f"/v1/banks/{b}/state")
    plan = await doors.cli_json("replay", "rollback", "--bank", b, "--session", "s1", "--dry-run")
    assert plan == await doors.post(f"/v1/banks/{b}/rollback/plan", {"session_id": "s1"})
    assert mid in [m["memory_id"] for m in plan["retract"]]
    timeline = await doors.cli_json("replay", "audit", "--bank", b, "--session", "s1")
    assert timeline == await doors.get(f"/v1/banks/{b}/sessions/s1")
    sessions = await doors.cli_json("replay", "audit", "--bank", b)
    assert sessions == {"bank_id": b, "sessions": await doors.get(f"/v1/banks/{b}/sessions")}
    assert await doors.cli_json("replay", "audit", mid) == await doors.get(f"/v1/banks/{b}/memories/{mid}/history")
    done = await doors.cli_json("replay", "rollback", "--bank", b, "--session", "s1", "--timeout", str(WAIT_S))
    assert set(done) == {"bank_id", "retraction_id", "retracted", "restored", "ready"} and mid in done["retracted"]
    undone = await doors.cli_json(
        "replay", "undo-rollback", "--bank", b, "--retraction", done["retraction_id"], "--timeout", str(WAIT_S)
    )
    assert sorted(undone["restored"]) == sorted(done["retracted"]) and undone["ready"] is True, undone
    # sent again over HTTP, with nothing left to undo: the same UndoResult (what the rollback took out of use)
    assert undone == await doors.post(f"/v1/banks/{b}/rollback/{done['retraction_id']}/undo", {})


async def test_owners_show_json_is_the_trust_result_of_http(doors: Doors) -> None:
    b, _ = await retained_fact(doors)
    shown = await doors.cli_json("owners", "show", b)
    assert shown["owners"] and shown == await doors.get(f"/v1/banks/{b}/owners"), shown
