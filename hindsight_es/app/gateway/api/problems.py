"""Errors as RFC 9457 problem details (``application/problem+json``): ``type``, ``title``, ``status``, ``detail``.

A kernel error keeps its one-line message as ``detail``; a request that fails the schema gets 422 with
an ``errors`` list naming each field. Nothing is written for a refused request: every check runs before
the kernel publishes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException

from hindsight_es.errors import (
    AccessDeniedError,
    ConfigError,
    ConflictError,
    ExtractionError,
    HindsightError,
    InvalidInputError,
    LogError,
    NotFoundError,
    StoreError,
)
from hindsight_es.text import first_error

log_ = logging.getLogger("hindsight.http")
MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:hindsight:problem:"

# kernel error -> (HTTP status, problem type, title); the first matching class wins (subclasses first)
_KINDS: list[tuple[type[HindsightError], int, str, str]] = [
    (NotFoundError, 404, "not-found", "Not found"),
    (AccessDeniedError, 403, "access-denied", "Access denied"),
    (ConflictError, 409, "conflict", "The memory's state does not allow it"),
    (InvalidInputError, 400, "invalid-input", "Invalid input"),
    (LogError, 503, "log-unavailable", "The event log is unavailable"),
    (StoreError, 503, "store-unavailable", "The stores are unavailable"),
    (ExtractionError, 502, "extraction-failed", "The extractor failed"),
    (ConfigError, 500, "configuration", "Server configuration error"),
]


class Problem(BaseModel):
    """RFC 9457 problem details."""

    type: str = Field(description="A URI naming the kind of problem (urn:hindsight:problem:…)")
    title: str
    status: int
    detail: str | None = None
    instance: str | None = Field(None, description="The request path")
    errors: list[dict[str, Any]] | None = Field(None, description="Each field that failed validation (422)")


def problem(status: int, kind: str, title: str, detail: str | None, request: Request, **extra: Any) -> JSONResponse:
    body = Problem(
        type=TYPE_PREFIX + kind, title=title, status=status, detail=detail, instance=request.url.path, errors=None
    )
    headers = {"WWW-Authenticate": 'Bearer realm="hindsight"'} if status == 401 else None
    return JSONResponse(
        body.model_copy(update=extra).model_dump(exclude_none=True), status, headers=headers, media_type=MEDIA_TYPE
    )


# A page for people instead of a problem document (the dashboard's), or None to answer with the problem.
HtmlPage = Callable[[Request, HindsightError, int], Response | None]


async def known_query(request: Request) -> None:
    """A router dependency: a query parameter the route does not take is refused as an unknown body field is
    (``GET …/memories?kinds=fact`` was an unfiltered page: the parameter is ``kind``)."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if dependant is None:
        return
    known = _query_names(dependant)
    unknown = [name for name in request.query_params if name not in known]
    if unknown:
        raise RequestValidationError(
            [
                {"type": "extra_forbidden", "loc": ("query", name), "msg": "Extra inputs are not permitted"}
                for name in dict.fromkeys(unknown)
            ]
        )


def _json_error(error: Any) -> Any:
    """A body that is not JSON, said as such: FastAPI places the error at ("body", <character>) with "JSON decode
    error", which reads as a field named 13; here it is the body, with the parser's reason and where."""
    if error.get("type") != "json_invalid":
        return error
    at = error["loc"][1] if len(error["loc"]) > 1 else None
    reason = (error.get("ctx") or {}).get("error") or "invalid"
    where = f" at character {at}" if isinstance(at, int) else ""
    return {**error, "loc": ("body",), "msg": f"not valid JSON: {reason}{where}"}


def _query_names(dependant: Dependant) -> set[str]:
    """The query parameters a route takes, its dependencies' included."""
    return {p.alias for p in dependant.query_params}.union(*(_query_names(d) for d in dependant.dependencies))


def install(app: FastAPI, html: HtmlPage | None = None) -> None:
    """Answer every error of ``app`` with problem details (or, where ``html`` gives one, a page)."""

    @app.exception_handler(HindsightError)
    async def kernel(request: Request, exc: HindsightError) -> Response:
        status, kind, title = next(
            ((s, k, t) for cls, s, k, t in _KINDS if isinstance(exc, cls)), (500, "internal", "Internal error")
        )
        if status >= 500:
            log_.warning("%s %s: %s", request.method, request.url.path, exc)
        page = html(request, exc, status) if html is not None else None
        return page if page is not None else problem(status, kind, title, str(exc), request)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        found = [_json_error(e) for e in exc.errors()]
        errors = [{"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"], "type": e["type"]} for e in found]
        detail = first_error(found)  # the one line every door gives; ``errors`` keeps each field's place
        sent = request.headers.get("content-type", "")
        if "json" not in sent and any(tuple(e["loc"][:1]) == ("body",) for e in exc.errors()):
            # curl -d without -H sends a form: FastAPI then reads no object at all, and says only that
            detail = f"the body must be JSON, sent with Content-Type: application/json (not {sent or 'none'}); {detail}"
        return problem(422, "validation", "The request does not fit the schema", detail, request, errors=errors)

    @app.exception_handler(HTTPException)
    async def http(request: Request, exc: HTTPException) -> JSONResponse:
        kind = {401: "unauthorized", 404: "not-found", 405: "method-not-allowed"}.get(exc.status_code, "http")
        title = {401: "Unauthorized", 404: "Not found", 405: "Method not allowed"}.get(exc.status_code, "HTTP error")
        detail = str(exc.detail)
        if exc.status_code == 404 and detail == "Not Found":  # no route took the path (Starlette's own words)
            detail = f"no route for {request.method} {request.url.path}: the API's routes are listed at /docs"
        return problem(exc.status_code, kind, title, detail, request)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log_.exception("%s %s failed", request.method, request.url.path)
        return problem(500, "internal", "Internal error", f"{type(exc).__name__}: {exc}", request)


PROBLEMS: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "description": description, "content": {MEDIA_TYPE: {}}}
    for status, description in (
        (400, "Refused input (the detail says why)"),
        (401, "No token, or an unknown one"),
        (403, "The token does not cover this bank, or the call is for operators"),
        (404, "Unknown bank or memory"),
        (409, "The memory's current state does not allow it (already forgotten, not quarantined, …)"),
        (422, "The request does not fit the schema"),
        (503, "The log or the stores are unavailable"),
    )
}
