"""Who is looking at the dashboard, settled before a page reads its request: the login cookie's access, a
form's origin, the operator's pages and the bank in the path, in that order (``Gate.route``, as the API).

So a page of a bank the login does not cover is refused (403) however wrong its path, query or form, and a
page asked for without a login leads to the login page, never to an error naming what the page takes.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi import Request

from hindsight_es.app.gateway.api.access import COOKIE, Admission, Gate, covering
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.ui.errors import LoginNeeded
from hindsight_es.errors import AccessDeniedError


def same_origin(request: Request) -> None:
    """Refuse a form post from another site: its Origin (or Referer) must name this host."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    host = request.headers.get("host", "")
    if not origin or urlsplit(origin).netloc != host:
        raise AccessDeniedError("this form must be sent from the dashboard itself")


def admission(gate: Gate) -> Admission:
    """The dashboard's ``Gate.route`` admission: the login cookie's token (``LoginNeeded`` without a valid
    one), then, for a POST, its origin, then ``covering`` (operators, the path's bank)."""

    async def admit(request: Request, operators: bool) -> Access:
        access = await gate.access_of(request.cookies.get(COOKIE))
        if access is None:
            raise LoginNeeded
        request.state.ui_access = access  # an error page's nav is the viewer's, a refusal's too (errors.shown)
        if request.method == "POST":
            same_origin(request)
        return covering(request, access, operators=operators)

    return admit
