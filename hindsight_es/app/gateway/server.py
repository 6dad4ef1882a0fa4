"""The MCP server: one thin tool per kernel operation, typed results, kernel errors as tool errors.

No business logic here: each tool resolves the bank the caller may use (``auth.Access``), calls the
``Hindsight`` client and wraps what it returns. A ``HindsightError`` becomes a ``ToolError`` (an MCP
result with ``isError: true`` and the message); arguments that fail the schema are refused by the SDK.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import ToolAnnotations
from pydantic import ConfigDict, Field, ValidationError

from hindsight_es.app.gateway.auth import Access, current_access
from hindsight_es.app.gateway.models import (
    BankList,
    BankStats,
    Context,
    CorrectResult,
    ForgetResult,
    HistoryResult,
    RecallResult,
    RestoreResult,
    RetainResult,
    context_of,
    hit_of,
    memory_of,
    retain_result,
)
from hindsight_es.app.gateway.review_tools import ReviewTools, admit
from hindsight_es.app.gateway.tool_args import (
    ADD,
    CHANGE,
    READ,
    REMOVE,
    Agent,
    BankArg,
    MemoryId,
    SessionArg,
    When,
    renamed,
    tool_errors,
)
from hindsight_es.client import Hindsight, memory_uuid
from hindsight_es.errors import AccessDeniedError
from hindsight_es.remote.requests import (
    Flag,
    MemoryKind,
    MinRelevance,
    Reason,
    Role,
    Scope,
    Source,
    Text,
    Time,
    TimeoutS,
    TrustedOnly,
    Wait,
)
from hindsight_es.text import first_error

INSTRUCTIONS = """hindsight is long-term memory across conversations.
- Before answering, call get_context with the session id and the user's message: it returns the session's
  recent turns and the relevant memories as one block to read.
- Call retain with each user message (and any reply of yours worth remembering).
- Call recall to look something up; correct when the user corrects a remembered fact; forget when asked to.
Memory ids come from recall and get_context; history shows where a memory came from and how it changed.
Times are ISO 8601 with a zone (2026-03-01T09:00:00+01:00 or ...Z); a time without one is refused."""


class Tools(ReviewTools):
    """The tools of one server; ``fallback`` is the access of a request that carries no token."""

    @tool_errors
    async def retain(
        self,
        text: Annotated[
            Text,
            Field(validation_alias=renamed("text", "content"), description="What was said, or a statement to remember"),
        ],
        session_id: SessionArg = "default",
        role: Annotated[Role, Field(description="Who spoke: user, assistant, system or tool")] = "user",
        source: Annotated[
            Source | None,
            Field(
                description="Whose word it is: user, assistant, tool or document (sets the default trust); default: "
                "from role (an assistant's or system's turn is the assistant's, a tool's the tool's)"
            ),
        ] = None,
        speaker: Annotated[str | None, Field(max_length=256, description="Who said it, e.g. a name")] = None,
        turn_id: Annotated[
            str | None,
            Field(
                min_length=1, max_length=256, description="Stable id of the turn: retaining it again changes nothing"
            ),
        ] = None,
        occurred_at: When = None,
        explicit: Annotated[Flag, Field(description="An explicit 'remember this', not a conversation turn")] = False,
        agent: Agent = None,
        scope: Annotated[
            Scope, Field(description="session: forgotten when the session ends, unless promoted")
        ] = "global",
        wait: Annotated[Flag, Field(description="Return once its memories are queryable, listing them")] = False,
        timeout_s: TimeoutS = None,
        bank_id: BankArg = None,
    ) -> RetainResult:
        """Record a conversation turn or an explicit memory. Call it for every user message and for replies worth
        remembering; memories (facts, preferences, plans...) are extracted from it."""
        receipt = await self.hs.retain(
            self._bank(bank_id),
            text,
            session_id=session_id,
            turn_id=turn_id,
            role=role,
            source=source,
            speaker=speaker,
            occurred_at=occurred_at,
            metadata={"explicit": True} if explicit else {},
            owner=agent,
            scope=scope,
            actor=self._actor(),
            wait=wait,
            timeout_s=timeout_s,
        )
        return retain_result(receipt)

    @tool_errors
    async def recall(
        self,
        query: Annotated[str, Field(min_length=1, max_length=4000, description="What to look up, in any words")],
        limit: Annotated[int, Field(ge=1, le=100, description="Most hits to return")] = 10,
        max_tokens: Annotated[int | None, Field(ge=16, le=32000, description="Token budget for the hits")] = None,
        kinds: Annotated[list[MemoryKind] | None, Field(description="Only these kinds")] = None,
        since: Annotated[
            Time | None, Field(description="Only memories valid from this time on (ISO 8601 with a zone)")
        ] = None,
        until: Annotated[
            Time | None, Field(description="Only memories valid from before this time (ISO 8601 with a zone)")
        ] = None,
        agent: Agent = None,
        include_shared: Annotated[Flag, Field(description="Also the shared banks this bank reads")] = False,
        include_archived: Annotated[
            Flag, Field(description="Also archived (faded) memories from the cold archive; those served come back")
        ] = False,
        explain: Annotated[
            Flag, Field(description="Say why each hit came back (matched words, meaning, time)")
        ] = False,
        trusted_only: TrustedOnly = False,
        min_relevance: MinRelevance = None,
        bank_id: BankArg = None,
    ) -> RecallResult:
        """Search long-term memory: the active memories most relevant to a query, best first, with ids, kinds,
        scores, source turns, times and provenance (trusted: the user's own word; otherwise a note from a
        document, a tool, another user or your own inference, and any open disputes). Call it when you need
        something the user told you before."""
        bank = self._bank(bank_id)
        hits = await self.hs.recall(
            bank,
            query,
            limit=limit,
            max_tokens=max_tokens,
            kinds=kinds,
            since=since,
            until=until,
            agent=agent,
            include_shared=include_shared,
            include_archived=include_archived,
            trusted_only=trusted_only,
            min_relevance=min_relevance,
        )
        reasons = await self.hs.browser.explain(bank, query, hits) if explain and hits else {}
        return RecallResult(bank_id=bank, query=query, hits=[hit_of(h, reasons.get(h.memory_id, ())) for h in hits])

    @tool_errors
    async def get_context(
        self,
        session_id: SessionArg,
        text: Annotated[
            str,
            Field(
                max_length=16000, validation_alias=renamed("text", "message"), description="The user's current message"
            ),
        ] = "",
        budget_tokens: Annotated[int, Field(ge=64, le=32000, description="Token budget of the block")] = 1500,
        agent: Agent = None,
        include_shared: Annotated[Flag, Field(description="Also the shared banks this bank reads")] = False,
        trusted_only: TrustedOnly = False,
        min_relevance: MinRelevance = None,
        bank_id: BankArg = None,
    ) -> Context:
        """One prompt-ready block of remembered context for a reply: the session's recent turns and the long-term
        memories relevant to the user's message, within a token budget; notes that are not the user's word
        are in a section of their own. Call it before answering."""
        bank = self._bank(bank_id)
        block = await self.hs.context(
            bank,
            session_id,
            text,
            budget_tokens=budget_tokens,
            agent=agent,
            include_shared=include_shared,
            trusted_only=trusted_only,
            min_relevance=min_relevance,
        )
        return context_of(bank, session_id, block)

    @tool_errors
    async def forget(
        self, memory_id: MemoryId, reason: Reason = "", wait: Wait = True, bank_id: BankArg = None
    ) -> ForgetResult:
        """Forget one memory: recall stops returning it (its history is kept). Call it when the user asks you to
        forget something or a memory is wrong and has no replacement."""
        bank = self._bank(bank_id)
        receipt = await self.hs.forget(bank, memory_id, reason=reason, wait=wait, actor=self._actor())
        return ForgetResult(bank_id=bank, memory_id=str(memory_uuid(memory_id)), ready=bool(receipt.ready))

    @tool_errors
    async def correct(
        self,
        memory_id: MemoryId,
        text: Annotated[Text, Field(description="The corrected memory, as a full statement")],
        reason: Reason = "",
        wait: Wait = True,
        bank_id: BankArg = None,
    ) -> CorrectResult:
        """Replace a memory by a corrected one; the old one is superseded and kept in its history. Call it when
        the user says a remembered fact is wrong or has changed."""
        bank = self._bank(bank_id)
        receipt = await self.hs.correct(bank, memory_id, text, reason=reason, wait=wait, actor=self._actor())
        return CorrectResult(
            bank_id=bank,
            corrected_id=str(memory_uuid(memory_id)),
            ready=bool(receipt.ready),
            memory=memory_of(receipt.retained[0]) if receipt.retained else None,
        )

    @tool_errors
    async def history(self, memory_id: MemoryId, bank_id: BankArg = None) -> HistoryResult:
        """Where a memory came from and how it changed: its source turns, every event about it, and what it
        superseded or was superseded by. Call it to explain or audit a memory."""
        return HistoryResult.of(await self.hs.history(self._bank(bank_id), memory_id))

    @tool_errors
    async def list_banks(self) -> BankList:
        """The memory banks this connection may use (those with anything recorded)."""
        access = current_access(self.fallback)
        return BankList(banks=[b for b in await self.hs.list_banks() if access.allows(b)])

    @tool_errors
    async def bank_stats(self, bank_id: BankArg = None) -> BankStats:
        """Counts for one bank: memories by status and kind, turns, sessions, first and last activity."""
        return BankStats(**await self.hs.bank_stats(self._bank(bank_id)))

    @tool_errors
    async def restore(
        self, memory_id: MemoryId, reason: Reason = "", wait: Wait = True, bank_id: BankArg = None
    ) -> RestoreResult:
        """Bring back an archived (faded), forgotten or superseded memory: it becomes active and recallable again,
        with its history. A superseded one replaces what superseded it (the user's correction is undone): restore it
        only when the user says the older value holds again. Archived memories are found with recall
        include_archived=true."""
        bank = self._bank(bank_id)
        receipt = await self.hs.restore(bank, memory_id, reason=reason, wait=wait, actor=self._actor())
        return RestoreResult(bank_id=bank, memory_id=str(memory_uuid(memory_id)), ready=bool(receipt.ready))

    def registry(self) -> list[tuple[Callable[..., Awaitable[Any]], ToolAnnotations]]:
        return [
            (self.retain, ADD),
            (self.recall, READ),
            (self.get_context, READ),
            (self.forget, REMOVE),
            (self.correct, CHANGE),
            (self.history, READ),
            (self.list_banks, READ),
            (self.bank_stats, READ),
            (self.quarantine, CHANGE),
            (self.erase, REMOVE),
            (self.trust, CHANGE),
            (self.restore, CHANGE),
        ]


def build_server(
    hs: Hindsight,
    fallback: Access,
    *,
    token_verifier: TokenVerifier | None = None,
    issuer_url: str | None = None,
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "WARNING",
) -> MCPServer:
    """An ``MCPServer`` over ``hs``; with a ``token_verifier`` (HTTP) every request needs a valid bearer token."""
    # Static bearer tokens: the SDK's middleware needs AuthSettings, but no OAuth routes or metadata are served.
    auth = (
        AuthSettings(issuer_url=issuer_url or "http://127.0.0.1", resource_server_url=None)  # type: ignore[arg-type]  # pydantic validates the str
        if token_verifier
        else None
    )
    tools = [
        strict_tool(fn, " ".join((fn.__doc__ or "").split()), hints) for fn, hints in Tools(hs, fallback).registry()
    ]
    server: MCPServer = _Gateway(
        "hindsight",
        fallback=fallback,
        tools=tools,
        title="hindsight memory",
        instructions=INSTRUCTIONS,
        version=version(),
        token_verifier=token_verifier,
        auth=auth,
        log_level=log_level,
    )
    return server


class _Gateway(MCPServer):
    """Every tool call is first admitted (``review_tools.admit``: the bank it names, an operator's call),
    before its arguments are validated. Arguments that fail a tool's schema are said in one line, each field
    as every door says it (``text.first_error``: "recall: query: String should have at least 1 character;
    limit: …"), not as pydantic's multi-line report with its type codes and the caller's input echoed."""

    def __init__(self, name: str, *, fallback: Access, **settings: Any) -> None:
        super().__init__(name, **settings)
        self._fallback = fallback  # the access of a request that carries no token

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            admit(current_access(self._fallback), name, arguments)
        except AccessDeniedError as exc:
            raise ToolError(f"{name}: {exc}") from exc
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                said = "; ".join(first_error([error]) for error in exc.__cause__.errors())  # each field once
                raise ToolError(f"{name}: {said}") from exc.__cause__
            raise


def strict_tool(fn: Callable[..., Awaitable[Any]], description: str, hints: ToolAnnotations) -> Tool:
    """A tool whose arguments model refuses unknown arguments (the SDK's ignores them), so a misspelt
    ``sesion_id`` is an error naming it, not a call that silently used the default; the published
    ``inputSchema`` says so (``additionalProperties: false``)."""
    tool = Tool.from_function(fn, description=description, annotations=hints)
    lenient = tool.fn_metadata.arg_model
    strict: type[ArgModelBase] = type(
        lenient.__name__,
        (lenient,),
        {"model_config": ConfigDict(extra="forbid", arbitrary_types_allowed=True), "__module__": lenient.__module__},
    )
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hindsight-es")
    except PackageNotFoundError:
        return "0"
