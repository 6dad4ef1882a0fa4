"""Access is checked before the request is: with tokens, a caller learns nothing of a route's or a tool's
schema for a bank its token does not cover (401 or 403, never 422); over the real ASGI app and an
in-memory MCP client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio
from mcp import Client

from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.server import build_server
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

pytestmark = pytest.mark.asyncio
ALICE, OPS = "alice-token-000000000001", "ops-token-00000000000002"
MEMORY = "00000000-0000-4000-8000-000000000000"
BAD = {"text": "", "sesion": "s", "wait": "yes"}  # three ways to fail the schema
DENIED = "access denied: this connection may not use bank 'bob'"


@pytest_asyncio.fixture
async def hs(tmp_path) -> AsyncIterator[Hindsight]:
    settings = Settings(data_dir=tmp_path, embedder="minilm", mcp_tokens={ALICE: ["alice"], OPS: "*"})
    async with Hindsight(settings) as client:
        yield client


def as_(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


# Every route of the API that names a bank in its path, with a body or query that fails its schema.
ON_BOB: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/banks/bob/memories", {"json": BAD}),
    ("POST", "/v1/banks/bob/recall", {"json": {"query": "", "limit": 0}}),
    ("POST", "/v1/banks/bob/context", {"json": {"budget_tokens": 1}}),
    ("GET", "/v1/banks/bob/memories", {"params": {"kinds": "fact", "limit": "0"}}),
    ("GET", "/v1/banks/bob/memories/not-a-uuid", {}),
    ("GET", "/v1/banks/bob/memories/not-a-uuid/history", {}),
    (
        "POST",
        f"/v1/banks/bob/memories/{MEMORY}/forget",
        {"content": b"{not json", "headers": {"content-type": "application/json"}},
    ),
    ("POST", f"/v1/banks/bob/memories/{MEMORY}/correct", {"json": {"text": ""}}),
    ("POST", f"/v1/banks/bob/memories/{MEMORY}/restore", {"json": {"wait": 3}}),
    ("GET", "/v1/banks/bob/stats", {"params": {"nosuch": "1"}}),
    ("GET", "/v1/banks/bob/sessions", {"params": {"nosuch": "1"}}),
    ("GET", "/v1/banks/bob/sessions/s1", {"params": {"nosuch": "1"}}),
    ("GET", "/v1/banks/bob/state", {"params": {"as_of": "yesterday"}}),
    ("GET", "/v1/banks/bob/disputes", {"params": {"nosuch": "1"}}),
    ("POST", "/v1/banks/bob/disputes/accept", {"json": {"memory_ids": "x"}}),
    ("GET", "/v1/banks/bob/owners", {"params": {"nosuch": "1"}}),
]
# The operator's routes, refused to a token for one bank whatever it sends (its own bank too).
OPERATORS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/v1/stats", {"params": {"nosuch": "1"}}),
    ("GET", "/v1/quarantine", {"params": {"bank_id": "!", "limit": "0"}}),
    ("POST", "/v1/banks/alice/quarantine/release", {"json": {}}),
    ("POST", "/v1/banks/alice/rollback/plan", {"json": {"since": "soon"}}),
    ("POST", "/v1/banks/alice/rollback", {"json": {}}),
    ("POST", f"/v1/banks/alice/rollback/{MEMORY}/undo", {"json": {"wait": "no"}}),
    ("POST", "/v1/banks/alice/erase", {"json": {}}),
    ("PUT", "/v1/banks/alice/owners", {"json": {"owners": "me"}}),
]


@pytest.mark.parametrize(("method", "path", "sent"), ON_BOB)
async def test_a_bank_the_token_does_not_cover_is_403_before_the_request_is_validated(
    http: httpx.AsyncClient, method: str, path: str, sent: dict[str, Any]
) -> None:
    sent = dict(sent)
    headers = sent.pop("headers", {})
    answer = await http.request(method, path, headers=as_(ALICE) | headers, **sent)
    assert answer.status_code == 403, answer.text
    assert answer.json()["detail"] == DENIED
    nobody = await http.request(method, path, headers=headers, **sent)
    assert nobody.status_code == 401, nobody.text  # no token: 401 before anything else, too
    ops = await http.request(method, path, headers=as_(OPS) | headers, **sent)
    assert ops.status_code == 422, ops.text  # a caller with the bank is told what is wrong with its request


@pytest.mark.parametrize(("method", "path", "sent"), OPERATORS)
async def test_an_operators_route_refuses_a_one_bank_token_before_the_request_is_validated(
    http: httpx.AsyncClient, method: str, path: str, sent: dict[str, Any]
) -> None:
    answer = await http.request(method, path, headers=as_(ALICE), **sent)
    assert answer.status_code == 403, answer.text
    assert "for operators" in answer.json()["detail"]
    assert (await http.request(method, path, **sent)).status_code == 401


async def test_a_bank_id_the_schema_refuses_is_403_to_a_token_without_it(http: httpx.AsyncClient) -> None:
    answer = await http.get("/v1/banks/b%C3%B6b/stats", headers=as_(ALICE))  # "böb": not ASCII, not the token's
    assert answer.status_code == 403, answer.text
    assert (await http.get("/v1/banks/b%C3%B6b/stats", headers=as_(OPS))).status_code == 422


async def tool(access: Access, hs: Hindsight, name: str, **arguments: Any) -> str:
    async with Client(build_server(hs, access)) as mcp:
        result = await mcp.call_tool(name, arguments)
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content if c.type == "text")


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("retain", {"text": "", "sesion_id": "s"}),
        ("recall", {"query": "", "limit": 0}),
        ("get_context", {"budget_tokens": 1}),
        ("forget", {"memory_id": ""}),
        ("correct", {"memory_id": MEMORY, "text": ""}),
        ("history", {}),
        ("bank_stats", {"nosuch": 1}),
        ("restore", {"memory_id": MEMORY, "wait": "later"}),
        ("trust", {"action": "nothing"}),
    ],
)
async def test_a_tool_call_for_a_bank_the_caller_may_not_use_is_refused_before_its_arguments(
    hs: Hindsight, name: str, arguments: dict[str, Any]
) -> None:
    alice = Access(frozenset({"alice"}), "alice", "mcp:token-alice")
    assert await tool(alice, hs, name, bank_id="bob", **arguments) == f"{name}: {DENIED}"
    assert await tool(alice, hs, name, bank="bob", **arguments) == f"{name}: {DENIED}"  # the older name of it
    said = await tool(Access.local(), hs, name, bank_id="bob", **arguments)
    assert said.startswith(f"{name}: ") and "access denied" not in said  # with the bank: what is wrong with it


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("erase", {"reason": ""}, "erase is for operators"),
        ("quarantine", {"action": "everything"}, "quarantine review is for operators"),
        ("trust", {"action": "set_owners", "owners": "me"}, "declaring a bank's owners is for operators"),
    ],
)
async def test_an_operators_tool_refuses_a_one_bank_caller_before_its_arguments(
    hs: Hindsight, name: str, arguments: dict[str, Any], says: str
) -> None:
    alice = Access(frozenset({"alice"}), "alice", "mcp:token-alice")
    assert await tool(alice, hs, name, **arguments) == f"{name}: {says}: it needs a connection to every bank"
