"""The request bodies of the HTTP API, with the constraints the server checks (the OpenAPI document shows them).

The same names as the results and the MCP tools (see ``models``). Every time must carry a zone
(``AwareDatetime``): a time without one is refused rather than guessed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool
from pydantic_core import PydanticCustomError

from hindsight_es.text import REFUSED, control_character
from hindsight_es.types import Time as StrictTime

Role = Literal["user", "assistant", "system", "tool"]
Source = Literal["user", "assistant", "tool", "document"]
Scope = Literal["global", "session", "task"]
MemoryKind = Literal["episode", "fact", "preference", "plan", "decision", "correction", "constraint", "summary"]
Status = Literal["active", "superseded", "forgotten", "quarantined", "retracted", "archived"]

# ASCII on the HTTP API: JSON Schema's \w is ASCII-only while Python's is not, and the document must say
# exactly what the server accepts (banks with other letters are reachable over MCP and the CLI).
ID_PATTERN = r"^[A-Za-z0-9_.:@\-]+$"
NOT_BLANK = r"\S"  # at least one character that is not white space
PRINTABLE = r"^[^\x00-\x1f\x7f]+$"  # no control characters (a NUL can never reach a store filter)
# What was said: not blank, no control character but tab, newline and carriage return, no bidirectional
# override (``text.REFUSED``)
TEXT_PATTERN = rf"^[^{REFUSED}]*[^\s{REFUSED}][^{REFUSED}]*$"


def _no_control_character(value: Any) -> Any:
    if isinstance(value, str) and (problem := control_character(value)) is not None:
        raise PydanticCustomError("control_character", problem)
    return value


# The document states both rules in one pattern; the server checks them apart, to name the character it refuses.
Text = Annotated[
    str,
    Field(min_length=1, pattern=NOT_BLANK, json_schema_extra={"pattern": TEXT_PATTERN}),
    BeforeValidator(_no_control_character),  # runs first: a text with a NUL is refused for it, not its pattern
]
BankId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        pattern=ID_PATTERN,
        description="Memory bank (one user, agent or team): letters, digits and . : @ - _",
    ),
]
SessionId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=256,
        pattern=PRINTABLE,
        description="Conversation id (up to 256 characters, no control characters)",
    ),
]
TurnId = Annotated[str, Field(min_length=1, max_length=256, pattern=PRINTABLE, description="A turn id")]
AgentId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=128,
        pattern=ID_PATTERN,
        description="The agent asking or remembering: it sees its own private memories and shared ones, never "
        "another agent's; what it retains is private to it",
    ),
]
MemoryId = Annotated[str, Field(min_length=1, max_length=64, description="A memory id (a UUID, as recall returns it)")]
Reason = Annotated[str, Field(max_length=2000, description="Why (kept in the memory's history)")]
Wait = Annotated[StrictBool, Field(description="Return once the change is visible to recall")]
TimeoutS = Annotated[float | None, Field(gt=0, le=120, description="Seconds to wait at most (default 10)")]
TrustedOnly = Annotated[
    StrictBool, Field(description="Only the user's own word and what the user confirmed (no documents, tools, others)")
]
MinRelevance = Annotated[
    float | None,
    Field(
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="No long-term memories unless the best hit is at least this relevant (0 to 1; 0: every hit; "
        "default: the server's HINDSIGHT_MIN_RELEVANCE)",
    ),
]
# No coercion: a boolean is true or false (never 1 or "yes"), a time is text with a zone (never a number).
Flag = StrictBool
Time = Annotated[StrictTime, Field(description="ISO 8601 with a zone, e.g. 2026-03-01T09:00:00+01:00 or …Z")]

__all__ = [
    "ContextRequest",
    "CorrectRequest",
    "ForgetRequest",
    "OwnersRequest",
    "RecallRequest",
    "RestoreRequest",
    "RetainRequest",
    "ReviewRequest",
    "RollbackRequest",
    "RollbackSelection",
    "UndoRequest",
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently ignored


class RetainRequest(_Body):
    text: Text = Field(description="What was said, or a statement to remember")
    session_id: SessionId = "default"
    role: Role = Field("user", description="Who spoke: user, assistant, system or tool")
    source: Source | None = Field(
        None,
        description="Whose word it is: user, assistant, tool or document (sets the default trust); default: from "
        "role (an assistant's or system's turn is the assistant's, a tool's the tool's)",
    )
    speaker: str | None = Field(None, max_length=256, description="Who said it, e.g. a name")
    turn_id: TurnId | None = Field(None, description="Stable id of the turn: retaining it again changes nothing")
    occurred_at: Time | None = Field(
        None,
        description="When it was said (ISO 8601 with a zone; default now; at most a day ahead of the server's clock)",
    )
    explicit: Flag = Field(False, description="An explicit 'remember this', not a conversation turn")
    agent: AgentId | None = None
    scope: Scope = Field("global", description="session: forgotten when the session ends, unless promoted")
    wait: Flag = Field(False, description="Return once its memories are queryable, listing them")
    timeout_s: TimeoutS = None


class RecallRequest(_Body):
    query: str = Field(min_length=1, max_length=4000, pattern=NOT_BLANK, description="What to look up, in any words")
    limit: int = Field(10, ge=1, le=100, description="Most hits to return")
    max_tokens: int | None = Field(None, ge=16, le=32000, description="Token budget for the hits")
    kinds: list[MemoryKind] | None = Field(None, description="Only these kinds")
    since: Time | None = Field(None, description="Only memories valid from this time on (ISO 8601 with a zone)")
    until: Time | None = Field(None, description="Only memories valid from before this time (ISO 8601 with a zone)")
    agent: AgentId | None = None
    include_shared: Flag = Field(False, description="Also the shared banks this bank reads")
    include_archived: Flag = Field(
        False, description="Also archived (faded) memories from the cold archive; those served come back"
    )
    explain: Flag = Field(False, description="Say why each hit came back (matched words, meaning, time)")
    trusted_only: TrustedOnly = False
    min_relevance: MinRelevance = None


class ContextRequest(_Body):
    session_id: SessionId
    text: str = Field("", max_length=16000, description="The user's current message")
    budget_tokens: int = Field(1500, ge=64, le=32000, description="Token budget of the block")
    agent: AgentId | None = None
    include_shared: Flag = Field(False, description="Also the shared banks this bank reads")
    trusted_only: TrustedOnly = False
    min_relevance: MinRelevance = None


class ForgetRequest(_Body):
    reason: Reason = ""
    wait: Wait = True


class RestoreRequest(_Body):
    reason: Reason = ""
    wait: Wait = True


class CorrectRequest(_Body):
    text: Text = Field(description="The corrected memory, as a full statement")
    reason: Reason = ""
    wait: Wait = True


class ReviewRequest(_Body):
    memory_ids: list[UUID] = Field(
        min_length=1, max_length=100, description="Quarantined (or, for disputes, disputing) memories of the bank"
    )
    reason: Reason = ""
    wait: Wait = True


class OwnersRequest(_Body):
    owners: list[Annotated[str, Field(min_length=1, max_length=256, pattern=PRINTABLE)]] = Field(
        min_length=1, max_length=64, description="Principals that own the bank, e.g. mcp:token-ab12cd34"
    )
    reason: Reason = ""
    wait: Wait = True


_CRITERIA = ("session_id", "turn_ids", "source", "actor", "since", "until")


def _given(name: str) -> dict[str, Any]:  # JSON Schema: the criterion is there and not null
    return {"required": [name], "properties": {name: {"not": {"type": "null"}}}}


class RollbackSelection(_Body):
    """Which turns to roll back: every criterion given narrows it (ANDed); at least one is required."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [_given(c) for c in _CRITERIA]})

    session_id: SessionId | None = None
    turn_ids: list[TurnId] | None = Field(None, min_length=1, max_length=1000, description="These turn ids")
    source: Source | None = Field(None, description="Turns from this source")
    actor: str | None = Field(
        None,
        min_length=1,
        max_length=256,
        pattern=PRINTABLE,
        description="Turns published by this actor (mcp:token-…)",
    )
    since: Time | None = Field(None, description="Turns at or after this time (ISO 8601 with a zone)")
    until: Time | None = Field(None, description="Turns before this time (ISO 8601 with a zone)")


class RollbackRequest(RollbackSelection):
    reason: Reason = ""
    wait: Wait = True
    timeout_s: TimeoutS = None


class UndoRequest(_Body):
    reason: Reason = ""
    wait: Wait = True
