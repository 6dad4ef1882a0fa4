"""The dashboard at ``/ui``: server-rendered Jinja2 pages, a little htmx (vendored in ``static/``), no build step.

Behind the same tokens as the API: the login page keeps the token in an HttpOnly, SameSite=Strict cookie
(an operator token sees every bank); without tokens configured (loopback only) no login is asked. A page
behind the login is admitted before its request is read (``ui.session``: the login, the form's origin, the
bank in the path). Every form that changes something is a POST from this origin, and goes through the same
``Hindsight`` client calls as the API, so every change is an event with its actor and the reason given.
"""

# No ``from __future__ import annotations``: FastAPI resolves the route signatures, whose aliases are local.

import re
from importlib import resources
from typing import Annotated, Any
from urllib.parse import quote
from uuid import UUID

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from hindsight_es.app.gateway.api.access import COOKIE, Caller, Gate
from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.models import hit_of, memory_of
from hindsight_es.app.gateway.ui import actions, disputes, errors, notice, rollback
from hindsight_es.app.gateway.ui.errors import safe_next
from hindsight_es.app.gateway.ui.filters import HITS, PAGE, STATUSES, Filters, filters_of
from hindsight_es.app.gateway.ui.forms import parse_time, when
from hindsight_es.app.gateway.ui.session import admission, same_origin
from hindsight_es.client import Hindsight
from hindsight_es.client.browse import Browse
from hindsight_es.config import Settings
from hindsight_es.errors import ErasedError, InvalidInputError, NotFoundError
from hindsight_es.remote.models import HistoryResult
from hindsight_es.remote.requests import PRINTABLE
from hindsight_es.stores.archive import ERASED
from hindsight_es.text import plural
from hindsight_es.types import MemoryKind, Source

PREFIX = errors.PREFIX
STATIC_PATH = f"{PREFIX}/static"
KINDS = list(MemoryKind.__args__)  # type: ignore[attr-defined]
SOURCES = list(Source.__args__)  # type: ignore[attr-defined]
error_page = errors.error_page  # what app.py hands problems.install for kernel errors under /ui


def session_href(bank_id: str, session_id: str) -> str:
    """A session's page. Each id is one path segment, encoded whole (a ``/`` in it too); an id a browser
    would read as a dot segment (``.``, ``..``, however encoded) goes in the query string instead."""
    bank = f"{PREFIX}/banks/{quote(bank_id, safe='')}"
    if session_id in (".", ".."):
        return f"{bank}/session?id={quote(session_id, safe='')}"
    return f"{bank}/sessions/{quote(session_id, safe='')}"


async def plain_path(request: Request) -> None:
    """A bank, session or memory id in the path with a control character is refused (400, as the API's
    schema refuses it), before a store is asked and fails on it (a NUL answered 503 "store read failed")."""
    for name, value in request.path_params.items():
        if isinstance(value, str) and value and not re.fullmatch(PRINTABLE, value):
            raise InvalidInputError(f"{name}: may not contain a control character")


def templates() -> Jinja2Templates:
    folder = resources.files("hindsight_es.app.gateway.ui").joinpath("templates")
    found = Jinja2Templates(directory=str(folder))
    found.env.filters["when"] = when
    found.env.filters["short"] = lambda value: str(value)[:8]  # page titles only: ids in pages are whole
    found.env.filters["seg"] = lambda value: quote(str(value), safe="")  # one path segment, "/" too
    found.env.filters["plural"] = plural
    found.env.globals["session_href"] = session_href
    return found


def static_files() -> StaticFiles:
    return StaticFiles(directory=str(resources.files("hindsight_es.app.gateway.ui").joinpath("static")))


def routers(hs: Hindsight, gate: Gate, settings: Settings) -> tuple[APIRouter, APIRouter]:
    """The dashboard's pages, in the order they are matched: those behind a login (each request admitted by
    ``ui.session`` first, a control character in its path refused next), then the login's own pages and the
    404 page of any other path."""
    ui = APIRouter(
        prefix=PREFIX,
        include_in_schema=False,
        dependencies=[Depends(plain_path)],
        route_class=gate.route(admission(gate)),
    )
    public = APIRouter(prefix=PREFIX, include_in_schema=False)
    pages = templates()

    def page(request: Request, name: str, access: Access | None, status: int = 200, **context: Any) -> HTMLResponse:
        context |= {"operator": access is not None and access.banks is None}
        context |= {"login": access is not None and gate.tokens is not None}
        context |= {"notice": notice.read(request)}  # what the POST that led here did (redirect-after-post)
        return notice.cleared(request, pages.TemplateResponse(request, name, context, status, headers=errors.NO_STORE))

    @public.get("/login")
    async def login_form(request: Request, next: str = "") -> HTMLResponse:
        return page(request, "login.html", None, error="", next=safe_next(next))

    @public.post("/login")
    async def login(request: Request, token: Annotated[str, Form()], next: Annotated[str, Form()] = "") -> Response:
        same_origin(request)
        if await gate.access_of(token.strip()) is None:
            return page(request, "login.html", None, 401, error="unknown token", next=safe_next(next))
        response = RedirectResponse(safe_next(next), status_code=303)
        secure = request.url.scheme == "https"
        response.set_cookie(COOKIE, token.strip(), httponly=True, samesite="strict", secure=secure, path=PREFIX)
        return response

    @public.post("/logout")
    async def logout(request: Request) -> Response:
        same_origin(request)
        response = RedirectResponse(f"{PREFIX}/login", status_code=303)
        response.delete_cookie(COOKIE, path=PREFIX)
        return response

    @ui.get("")
    async def banks(request: Request, access: Caller) -> HTMLResponse:
        found = [b for b in await hs.browser.banks() if access.allows(b["bank_id"])]
        return page(request, "banks.html", access, banks=found)

    @public.get("/")
    async def banks_slash() -> RedirectResponse:
        return RedirectResponse(PREFIX)

    async def search(bank_id: str, where: Filters) -> dict[str, Any]:
        """Recall's hits for ``where.q`` with the filters applied; not recorded as a recall (``record=False``):
        an operator reading the bank must not keep its memories from fading, nor bring archived ones back."""
        limit = HITS * 5 if where.narrows_after else HITS  # room for the hits the filters then drop
        found = await hs.recall(bank_id, where.q, limit=limit, record=False, **where.recall_options())
        hits = [h for h in found if where.keeps(h)][:HITS]
        reasons = await hs.browser.explain(bank_id, where.q, hits) if hits else {}
        unused = ["importance"] if where.min_importance is not None else []  # recall's hits carry none
        return {"hits": [hit_of(h, reasons.get(h.memory_id, ())) for h in hits], "unused": unused}

    async def browse(bank_id: str, where: Filters) -> dict[str, Any]:
        found = Browse(
            kinds=where.kind or None,
            statuses=where.status or None,
            source=where.source or None,
            session_id=where.session_id or None,
            since=where.since_at,
            until=where.until_at,
            min_importance=where.min_importance,
        )
        rows, total = await hs.browser.memories(bank_id, found, limit=PAGE, offset=where.offset)
        offset = where.offset
        links = {
            "previous": where.query(offset=max(min(offset, total) - PAGE, 0)) if offset > 0 else None,
            "next": where.query(offset=offset + PAGE) if offset + PAGE < total else None,
        }
        return {"memories": [memory_of(r) for r in rows], "total": total, "offset": offset, "pages": links}

    @ui.get("/banks/{bank_id}")
    async def bank(request: Request, bank_id: str, access: Caller) -> HTMLResponse:
        """The memory browser: filters and a page of memories, or recall hits with their reasons for ``q``."""
        bank_id = access.bank(bank_id)
        where = filters_of(request.query_params)
        context: dict[str, Any] = {"bank_id": bank_id, "filters": where, "kinds": KINDS, "sources": SOURCES}
        context["statuses"] = STATUSES
        context |= await (search(bank_id, where) if where.q.strip() else browse(bank_id, where))
        partial = request.headers.get("hx-request") == "true"
        return page(request, "_results.html" if partial else "bank.html", access, **context)

    @ui.get("/banks/{bank_id}/memories/{memory_id}")
    async def memory(request: Request, bank_id: str, memory_id: UUID, access: Caller) -> HTMLResponse:
        """A memory and its lineage: source turns, every event (who, why), what it replaced and what replaced it."""
        bank_id = access.bank(bank_id)
        try:
            current = memory_of(await hs.memory(bank_id, memory_id))
        except ErasedError:  # no store holds it; its history (who erased it, when, why) stays
            erased = await hs.history(bank_id, memory_id)
            current = memory_of(erased["retained"] | {"status": ERASED})
        lineage = HistoryResult.of(await hs.history(bank_id, memory_id))
        return page(request, "memory.html", access, bank_id=bank_id, memory=current, lineage=lineage)

    @ui.get("/banks/{bank_id}/sessions")
    async def sessions(request: Request, bank_id: str, access: Caller) -> HTMLResponse:
        bank_id = access.bank(bank_id)
        return page(request, "sessions.html", access, bank_id=bank_id, sessions=await hs.browser.sessions(bank_id))

    async def session_page(request: Request, bank_id: str, session_id: str, access: Access) -> HTMLResponse:
        bank_id = access.bank(bank_id)
        turns, memories = await hs.browser.session(bank_id, session_id)  # an unknown session: NotFoundError, 404
        return page(
            request, "session.html", access, bank_id=bank_id, session_id=session_id, turns=turns, memories=memories
        )

    @ui.get("/banks/{bank_id}/sessions/{session_id:path}")
    async def session(request: Request, bank_id: str, session_id: str, access: Caller) -> HTMLResponse:
        return await session_page(request, bank_id, session_id, access)

    @ui.get("/banks/{bank_id}/session")
    async def dot_session(request: Request, bank_id: str, id: str, access: Caller) -> HTMLResponse:
        """The same page for a session id no path can carry (``session_href``)."""
        return await session_page(request, bank_id, id, access)

    @ui.get("/banks/{bank_id}/state")
    async def state(request: Request, bank_id: str, access: Caller, as_of: str = "") -> HTMLResponse:
        bank_id = access.bank(bank_id)
        moment = parse_time(as_of, "as of")
        folded = await hs.operator.state_as_of(bank_id, moment)
        memories = sorted(
            (m for m in folded.memories.values() if m.status == "active"), key=lambda m: (m.valid_from, m.memory_id)
        )
        return page(request, "state.html", access, bank_id=bank_id, as_of=as_of, moment=moment, memories=memories)

    actions.register(ui, hs, page)
    rollback.register(ui, hs, page)
    disputes.register(ui, hs, page)

    @public.get("/{rest:path}")
    async def nowhere(rest: str) -> None:
        """Any other path under /ui is the dashboard's 404 page (not the MCP app's, mounted at the root)."""
        raise NotFoundError("no such page")

    return ui, public


def install(app: Any, hs: Hindsight, gate: Gate, settings: Settings) -> None:
    """Mount the dashboard on ``app``: its pages, its static files, and its error pages."""
    app.mount(STATIC_PATH, static_files(), name="ui-static")  # before the router, whose last route takes any path
    for pages in routers(hs, gate, settings):  # in order: the public one's 404 page takes any path
        app.include_router(pages)
    app.state.ui_pages = templates()
    app.state.ui_login = gate.tokens is not None
    errors.install(app)

    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse(PREFIX)
