"""Fixtures shared by the unit tests of the gateway's doors."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest_asyncio

from hindsight_es.app.gateway.app import build_app
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings


@pytest_asyncio.fixture
async def hs(tmp_path) -> AsyncIterator[Hindsight]:
    """A client over an embedded log in ``tmp_path`` (a module needing other settings defines its own)."""
    async with Hindsight(Settings(data_dir=tmp_path, embedder="minilm")) as client:
        yield client


@pytest_asyncio.fixture
async def http(hs: Hindsight) -> AsyncIterator[httpx.AsyncClient]:
    """The HTTP API over the ``hs`` fixture of the test's own module (its settings: tokens, embedder)."""
    app = build_app(hs, hs.settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
        yield c
