"""Redirect-after-post: a form's POST answers 303 to a GET page, and what it did travels as a one-time notice.

The notice is a short-lived cookie naming the page it is for; that page shows it once and clears it. So a
reload of the page, or its URL opened again or shared, shows the page as it is now and sends nothing again.
"""

from __future__ import annotations

import json
from typing import TypeVar
from urllib.parse import quote, unquote, urlsplit

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from hindsight_es.app.gateway.ui.errors import PREFIX

COOKIE = "hindsight_notice"  # for the dashboard's pages only (path PREFIX), as the login's
MAX_AGE_S = 60  # one redirect's time: a notice never shown (its page failed) does not turn up later
R = TypeVar("R", bound=Response)


def after_post(request: Request, target: str, message: str) -> RedirectResponse:
    """A 303 to the GET page ``target`` (a path of this site), which will show ``message`` once."""
    response = RedirectResponse(target, status_code=303)
    value = quote(json.dumps([unquote(urlsplit(target).path), message]), safe="")
    secure = request.url.scheme == "https"
    response.set_cookie(COOKIE, value, max_age=MAX_AGE_S, httponly=True, samesite="strict", secure=secure, path=PREFIX)
    return response


def read(request: Request) -> str | None:
    """The notice left for the page asked for, if any (one left for another page is not shown)."""
    raw = request.cookies.get(COOKIE)
    if raw is None:
        return None
    try:
        path, message = json.loads(unquote(raw))
    except (ValueError, TypeError):  # not one of ours
        return None
    return str(message) if path == request.url.path else None


def cleared(request: Request, response: R) -> R:
    """``response``, clearing the notice if the request carried one: it is shown once, a reload does without."""
    if COOKIE in request.cookies:
        response.delete_cookie(COOKIE, path=PREFIX)
    return response
