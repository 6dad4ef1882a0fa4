"""The MCP server over streamable HTTP at ``http://HOST:PORT/mcp``, run by ``up`` in its event loop.

Exposure rules (checked before anything listens): bound to 127.0.0.1 unless ``HINDSIGHT_MCP_HOST``
says otherwise; with tokens configured every request needs one (401 without); without tokens it
serves only a loopback interface, open to local processes, with a warning; a non-loopback interface
without tokens is refused. On loopback the SDK's DNS-rebinding protection checks Host and Origin.
``/metrics`` on the same server serves the Prometheus metrics (a valid token needed once tokens are set).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from starlette.requests import Request
from starlette.responses import Response

from hindsight_es.app.gateway.auth import Access, BankTokens
from hindsight_es.app.gateway.server import build_server
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import ConfigError

log_ = logging.getLogger("hindsight.gateway")
PATH = "/mcp"
METRICS_PATH = "/metrics"
HEALTH_PATH = "/healthz"
SHUTDOWN_GRACE_S = 2  # whole seconds: uvicorn types timeout_graceful_shutdown as an int


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_exposure(settings: Settings) -> None:
    if not settings.mcp_tokens and not is_loopback(settings.mcp_host):
        raise ConfigError(
            f"refusing to serve MCP on {settings.mcp_host} without tokens: set HINDSIGHT_MCP_TOKENS "
            "(or HINDSIGHT_MCP_HOST=127.0.0.1, or HINDSIGHT_MCP_HTTP=false)"
        )
    if not settings.mcp_tokens:
        log_.warning("MCP over HTTP has no tokens (HINDSIGHT_MCP_TOKENS): any local process may use every bank")


def listen(settings: Settings) -> socket.socket:
    """The listening socket, opened now so a taken port is a clear error before the service starts."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            settings.mcp_host, settings.mcp_port, type=socket.SOCK_STREAM
        )[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve MCP on {settings.mcp_host}:{settings.mcp_port}: {exc.strerror or exc} "
            "(HINDSIGHT_MCP_PORT / HINDSIGHT_MCP_HOST, or HINDSIGHT_MCP_HTTP=false)"
        ) from exc
    return sock


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


async def _healthy(request: Request) -> Response:
    return Response("ok\n", media_type="text/plain")


def url(settings: Settings) -> str:
    host = f"[{settings.mcp_host}]" if ":" in settings.mcp_host else settings.mcp_host
    return f"http://{host}:{settings.mcp_port}{PATH}"


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the service owns SIGINT/SIGTERM and stops this server through ``stop``


def http_task(settings: Settings, hs: Hindsight) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    """Check the exposure rules and open the socket now; returns the task that serves until ``stop``."""
    check_exposure(settings)
    tokens = BankTokens(settings.mcp_tokens) if settings.mcp_tokens else None
    # Without tokens (loopback only) a request has the local user's access; with tokens, none without one.
    fallback = Access.nothing() if tokens else Access.local(actor="mcp:http")
    app = build_server(
        hs, fallback, token_verifier=tokens, issuer_url=url(settings).removesuffix(PATH)
    ).streamable_http_app(streamable_http_path=PATH, host=settings.mcp_host)
    app.add_route(METRICS_PATH, metrics_endpoint(tokens), methods=["GET"])
    app.add_route(HEALTH_PATH, _healthy, methods=["GET"])  # for container health checks: no token, no data
    sock = listen(settings)
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )

    async def serve(stop: asyncio.Event) -> None:
        server = _Server(config)
        running = asyncio.create_task(server.serve(sockets=[sock]))
        stopped = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
            server.should_exit = True
            await running
        finally:
            stopped.cancel()
            sock.close()
        if not stop.is_set():
            raise RuntimeError("the MCP HTTP server stopped by itself")

    return serve
