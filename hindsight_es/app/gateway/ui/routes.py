"""The dashboard at ``/ui``: server-rendered Jinja2 pages, a little htmx (vendored in ``static/``), no build step.

Behind the same tokens as the API: the login page keeps the token in an HttpOnly, SameSite=Strict cookie
(an operator token sees every bank); without tokens configured (loopback only) no login is asked. Every
form that changes something is a POST checked for a same-origin ``Origin`` header, and goes through the
same ``Hindsight`` client calls as the API, so every change is an event with its reason and its actor.
"""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

from importlib import resources
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from hindsight_es.app.gateway.api.access import COOKIE, Gate
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import hit_of, memory_of
from hindsight_es.app.gateway.ui import actions, disputes
from hindsight_es.app.gateway.ui.forms import parse_time, when
from hindsight_es.client import Hindsight
from hindsight_es.client.browse import Browse
from hindsight_es.config import Settings
from hindsight_es.errors import AccessDeniedError, HindsightError
from hindsight_es.remote.models import HistoryResult
from hindsight_es.types import MemoryKind, Source

PREFIX = "/ui"
STATIC_PATH = f"{PREFIX}/static"
KINDS = list(MemoryKind.__args__)  # type: ignore[attr-defined]
SOURCES = list(Source.__args__)  # type: ignore[attr-defined]
STATUSES = ["active", "superseded", "forgotten", "quarantined", "retracted", "archived"]


class LoginNeeded(Exception):
    pass


def templates() -> Jinja2Templates:
    folder = resources.files("hindsight_es.app.gateway.ui").joinpath("templates")
    found = Jinja2Templates(directory=str(folder))
    found.env.filters["when"] = when
    found.env.filters["short"] = lambda value: str(value)[:8]  # page titles only: ids in pages are whole
    return found


def static_files() -> StaticFiles:
    return StaticFiles(directory=str(resources.files("hindsight_es.app.gateway.ui").joinpath("static")))


def router(hs: Hindsight, gate: Gate, settings: Settings) -> APIRouter:
    ui = APIRouter(prefix=PREFIX, include_in_schema=False)
    pages = templates()

    async def viewer(request: Request) -> Access:
        access = await gate.access_of(request.cookies.get(COOKIE))
        if access is None:
            raise LoginNeeded
        return access

    Viewer = Annotated[Access, Depends(viewer)]

    def page(request: Request, name: str, access: Access | None, **context: Any) -> HTMLResponse:
        context |= {"operator": access is not None and access.banks is None, "login": gate.tokens is not None}
        return pages.TemplateResponse(request, name, context)

    @ui.get("/login")
    async def login_form(request: Request, error: str = "") -> HTMLResponse:
        return page(request, "login.html", None, error=error)

    @ui.post("/login")
    async def login(request: Request, token: Annotated[str, Form()]) -> Response:
        actions.same_origin(request)
        if await gate.access_of(token.strip()) is None:
            return page(request, "login.html", None, error="unknown token")
        response = RedirectResponse(PREFIX, status_code=303)
        secure = request.url.scheme == "https"
        response.set_cookie(COOKIE, token.strip(), httponly=True, samesite="strict", secure=secure, path=PREFIX)
        return response

    @ui.post("/logout")
    async def logout(request: Request) -> Response:
        actions.same_origin(request)
        response = RedirectResponse(f"{PREFIX}/login", status_code=303)
        response.delete_cookie(COOKIE, path=PREFIX)
        return response

    @ui.get("")
    async def banks(request: Request, access: Viewer) -> HTMLResponse:
        found = [b for b in await hs.browser.banks() if access.allows(b["bank_id"])]
        return page(request, "banks.html", access, banks=found)

    @ui.get("/banks/{bank_id}")
    async def bank(
        request: Request,
        bank_id: str,
        access: Viewer,
        kind: Annotated[list[str] | None, Query()] = None,
        status: Annotated[list[str] | None, Query()] = None,
        source: str = "",
        session_id: str = "",
        since: str = "",
        until: str = "",
        min_importance: str = "",
        q: str = "",
        offset: int = 0,
    ) -> HTMLResponse:
        """The memory browser: filters and a page of memories, or recall hits with their reasons for ``q``."""
        bank_id = access.bank(bank_id)
        filters = {"kind": kind or [], "status": status or [], "source": source, "session_id": session_id}
        filters |= {"since": since, "until": until, "min_importance": min_importance, "q": q}
        context: dict[str, Any] = {"bank_id": bank_id, "filters": filters, "kinds": KINDS, "sources": SOURCES}
        context["statuses"] = STATUSES
        if q.strip():
            hits = await hs.recall(bank_id, q, limit=20, kinds=kind or None)
            reasons = await hs.browser.explain(bank_id, q, hits) if hits else {}
            context["hits"] = [hit_of(h, reasons.get(h.memory_id, ())) for h in hits]
        else:
            where = Browse(
                kinds=kind or None,
                statuses=status or None,
                source=source or None,
                session_id=session_id or None,
                since=parse_time(since, "since"),
                until=parse_time(until, "until"),
                min_importance=float(min_importance) if min_importance else None,
            )
            rows, total = await hs.browser.memories(bank_id, where, limit=50, offset=max(offset, 0))
            context |= {"memories": [memory_of(r) for r in rows], "total": total, "offset": max(offset, 0)}
        partial = request.headers.get("hx-request") == "true"
        return page(request, "_results.html" if partial else "bank.html", access, **context)

    @ui.get("/banks/{bank_id}/memories/{memory_id}")
    async def memory(request: Request, bank_id: str, memory_id: UUID, access: Viewer) -> HTMLResponse:
        """A memory and its lineage: source turns, every event (who, why), what it replaced and what replaced it."""
        bank_id = access.bank(bank_id)
        current = memory_of(await hs.memory(bank_id, memory_id))
        lineage = HistoryResult.of(await hs.history(bank_id, memory_id))
        return page(request, "memory.html", access, bank_id=bank_id, memory=current, lineage=lineage)

    @ui.get("/banks/{bank_id}/sessions")
    async def sessions(request: Request, bank_id: str, access: Viewer) -> HTMLResponse:
        bank_id = access.bank(bank_id)
        return page(request, "sessions.html", access, bank_id=bank_id, sessions=await hs.browser.sessions(bank_id))

    @ui.get("/banks/{bank_id}/sessions/{session_id}")
    async def session(request: Request, bank_id: str, session_id: str, access: Viewer) -> HTMLResponse:
        bank_id = access.bank(bank_id)
        turns, memories = await hs.browser.session(bank_id, session_id)
        return page(
            request, "session.html", access, bank_id=bank_id, session_id=session_id, turns=turns, memories=memories
        )

    @ui.get("/banks/{bank_id}/state")
    async def state(request: Request, bank_id: str, access: Viewer, as_of: str = "") -> HTMLResponse:
        bank_id = access.bank(bank_id)
        moment = parse_time(as_of, "as of")
        folded = await hs.operator.state_as_of(bank_id, moment)
        memories = sorted(
            (m for m in folded.memories.values() if m.status == "active"), key=lambda m: (m.valid_from, m.memory_id)
        )
        return page(request, "state.html", access, bank_id=bank_id, as_of=as_of, moment=moment, memories=memories)

    actions.register(ui, hs, viewer, page)
    disputes.register(ui, hs, viewer, page)
    return ui


def install(app: Any, hs: Hindsight, gate: Gate, settings: Settings) -> None:
    """Mount the dashboard on ``app``: its pages, its static files, and its error pages."""
    app.include_router(router(hs, gate, settings))
    app.mount(STATIC_PATH, static_files(), name="ui-static")
    pages = templates()

    @app.exception_handler(LoginNeeded)
    async def to_login(request: Request, exc: LoginNeeded) -> Response:
        return RedirectResponse(f"{PREFIX}/login", status_code=303)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse(PREFIX)

    app.state.ui_pages = pages


def error_page(request: Request, exc: HindsightError, status: int) -> HTMLResponse | None:
    """The dashboard's page for a kernel error on a ``/ui`` path (``None`` elsewhere: the API answers problems)."""
    if not request.url.path.startswith(PREFIX):
        return None
    pages: Jinja2Templates = request.app.state.ui_pages
    denied = isinstance(exc, AccessDeniedError)
    return pages.TemplateResponse(
        request, "error.html", {"message": str(exc), "denied": denied, "operator": False, "login": True}, status
    )
