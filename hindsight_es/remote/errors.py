"""The errors of the remote clients: each HTTP status becomes the kernel error of the same meaning, carrying the
problem details (``problem``) and the ``status``, so ``except NotFoundError`` works for either client.

    ApiError (HindsightError)
     ├── UnauthorizedError (AccessDeniedError)   401: no token, or an unknown one
     ├── ForbiddenError (AccessDeniedError)      403: the token does not cover the bank, or not an operator
     ├── MissingError (NotFoundError)            404
     ├── StateConflictError (ConflictError)      409: the memory's state refuses it
     ├── RefusedError (InvalidInputError)        400, 422: the input is refused (``problem["errors"]``)
     └── UnavailableError (LogError)             429, 5xx after the retries, a time-out, no connection
"""

from __future__ import annotations

from typing import Any

from hindsight_es.errors import (
    AccessDeniedError,
    ConflictError,
    HindsightError,
    InvalidInputError,
    LogError,
    NotFoundError,
)


class ApiError(HindsightError):
    def __init__(self, status: int, problem: dict[str, Any]) -> None:
        super().__init__(problem.get("detail") or problem.get("title") or f"HTTP {status}")
        self.status = status
        self.problem = problem


class UnauthorizedError(ApiError, AccessDeniedError):
    pass


class ForbiddenError(ApiError, AccessDeniedError):
    pass


class MissingError(ApiError, NotFoundError):
    pass


class StateConflictError(ApiError, ConflictError):
    pass


class RefusedError(ApiError, InvalidInputError):
    pass


class UnavailableError(ApiError, LogError):
    pass


RETRIED = frozenset({429, 502, 503, 504})


def error_for(status: int, payload: Any) -> ApiError:
    problem = payload if isinstance(payload, dict) else {"detail": str(payload)[:500]}
    kind: type[ApiError] = {
        401: UnauthorizedError,
        403: ForbiddenError,
        404: MissingError,
        409: StateConflictError,
        400: RefusedError,
        422: RefusedError,
    }.get(status, UnavailableError if status == 429 or status >= 500 else ApiError)
    return kind(status, problem)
