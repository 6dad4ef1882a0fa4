"""``/metrics``: the Prometheus text exposition of every registered metric (with tokens, any valid one)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from starlette.requests import Request
from starlette.responses import Response

from hindsight_es.app.gateway.auth import BankTokens


def metrics_endpoint(tokens: BankTokens | None) -> Callable[[Request], Awaitable[Response]]:
    """Prometheus text exposition of every registered metric (the service registers the bank counts);
    with tokens configured, any valid bearer token may read it."""

    async def metrics(request: Request) -> Response:
        if tokens is not None:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or await tokens.verify_token(token.strip()) is None:
                return Response("unauthorized\n", status_code=401, headers={"WWW-Authenticate": "Bearer"})
        body = await asyncio.to_thread(generate_latest, REGISTRY)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return metrics
