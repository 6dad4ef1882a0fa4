"""What the HTTP API and the MCP tools refuse before anything is written, over the real ASGI app and an in-memory
MCP client: the one-line detail of a 422, text with control characters, an erase of what the bank never held."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import pytest_asyncio

from hindsight_es.app.gateway.app import build_app
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings

pytestmark = pytest.mark.asyncio


@pytest_asyncio.fixture
async def hs(tmp_path) -> AsyncIterator[Hindsight]:
    async with Hindsight(Settings(data_dir=tmp_path, embedder="minilm")) as client:
        yield client


@pytest_asyncio.fixture
async def http(hs: Hindsight) -> AsyncIterator[httpx.AsyncClient]:
    app = build_app(hs, hs.settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
        yield c


def problem(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = answer.json()
    return body


async def test_a_422_says_its_first_problem_as_every_door_does(http: httpx.AsyncClient) -> None:
    body = problem(await http.post("/v1/banks/alice/memories", json={"text": ""}), 422)
    assert body["detail"] == "text: String should have at least 1 character"
    assert [e["field"] for e in body["errors"]] == ["body.text"]  # each error keeps where it is in the request
