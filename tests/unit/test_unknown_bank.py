"""A bank nothing was recorded in: its disputes and owners are 404 (a tool error over MCP, ``NotFoundError``
from the client), as recall, stats, sessions and the browser answer; get_context alone answers an empty
block, because an agent asks for context before its first turn is retained. Over the real ASGI app, an
in-memory MCP client and the client, with the bank actor and the projections drained in between."""

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
from hindsight_es.errors import NotFoundError
from streams.service import catch_up_all

pytestmark = pytest.mark.asyncio
UNKNOWN = "unknown bank 'nobody': nothing has been recorded in it yet"


@pytest_asyncio.fixture
async def hs(tmp_path) -> AsyncIterator[Hindsight]:
    async with Hindsight(Settings(data_dir=tmp_path, embedder="minilm")) as client:
        await client.start()
        yield client


async def tool(hs: Hindsight, name: str, **arguments: Any) -> Any:
    async with Client(build_server(hs, Access.local())) as mcp:
        return await mcp.call_tool(name, arguments)


def text_of(result: Any) -> str:
    return " ".join(c.text for c in result.content if c.type == "text")


async def test_disputes_and_owners_of_an_unknown_bank_are_not_found_at_every_door(
    hs: Hindsight, http: httpx.AsyncClient
) -> None:
    for path in ("/v1/banks/nobody/disputes", "/v1/banks/nobody/owners", "/v1/banks/nobody/stats"):
        answer = await http.get(path)
        assert answer.status_code == 404, (path, answer.text)
        assert answer.json()["detail"].startswith(UNKNOWN), answer.text
    for action in ("disputes", "owners"):
        result = await tool(hs, "trust", bank_id="nobody", action=action)
        assert result.is_error and UNKNOWN in text_of(result), text_of(result)
    with pytest.raises(NotFoundError, match=UNKNOWN):
        await hs.disputes.disputed("nobody")
    with pytest.raises(NotFoundError, match=UNKNOWN):
        await hs.disputes.owners("nobody")


async def test_a_bank_with_something_recorded_has_its_disputes_and_owners(
    hs: Hindsight, http: httpx.AsyncClient
) -> None:
    await hs.retain("alice", "I live in Oslo.", session_id="s1")
    await hs.disputes.set_owners("declared", ["mcp:token-ab12cd34"], reason="before its first turn", wait=False)
    await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
    disputes = await http.get("/v1/banks/alice/disputes")
    assert disputes.status_code == 200 and disputes.json()["disputes"] == [], disputes.text
    owners = await http.get("/v1/banks/alice/owners")
    assert owners.status_code == 200 and owners.json()["owners"] == ["user"], owners.text
    declared = await http.get("/v1/banks/declared/owners")  # a declaration is something recorded in the bank
    assert declared.status_code == 200 and declared.json()["owners"] == ["mcp:token-ab12cd34"], declared.text


async def test_the_first_get_context_of_a_new_bank_is_an_empty_block(hs: Hindsight, http: httpx.AsyncClient) -> None:
    answer = await http.post("/v1/banks/nobody/context", json={"session_id": "s1", "text": "hello, who am I?"})
    assert answer.status_code == 200, answer.text
    block = answer.json()
    assert (block["bank_id"], block["memory_ids"], block["turn_ids"]) == ("nobody", [], [])
    result = await tool(hs, "get_context", bank_id="nobody", session_id="s1", text="hello, who am I?")
    assert not result.is_error and result.structured_content["memory_ids"] == [], text_of(result)
    assert (await hs.context("nobody", "s1", "hello")).memory_ids == []
