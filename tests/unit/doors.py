"""Helpers of the unit tests of the gateway's doors: what was written, and the MCP tools' answers."""

from __future__ import annotations

from typing import Any

from mcp import Client

from hindsight_es.app.gateway.auth import Access
from hindsight_es.app.gateway.server import build_server
from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_TURNS


async def written(hs: Hindsight) -> int:
    """Records in the topics a request may append to."""
    return sum([sum((await hs.log.end_offsets(t)).values()) for t in (TOPIC_TURNS, TOPIC_COMMANDS)])


async def tool(hs: Hindsight, name: str, **arguments: Any) -> Any:
    """An MCP tool's result, over an in-memory connection to the server."""
    async with Client(build_server(hs, Access.local())) as mcp:
        return await mcp.call_tool(name, arguments)


async def refused(hs: Hindsight, name: str, **arguments: Any) -> str:
    """The text of an MCP tool error."""
    result = await tool(hs, name, **arguments)
    assert result.is_error, result.structured_content
    return " ".join(c.text for c in result.content if c.type == "text")
