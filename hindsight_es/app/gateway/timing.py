"""``hindsight_http_request_seconds{method, route, status}``: the latency of each API and dashboard request.

A plain ASGI wrapper (no response buffering), applied to ``/v1`` and ``/ui`` only: MCP's streams pass
through untouched. ``route`` is the route's template (``/v1/banks/{bank_id}/recall``), never a raw path.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Histogram

from hindsight_es.observe import LATENCY_BUCKETS

HTTP_SECONDS = Histogram(
    "hindsight_http_request_seconds",
    "HTTP API and dashboard requests",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
TIMED = ("/v1/", "/ui")


class Timed:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(TIMED):
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), {"code": 500}

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or "unmatched"
            HTTP_SECONDS.labels(scope["method"], route, str(status["code"])).observe(time.perf_counter() - started)
