"""Who may use which bank: bearer tokens on HTTP, the local user on stdio.

On HTTP each configured token (``HINDSIGHT_MCP_TOKENS``) maps to the banks it may read and write, or
``"*"`` for all; the SDK's bearer middleware refuses a request without a valid token (401) before any
tool runs, and every tool checks the bank it is asked for against the caller's ``Access``. A token
covering exactly one bank binds the connection to it (calls may omit ``bank``). stdio is local and
trusted: every bank, bound to ``--bank`` / ``HINDSIGHT_MCP_BANK`` if given.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from hindsight_es.errors import AccessDeniedError, InvalidInputError

ALL_BANKS = "*"


@dataclass(frozen=True, slots=True)
class Access:
    """The banks a caller may use (``None``: all) and the bank its calls default to."""

    banks: frozenset[str] | None
    default_bank: str | None = None
    actor: str = "mcp"  # recorded as the actor of what the caller publishes

    @classmethod
    def local(cls, bank: str | None = None, actor: str = "mcp:stdio") -> Access:
        return cls(None, bank, actor)

    @classmethod
    def nothing(cls) -> Access:
        return cls(frozenset())

    @classmethod
    def of_token(cls, token: AccessToken) -> Access:
        actor = f"mcp:{token.client_id}"
        if ALL_BANKS in token.scopes:
            return cls(None, None, actor)
        banks = frozenset(token.scopes)
        return cls(banks, next(iter(banks)) if len(banks) == 1 else None, actor)

    def allows(self, bank_id: str) -> bool:
        return self.banks is None or bank_id in self.banks

    def bank(self, requested: str | None) -> str:
        """The bank a call acts on; refuses one outside the caller's banks."""
        bank_id = requested or self.default_bank
        if not bank_id:
            raise InvalidInputError("no bank given: pass `bank_id` (list_banks shows the ones you may use)")
        if not self.allows(bank_id):
            raise AccessDeniedError(f"access denied: this connection may not use bank {bank_id!r}")
        return bank_id


def current_access(fallback: Access) -> Access:
    """The access of the request being served: its bearer token's, else ``fallback`` (stdio, open loopback)."""
    token = get_access_token()
    return Access.of_token(token) if token is not None else fallback


class BankTokens:
    """The SDK's ``TokenVerifier`` over the configured tokens; a token's scopes are its banks."""

    def __init__(self, tokens: Mapping[str, list[str] | str]) -> None:
        self._known = [
            (_digest(token), [ALL_BANKS] if banks == ALL_BANKS else list(banks)) for token, banks in tokens.items()
        ]

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = _digest(token)
        found = None
        for known, banks in self._known:  # compare with every token, in constant time each
            if hmac.compare_digest(digest, known):
                found = banks
        if found is None:
            return None
        return AccessToken(token=token, client_id=f"token-{digest.hex()[:8]}", scopes=found)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()
