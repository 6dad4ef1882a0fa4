"""The one ASGI app of the gateway: the HTTP API (``/v1``, ``/openapi.json``, ``/docs``), the dashboard (``/ui``),
``/metrics`` and MCP (``/mcp``), built from a ``Hindsight`` client and the settings.

``up`` serves it next to the pipeline; a stateless ``serve`` replica mounts the same app. Every part
uses the same tokens (``HINDSIGHT_MCP_TOKENS``) and the same bank scoping.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from hindsight_es.app.gateway.api import banks, memories, operator, problems, trust
from hindsight_es.app.gateway.api.access import Gate
from hindsight_es.app.gateway.auth import Access, BankTokens
from hindsight_es.app.gateway.headers import LoopbackNames, SingleAuthorization
from hindsight_es.app.gateway.metrics_route import metrics_endpoint
from hindsight_es.app.gateway.server import build_server, version
from hindsight_es.app.gateway.timing import Timed
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.health import HEALTH

MCP_PATH = "/mcp"
METRICS_PATH = "/metrics"
HEALTH_PATH = "/healthz"
PID_HEADER = "X-Hindsight-Pid"


async def _healthy(request: Request) -> Response:
    """``ok`` (200), or ``degraded`` (503) with one line per component that cannot write and why; reads
    keep serving while degraded. ``X-Hindsight-Pid`` names the process that answered (``up`` or one of
    its readers: ``gateway.readers``)."""
    status, text = HEALTH.report()
    return PlainTextResponse(text, status_code=status, headers={PID_HEADER: str(os.getpid())})


def build_app(hs: Hindsight, settings: Settings, *, issuer_url: str | None = None) -> FastAPI:
    """The gateway's ASGI app over ``hs``; its lifespan runs MCP's session manager."""
    tokens = BankTokens(settings.mcp_tokens) if settings.mcp_tokens else None
    # Without tokens (loopback only) a request has the local user's access; with tokens, none without one.
    fallback = Access.nothing() if tokens else Access.local(actor="mcp:http")
    mcp_app = build_server(
        hs, fallback, token_verifier=tokens, issuer_url=issuer_url or f"http://{settings.mcp_host}"
    ).streamable_http_app(
        streamable_http_path=MCP_PATH,
        host=settings.mcp_host,
        # No MCP sessions: every request stands alone, so any process may answer it. With sessions, a request
        # that reached another process than the one that opened its session (a reader on the shared port, a
        # replica behind a load balancer, a new connection after an idle one closed) was refused with 404.
        stateless_http=True,
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with mcp_app.router.lifespan_context(mcp_app):
            yield

    # Swagger UI's files from the fastapi-offline package, not a CDN: nothing is downloaded at run time
    app = FastAPIOffline(
        title="hindsight",
        version=version(),
        summary="Long-term memory for LLM agents: retain, recall, context, history, forget, correct, rollback.",
        description="The HTTP API of hindsight. Every operation of the MCP tools, with the same names, tokens and "
        "bank scoping, plus the operator's (quarantine review, rollback, state as of a time). Errors are RFC 9457 "
        "problem details. Send `Authorization: Bearer <token>` once tokens are configured.",
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
        swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from validator.swagger.io
    )
    from hindsight_es.app.gateway.ui import routes as ui

    problems.install(app, html=ui.error_page)
    gate = Gate(tokens)
    for module in (memories, banks, operator, trust):
        app.include_router(module.router(hs, gate))
    ui.install(app, hs, Gate(tokens, transport="ui"), settings)
    app.add_route(METRICS_PATH, metrics_endpoint(tokens), methods=["GET"], include_in_schema=False)
    # for container health checks: no token, no data
    app.add_route(HEALTH_PATH, _healthy, methods=["GET"], include_in_schema=False)

    app.mount("/", mcp_app)  # /mcp, with the SDK's bearer middleware and DNS-rebinding protection
    # Every path no route of the app takes reaches the mount: its 404 is a problem (or the dashboard's page)
    # as the app's own are, not Starlette's plain "Not Found".
    mcp_app.add_exception_handler(HTTPException, app.exception_handlers[HTTPException])
    app.add_middleware(Timed)
    if tokens is None:
        app.add_middleware(LoopbackNames)  # the local user's access only to this machine's own names
    app.add_middleware(SingleAuthorization)  # outermost: before MCP's, the API's and the dashboard's auth
    return app
