"""Requests whose credentials are ambiguous are refused before any part of the gateway sees them.

Two ``Authorization`` headers may be read differently by a proxy (which takes the last) and by the
server (which took the first): one could authenticate while the other authorizes. Every request to
the app (MCP, HTTP API, dashboard, ``/metrics``) carrying more than one is answered 400, as a problem.
"""

from __future__ import annotations

import json
from typing import Any

from hindsight_es.app.gateway.api.problems import MEDIA_TYPE, TYPE_PREFIX


class SingleAuthorization:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and sum(1 for k, _ in scope["headers"] if k.lower() == b"authorization") > 1:
            body = json.dumps(
                {
                    "type": TYPE_PREFIX + "ambiguous-credentials",
                    "title": "Ambiguous credentials",
                    "status": 400,
                    "detail": "the request has more than one Authorization header: send exactly one",
                    "instance": scope.get("path", ""),
                }
            ).encode()
            headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
