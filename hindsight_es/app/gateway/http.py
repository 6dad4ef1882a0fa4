"""The MCP server over streamable HTTP at ``http://HOST:PORT/mcp``, run by ``up`` in its event loop.

Exposure rules (checked before anything listens): bound to 127.0.0.1 unless ``HINDSIGHT_MCP_HOST``
says otherwise; with tokens configured every request needs one (401 without); without tokens it
serves only a loopback interface, open to local processes, with a warning; a non-loopback interface
without tokens is refused. Without tokens every request must name a loopback Host (and Origin, when
sent): DNS rebinding (``headers.LoopbackNames``).
``/metrics`` on the same server serves the Prometheus metrics (a valid token needed once tokens are set).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import uvicorn

from hindsight_es.app.gateway.app import build_app
from hindsight_es.app.gateway.headers import is_loopback
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import ConfigError

log_ = logging.getLogger("hindsight.gateway")
PATH = "/mcp"
SHUTDOWN_GRACE_S = 2  # whole seconds: uvicorn types timeout_graceful_shutdown as an int


def check_exposure(settings: Settings, *, joining: bool = False) -> None:
    if not settings.mcp_tokens and not is_loopback(settings.mcp_host):
        raise ConfigError(
            f"refusing to serve MCP on {settings.mcp_host} without tokens: set HINDSIGHT_MCP_TOKENS "
            "(or HINDSIGHT_MCP_HOST=127.0.0.1, or HINDSIGHT_MCP_HTTP=false)"
        )
    if not settings.mcp_tokens and not joining:  # a reader's starter has said it
        log_.warning("MCP over HTTP has no tokens (HINDSIGHT_MCP_TOKENS): any local process may use every bank")


def listen(settings: Settings, *, joining: bool = False) -> socket.socket:
    """The listening socket, opened now so a taken port is a clear error before the service starts.
    ``joining``: a reader's, on the port its starter holds."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            settings.mcp_host, settings.mcp_port, type=socket.SOCK_STREAM
        )[0]
        shared = settings.readers > 1  # `up` and its readers (``readers``) accept on one port; the kernel spreads them
        if shared and not joining:
            # Any process of the same user that sets SO_REUSEPORT may bind the port too, so another `up` on
            # it would silently take half the connections: first bind without the option, which fails if
            # anything holds the port.
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve MCP on {settings.mcp_host}:{settings.mcp_port}: {exc.strerror or exc} "
            "(HINDSIGHT_MCP_PORT / HINDSIGHT_MCP_HOST, or HINDSIGHT_MCP_HTTP=false)"
        ) from exc
    return sock


def url(settings: Settings) -> str:
    host = f"[{settings.mcp_host}]" if ":" in settings.mcp_host else settings.mcp_host
    return f"http://{host}:{settings.mcp_port}{PATH}"


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # the service owns SIGINT/SIGTERM and stops this server through ``stop``


def http_task(
    settings: Settings, hs: Hindsight, *, joining: bool = False
) -> Callable[[asyncio.Event], Coroutine[Any, Any, None]]:
    """Check the exposure rules and open the socket now (``joining``: a reader's, on its starter's port);
    returns the task that serves until ``stop``."""
    check_exposure(settings, joining=joining)
    app = build_app(hs, settings, issuer_url=url(settings).removesuffix(PATH))
    sock = listen(settings, joining=joining)
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
