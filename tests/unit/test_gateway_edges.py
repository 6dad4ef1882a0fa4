"""The gateway's edges: ``/metrics`` scoped to the token's banks, two ``Authorization`` headers refused
on every route, ``/healthz`` saying why it is degraded; over the real ASGI app."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from hindsight_es.app.gateway.app import build_app
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.health import HEALTH
from hindsight_es.memory.state import BankState
from streams import metrics

pytestmark = pytest.mark.asyncio
ALICE, OPS = "alice-token-000000000001", "ops-token-00000000000002"


@pytest_asyncio.fixture
async def http(tmp_path) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(data_dir=tmp_path, embedder="minilm", mcp_tokens={ALICE: ["alice"], OPS: "*"})
    withdraw = metrics.register(lambda: {b: BankState(b) for b in ("alice", "bob")})
    try:
        async with Hindsight(settings) as hs:
            app = build_app(hs, settings)
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
                yield c
    finally:
        withdraw()


async def test_metrics_show_a_bank_token_only_its_banks(http: httpx.AsyncClient) -> None:
    assert (await http.get("/metrics")).status_code == 401
    alice = await http.get("/metrics", headers={"Authorization": f"Bearer {ALICE}"})
    assert alice.status_code == 200
    assert 'hindsight_memories{bank="alice",state="active"}' in alice.text
    assert 'bank="bob"' not in alice.text
    assert "hindsight_memory_events_total" in alice.text or "hindsight_memory_events" in alice.text
    ops = (await http.get("/metrics", headers={"Authorization": f"Bearer {OPS}"})).text
    assert 'hindsight_memories{bank="bob",state="active"}' in ops and 'bank="alice"' in ops


@pytest.mark.parametrize("path", ["/metrics", "/v1/banks", "/ui/", "/mcp"])
async def test_two_authorization_headers_are_refused_everywhere(http: httpx.AsyncClient, path: str) -> None:
    headers = [("Authorization", f"Bearer {ALICE}"), ("Authorization", f"Bearer {OPS}")]
    answer = await http.get(path, headers=headers)
    assert answer.status_code == 400, (path, answer.text)
    assert answer.headers["content-type"] == "application/problem+json"
    assert "more than one Authorization header" in answer.json()["detail"]


async def test_healthz_reports_a_degraded_component_and_recovers(http: httpx.AsyncClient) -> None:
    assert (await http.get("/healthz")).text == "ok\n"
    HEALTH.degrade("log", "database or disk is full")
    try:
        degraded = await http.get("/healthz")
        assert degraded.status_code == 503 and "log: database or disk is full" in degraded.text
    finally:
        HEALTH.recover("log")
    assert (await http.get("/healthz")).status_code == 200


@pytest_asyncio.fixture
async def local(tmp_path) -> AsyncIterator[httpx.AsyncClient]:
    """The default gateway: no tokens, loopback only, every request with the local user's access."""
    settings = Settings(data_dir=tmp_path, embedder="minilm")
    async with Hindsight(settings) as hs:
        app = build_app(hs, settings)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8765") as c:
            yield c


@pytest.mark.parametrize("path", ["/v1/banks", "/ui", "/metrics", "/mcp"])
async def test_without_tokens_a_rebound_name_is_refused_everywhere(local: httpx.AsyncClient, path: str) -> None:
    """DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends its own Host and a matching Origin."""
    rebound = {"Host": "evil.example:8765", "Origin": "http://evil.example:8765"}
    answer = await local.get(path, headers=rebound)
    assert answer.status_code == 421, (path, answer.text)
    assert "loopback name" in answer.json()["detail"]
    post = await local.post(
        "/v1/banks/rebound/memories", json={"text": "I live in Oslo", "session_id": "s"}, headers=rebound
    )
    assert post.status_code == 421
    assert "rebound" not in (await local.get("/v1/banks")).text  # nothing was written


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "localhost"])
async def test_without_tokens_loopback_names_are_served(local: httpx.AsyncClient, host: str) -> None:
    assert (await local.get("/v1/banks", headers={"Host": host})).status_code == 200


async def test_without_tokens_a_foreign_origin_is_refused(local: httpx.AsyncClient) -> None:
    answer = await local.post(
        "/v1/banks/b/memories", json={"text": "hi", "session_id": "s"}, headers={"Origin": "https://evil.example"}
    )
    assert answer.status_code == 403 and "Origin" in answer.json()["detail"]
    assert (await local.get("/v1/banks", headers={"Origin": "http://localhost:8765"})).status_code == 200


async def test_with_tokens_any_name_is_served(http: httpx.AsyncClient) -> None:
    """Behind a reverse proxy the Host is the public name; a token, not the name, authorizes."""
    headers = {"Host": "memory.example.com", "Authorization": f"Bearer {OPS}"}
    assert (await http.get("/v1/banks", headers=headers)).status_code == 200
