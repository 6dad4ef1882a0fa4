"""The dashboard's answers to what goes wrong under ``/ui``: an HTML page (or, to an htmx request, the error
as a fragment for the results area) with the status the API would give, and the way to the login page.

The API's own paths keep their RFC 9457 problem documents: each handler here answers only under ``/ui`` and
hands anything else to the handler ``problems.install`` set.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException

from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.ui.filters import readable
from hindsight_es.errors import AccessDeniedError, HindsightError

PREFIX = "/ui"
# A dashboard page is never kept by the browser: after logging out, back or a reload asks the server again
# (which wants a login) instead of showing a bank's memories from the cache.
NO_STORE = {"Cache-Control": "no-store"}
Handler = Callable[[Request, Any], Response | Awaitable[Response]]


class LoginNeeded(Exception):
    """A dashboard page asked for without a valid login cookie."""


def under_ui(request: Request) -> bool:
    path = request.url.path
    return path == PREFIX or path.startswith(PREFIX + "/")


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def seen_by(request: Request) -> Access | None:
    """Who the page is for, once the login cookie was read (``ui.session`` keeps it on the request)."""
    found = getattr(request.state, "ui_access", None)
    return found if isinstance(found, Access) else None


def shown(request: Request, message: str, status: int, *, denied: bool = False) -> HTMLResponse:
    """The error page, with the nav of whoever is logged in; to htmx, the error alone, for the results area."""
    pages: Jinja2Templates = request.app.state.ui_pages
    access = seen_by(request)
    context: dict[str, Any] = {"message": message, "denied": denied}
    context |= {"operator": access is not None and access.banks is None}
    context |= {"login": access is not None and request.app.state.ui_login}
    if is_htmx(request):
        headers = {"HX-Retarget": "#results", "HX-Reswap": "innerHTML"} | NO_STORE
        return pages.TemplateResponse(request, "_error.html", context, status, headers=headers)
    return pages.TemplateResponse(request, "error.html", context, status, headers=NO_STORE)


def error_page(request: Request, exc: HindsightError, status: int) -> HTMLResponse | None:
    """The dashboard's page for a kernel error on a ``/ui`` path (``None`` elsewhere: the API answers problems)."""
    if not under_ui(request):
        return None
    return shown(request, str(exc), status, denied=isinstance(exc, AccessDeniedError))


def safe_next(value: str | None) -> str:
    """Where to go after logging in: a dashboard path of this site only (never another host: no open redirect)."""
    if not value or "\\" in value:
        return PREFIX
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or not (parts.path == PREFIX or parts.path.startswith(PREFIX + "/")):
        return PREFIX
    if any(unquote(segment) in (".", "..") for segment in parts.path.split("/")):  # /ui/../docs leaves /ui
        return PREFIX
    return value


def login_url(request: Request) -> str:
    """The login page, with the page to come back to: a GET's own URL (an htmx search's too: the same URL is
    the whole page with its query and filters), else the page the form was on (htmx says which; a plain
    form's Referer, same-origin as every form is). ``safe_next`` keeps it on the dashboard."""
    if request.method == "GET":
        current: str | None = str(request.url)
    else:
        current = request.headers.get("hx-current-url") or request.headers.get("referer")
    wanted = urlsplit(current or "")
    target = wanted.path + (f"?{wanted.query}" if wanted.query else "")
    back = safe_next(target)
    return f"{PREFIX}/login" + ("" if back == PREFIX else f"?next={quote(back, safe='')}")


async def delegated(handler: Handler, request: Request, exc: Exception) -> Response:
    """The answer of the handler ``problems.install`` set (an API path's problem document)."""
    found = handler(request, exc)
    return await found if inspect.isawaitable(found) else found


def install(app: FastAPI) -> None:
    """The dashboard's handlers, over the API's (``problems.install`` must have run): pages under ``/ui``."""
    api_invalid = app.exception_handlers[RequestValidationError]
    api_http = app.exception_handlers[HTTPException]
    api_unexpected = app.exception_handlers[Exception]

    @app.exception_handler(LoginNeeded)
    async def to_login(request: Request, exc: LoginNeeded) -> Response:
        if is_htmx(request):  # htmx would swap the login page into the results: have it load the page instead
            return Response(status_code=401, headers={"HX-Redirect": login_url(request)})
        return RedirectResponse(login_url(request), status_code=303)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        if not under_ui(request):
            return await delegated(api_invalid, request, exc)
        return shown(request, readable(exc.errors()), 400)  # a bad value from the browser, as filters_of says it

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException) -> Response:
        if not under_ui(request):
            return await delegated(api_http, request, exc)
        message = {404: "no such page", 405: "this page does not take that method"}.get(exc.status_code)
        return shown(request, message or str(exc.detail), exc.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        answer = await delegated(api_unexpected, request, exc)  # logs it, as for the API
        if not under_ui(request):
            return answer
        return shown(request, f"internal error: {type(exc).__name__}: {exc}", 500)
