"""What both clients share: the base URL and token, time-outs, and the retry policy.

Retried: 429 and 502/503/504 answers, time-outs and refused connections, up to ``retries`` more times,
waiting ``backoff · 2^attempt`` seconds (jittered) or the server's ``Retry-After``. Every call is safe
to repeat: a retain carries a turn id (the server decides a turn once) and the other writes refuse
a second application (409). An erase repeated is not refused: its second run finds no live key and
answers that it erased nothing, though the first did. So a call that asks the server to wait
(``timeout_s``) is read for that long and ``WAIT_MARGIN_S`` more, never cut short by the client's own
time-out and sent again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx

from hindsight_es.remote.calls import Call
from hindsight_es.remote.errors import RETRIED, UnavailableError, error_for

USER_AGENT = "hindsight-es-python"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Policy:
    retries: int = 3
    backoff_s: float = 0.25
    max_wait_s: float = 10.0

    def wait_s(self, attempt: int, response: httpx.Response | None) -> float:
        after = response.headers.get("retry-after") if response is not None else None
        if after is not None:
            try:
                return min(float(after), self.max_wait_s)
            except ValueError:
                pass
        return min(self.backoff_s * 2.0**attempt * (0.5 + random.random()), self.max_wait_s)


def headers(token: str | None) -> dict[str, str]:
    return {"User-Agent": USER_AGENT} | ({"Authorization": f"Bearer {token}"} if token else {})


WAIT_MARGIN_S = 15.0  # beyond the wait a call asks the server for: its answer, on a busy server


def request_args(call: Call[Any], timeout: httpx.Timeout) -> dict[str, Any]:
    """The request's arguments. A call that asks the server to wait (``timeout_s`` in its body: an erase, a
    retain with ``wait``) is given that long to answer, and more: a client that stopped reading earlier
    would send it again, and the server would apply it again (an erase repeated finds nothing left)."""
    args: dict[str, Any] = {"params": call.params or None}
    if call.json is not None:
        args["json"] = call.json
    wait = call.json.get("timeout_s") if isinstance(call.json, dict) else None
    if call.unbounded:
        args["timeout"] = httpx.Timeout(timeout.connect, read=None, write=timeout.write, pool=timeout.pool)
    elif isinstance(wait, int | float) and timeout.read is not None and wait + WAIT_MARGIN_S > timeout.read:
        read = wait + WAIT_MARGIN_S
        args["timeout"] = httpx.Timeout(timeout.connect, read=read, write=timeout.write, pool=timeout.pool)
    return args


def outcome(call: Call[T], response: httpx.Response) -> T:
    """The parsed result, or the error of the answer's status."""
    if response.is_success:
        return call.parse(response.json())
    try:
        payload = response.json()
    except ValueError:
        payload = {"detail": response.text[:500]}
    raise error_for(response.status_code, payload)


def retryable(response: httpx.Response) -> bool:
    return response.status_code in RETRIED


def unreachable(base_url: str, exc: Exception) -> UnavailableError:
    return UnavailableError(
        0, {"title": "unreachable", "detail": f"cannot reach {base_url}: {type(exc).__name__}: {exc}"}
    )
