"""Who is calling the HTTP API: the same bearer tokens and bank scoping as MCP (``gateway.auth``).

With tokens configured, every request needs ``Authorization: Bearer <token>`` (401 without); a bank
outside the token's banks is 403, and so is an operator's route without a token for every bank. These
checks run before FastAPI reads the request (``Gate.route``): a caller without access to a bank learns
nothing of the route's schema, however wrong its body or query. Without tokens (loopback only) every
caller is the local user, with every bank. The dashboard's routes are admitted the same way, from the token
of its login cookie (``ui.session``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hindsight_es.app.gateway.auth import Access, BankTokens
from hindsight_es.errors import AccessDeniedError

COOKIE = "hindsight_token"
ACCESS = "hindsight.access"  # where the route's gate leaves the caller's access in the request's scope
bearer = HTTPBearer(auto_error=False, description="A token of HINDSIGHT_MCP_TOKENS (the same as MCP's)")
Handler = Callable[[Request], Coroutine[Any, Any, Response]]
# How a route class admits a request: its caller's access, or an exception (401, 403, a login to ask for)
# raised from the path and headers alone; the flag says whether the route is an operator's.
Admission = Callable[[Request, bool], Awaitable[Access]]


@dataclass(frozen=True, slots=True)
class Gate:
    """Resolves a request's ``Access`` from its bearer token (or, for the dashboard, its login cookie)."""

    tokens: BankTokens | None
    transport: str = "http"

    async def access_of(self, token: str | None) -> Access | None:
        """The token's access; ``None`` for a missing or unknown token while tokens are configured."""
        if self.tokens is None:
            return Access.local(actor=f"{self.transport}:local")
        if not token:
            return None
        found = await self.tokens.verify_token(token)
        if found is None:
            return None
        access = Access.of_token(found)
        return Access(access.banks, access.default_bank, f"{self.transport}:{found.client_id}")

    async def admit(self, request: Request, *, operators: bool) -> Access:
        """The caller's access, refused (401, 403) unless it covers the path's bank, and every bank on an
        operator's route. Reads the path and the ``Authorization`` header only, never the body or query."""
        credentials = await bearer(request)
        access = await self.access_of(credentials.credentials if credentials is not None else None)
        if access is None:
            raise HTTPException(401, "a valid bearer token is needed (Authorization: Bearer <token>)")
        return covering(request, access, operators=operators)

    def route(self, admit: Admission | None = None) -> type[APIRoute]:
        """The route class of the API's routers (and the dashboard's): each request is admitted before
        FastAPI reads its body, validates its path or query or runs its dependencies; by ``admit``, the
        bearer token's ``Gate.admit`` unless another is given (the dashboard's login cookie)."""
        gate = self

        async def by_bearer(request: Request, operators: bool) -> Access:
            return await gate.admit(request, operators=operators)

        admission = admit or by_bearer

        class Guarded(APIRoute):
            def get_route_handler(self) -> Handler:
                handler = super().get_route_handler()
                operators = _for_operators(self.dependant)

                async def admitted(request: Request) -> Response:
                    request.scope[ACCESS] = await admission(request, operators)
                    return await handler(request)

                return admitted

        return Guarded


def covering(request: Request, access: Access, *, operators: bool) -> Access:
    """``access``, refused (403) unless it covers every bank on an operator's route and the bank in the path.
    Reads the path only: the last step of every admission, the API's and the dashboard's."""
    if operators:
        operator(access)
    bank_id = request.path_params.get("bank_id")
    if isinstance(bank_id, str):
        access.bank(bank_id)  # the raw path segment: one the token does not name is 403 whatever its form
    return access


async def caller(request: Request, _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Access:
    """The access ``Gate.route`` admitted the request with (``bearer`` names the scheme in the OpenAPI document)."""
    access = request.scope.get(ACCESS)
    if not isinstance(access, Access):
        raise RuntimeError(f"{request.url.path}: a route without its gate (Gate.route)")
    return access


def operator(access: Access) -> Access:
    """Refuse a caller that does not cover every bank (a token for "*", or no tokens on loopback)."""
    if access.banks is not None:
        raise AccessDeniedError('this call is for operators: it needs a token for every bank ("*")')
    return access


async def for_operators(access: Annotated[Access, Depends(caller)]) -> Access:
    """An operator's route takes its caller from this dependency: ``Gate.route`` refuses anyone else first."""
    return operator(access)


Caller = Annotated[Access, Depends(caller)]
Operator = Annotated[Access, Depends(for_operators)]


def _for_operators(dependant: Dependant) -> bool:
    return any(d.call is for_operators or _for_operators(d) for d in dependant.dependencies)
