"""The argument types, annotations and error wrapper the MCP tools share (``server`` and ``review_tools``)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Annotated, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import AliasChoices, Field

from hindsight_es.errors import HindsightError
from hindsight_es.remote.requests import AgentId, SessionId, Time

P = ParamSpec("P")
R = TypeVar("R")


def renamed(new: str, old: str) -> AliasChoices:
    """``new`` is the argument's name; ``old`` (the 0.1 name) is still accepted for one release."""
    return AliasChoices(new, old)


BankArg = Annotated[
    str | None,
    Field(
        None,
        min_length=1,
        max_length=128,
        pattern=r"^[\w.:@\-]+$",
        validation_alias=renamed("bank_id", "bank"),
        description="Memory bank (one user, agent or team). Optional when the connection is bound to one bank.",
    ),
]
SessionArg = Annotated[SessionId, Field(validation_alias=renamed("session_id", "session"))]
Agent = Annotated[
    AgentId | None,
    Field(
        None,
        description="The agent asking or remembering: it sees its own private memories and shared ones, never "
        "another agent's; what it retains is private to it. Omit for shared memories only.",
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=64, description="A memory id from recall or get_context")]
When = Annotated[
    Time | None,
    Field(None, description="When it was said: ISO 8601 with a zone, e.g. 2026-03-01T09:00:00+01:00 (default now)"),
]

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
REMOVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)


def tool_errors(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Kernel errors become MCP tool errors carrying their message."""

    @functools.wraps(fn)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except HindsightError as exc:
            raise ToolError(str(exc)) from exc

    return call
