"""Requests the gateway refuses before any part of it sees them, whatever the path (MCP, HTTP API,
dashboard, ``/metrics``), answered as problems.

- **Ambiguous credentials.** Two ``Authorization`` headers may be read differently by a proxy (which
  takes the last) and by the server (which took the first): one could authenticate while the other
  authorizes. A request carrying more than one is answered 400.
- **A foreign name for a loopback server.** Without tokens the gateway serves only a loopback interface
  and gives every request the local user's access. A web page can still reach it by DNS rebinding: its
  own name resolved to 127.0.0.1, so the browser sends ``Host: evil.example`` with a matching
  ``Origin`` (which defeats the dashboard's same-origin check). Without tokens a request whose ``Host``,
  or ``Origin`` when sent, names anything but a loopback address or ``localhost`` is answered 421 / 403.
  With tokens the name is free (a reverse proxy's public name): a rebinding page holds no token.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Any
from urllib.parse import urlsplit

from hindsight_es.app.gateway.api.problems import MEDIA_TYPE, TYPE_PREFIX


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def _problem(scope: dict[str, Any], send: Any, status: int, kind: str, title: str, detail: str) -> None:
    body = json.dumps(
        {
            "type": TYPE_PREFIX + kind,
            "title": title,
            "status": status,
            "detail": detail,
            "instance": scope.get("path", ""),
        }
    ).encode()
    headers = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class SingleAuthorization:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and sum(1 for k, _ in scope["headers"] if k.lower() == b"authorization") > 1:
            detail = "the request has more than one Authorization header: send exactly one"
            await _problem(scope, send, 400, "ambiguous-credentials", "Ambiguous credentials", detail)
            return
        await self.app(scope, receive, send)


def _loopback_name(url: str) -> bool:
    """Whether the host of ``url`` (``//host[:port]`` for a Host header; an IPv6 address in brackets) names
    this machine's loopback."""
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return host is not None and is_loopback(host)


class LoopbackNames:
    """Installed only when the gateway has no tokens (and so listens on loopback only)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = {k.lower(): v.decode("latin-1") for k, v in scope["headers"]}
            host, origin = headers.get(b"host", ""), headers.get(b"origin")
            if not _loopback_name(f"//{host}"):
                detail = (
                    f"this server has no tokens and answers only to a loopback name (127.0.0.1, localhost, [::1]), "
                    f"not Host {host!r}: set HINDSIGHT_MCP_TOKENS to serve it under another name"
                )
                await _problem(scope, send, 421, "misdirected-request", "Misdirected request", detail)
                return
            if origin is not None and not _loopback_name(origin):
                detail = f"this server has no tokens and takes requests only from loopback pages, not Origin {origin!r}"
                await _problem(scope, send, 403, "foreign-origin", "Foreign origin", detail)
                return
        await self.app(scope, receive, send)
