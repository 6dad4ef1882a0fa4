"""Who is calling the HTTP API: the same bearer tokens and bank scoping as MCP (``gateway.auth``).

With tokens configured, every request needs ``Authorization: Bearer <token>`` (401 without, before
anything runs); a bank outside the token's banks is 403. Without tokens (loopback only) every caller
is the local user, with every bank. The dashboard sends the same token from its login cookie.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from hindsight_es.app.gateway.auth import Access, BankTokens
from hindsight_es.errors import AccessDeniedError

COOKIE = "hindsight_token"
bearer = HTTPBearer(auto_error=False, description="A token of HINDSIGHT_MCP_TOKENS (the same as MCP's)")


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

    def dependency(self) -> Callable[..., Awaitable[Access]]:
        async def caller(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]) -> Access:
            token = credentials.credentials if credentials is not None else None
            access = await self.access_of(token)
            if access is None:
                raise HTTPException(401, "a valid bearer token is needed (Authorization: Bearer <token>)")
            return access

        return caller


def operator(access: Access) -> Access:
    """Refuse a caller that does not cover every bank (a token for "*", or no tokens on loopback)."""
    if access.banks is not None:
        raise AccessDeniedError('this call is for operators: it needs a token for every bank ("*")')
    return access
