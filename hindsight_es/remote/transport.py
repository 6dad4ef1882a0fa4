"""What both clients share: the base URL and token, time-outs, and the retry policy.

Retried: 429 and 502/503/504 answers, time-outs and refused connections, up to ``retries`` more times,
waiting ``backoff · 2^attempt`` seconds (jittered) or the server's ``Retry-After``. Every call is safe
to repeat: a retain carries a turn id (the server decides a turn once) and the other writes refuse
a second application (409).
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


def request_args(call: Call[Any]) -> dict[str, Any]:
    args: dict[str, Any] = {"params": call.params or None}
    if call.json is not None:
        args["json"] = call.json
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
