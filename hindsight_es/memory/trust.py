"""Trust from identity: whose word a turn is, from its authenticated principal and the bank's owners.

    provenance(turn) = "user"        a user turn whose principal (``actor``) is one of the bank's owners
                       "other_user"  a user turn from any other principal (another user of a shared bank)
                       "assistant" | "tool" | "document"   the turn's source, whoever published it

    rank:  user (or a memory the owner confirmed) 2  >  other_user, assistant 1  >  tool, document 0

Only a higher or equal rank may supersede a memory; a lower rank that contradicts one is a dispute
(``disputes``). Owners are declared per bank (``SetOwnersRequested`` -> ``BankOwnersSet``). A bank with
no declaration is owned by the principal of its first user memory (the first user turn that left one,
also in a log written before owners existed), so a single-user bank behaves as before and every decision
stays a function of the log. A turn's declared ``trust`` can lower its trust, never raise it.

A turn's role bounds its source (``as_said``): an assistant's, system's or tool's turn is never the user's
word, though its source was left at "user". The connections that carry no credential (``LOCAL``) are one
principal: on a machine without tokens the CLI, the HTTP API, MCP over stdio and over HTTP are one person.
A token is one principal at every door (``principal``): its actor names the door it came through
("mcp:token-ab12", "http:token-ab12", "ui:token-ab12"), which owners and key namespaces leave out.
"""

from __future__ import annotations

from collections.abc import Sequence

from hindsight_es.events import BankOwnersSet, SetOwnersRequested, TurnRecorded
from hindsight_es.events.candidates import Candidate
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import caused
from hindsight_es.memory.state import BankState, MemoryInfo
from hindsight_es.types import Provenance, Source, Trust

RANK: dict[str, int] = {"user": 2, "other_user": 1, "assistant": 1, "tool": 0, "document": 0}
TRUST_OF: dict[str, Trust] = {
    "user": "trusted",
    "other_user": "normal",
    "assistant": "normal",
    "tool": "untrusted",
    "document": "untrusted",
}
_TRUST_RANK = {"untrusted": 0, "normal": 1, "trusted": 2}
#: How an agent sees each provenance in a context block and in recall results.
LABELS: dict[str, str] = {
    "user": "said by the user",
    "other_user": "said by another user of this bank",
    "assistant": "inferred by the assistant, unconfirmed",
    "tool": "from a tool output",
    "document": "from a document",
}


#: The source a turn of each role has at most: a turn whose source says "user" (the default, which an agent
#: logging its own reply often leaves) is the user's word only from the user.
ROLE_SOURCE: dict[str, Source] = {"user": "user", "assistant": "assistant", "system": "assistant", "tool": "tool"}

#: The actors of connections without a credential: the CLI and the in-process client ("user", unless the
#: caller names one), the HTTP API, the dashboard and MCP over HTTP while no tokens are configured (they
#: refuse anyone without a token once there are), MCP over stdio. One person at several doors: as owners
#: they are one principal, so the README's curl, CLI and MCP steps write as the same user.
LOCAL: frozenset[str] = frozenset({"user", "http:local", "ui:local", "mcp:http", "mcp:stdio"})


def as_said(turn: TurnRecorded) -> TurnRecorded:
    """``turn`` with the source its role allows (``ROLE_SOURCE``); the bank actor decides this one."""
    source = ROLE_SOURCE[turn.role]
    if turn.source != "user" or source == "user":
        return turn
    return turn.model_copy(update={"source": source})


#: The doors an actor's name starts with (``app.gateway``: MCP, the HTTP API, the dashboard).
DOORS = ("mcp:", "http:", "ui:")


def principal(actor: str) -> str:
    """Who ``actor`` is, whatever door they came in by: a token's client id, "local" for the doors without a
    credential (``LOCAL``), any other actor (a service's own name) as it is."""
    if actor in LOCAL:
        return "local"
    door = next((d for d in DOORS if actor.startswith(d)), "")
    return actor[len(door) :] or actor


def is_owner(actor: str, owners: Sequence[str]) -> bool:
    """``actor`` is the principal of one of ``owners`` (the same token at another door; one credential-less
    local door where another is an owner)."""
    return principal(actor) in {principal(owner) for owner in owners}


def owners(state: BankState, turn: TurnRecorded | None = None) -> tuple[str, ...]:
    """The bank's owners: as declared, else the principal of its first user memory, else (for the bank's
    first user turn) the turn's own."""
    if state.owners_set:
        return state.owners
    if state.first_user_actor is not None:
        return (state.first_user_actor,)
    return (turn.actor,) if turn is not None and turn.source == "user" else ()


def provenance(turn: TurnRecorded, owners: tuple[str, ...]) -> Provenance:
    if turn.source != "user":
        return turn.source
    return "user" if is_owner(turn.actor, owners) else "other_user"


def trust_of(turn: TurnRecorded, prov: str) -> Trust:
    """The trust the decision uses: the provenance's, or lower when the turn itself declares lower."""
    derived = TRUST_OF[prov]
    if turn.trust is not None and _TRUST_RANK[turn.trust] < _TRUST_RANK[derived]:
        return turn.trust
    return derived


def rank(memory: MemoryInfo) -> int:
    return 2 if memory.confirmed else RANK.get(memory.provenance, 0)


def is_trusted(prov: str | None, confirmed: bool) -> bool:
    """What an agent may read as the user's own facts: the owner's word, or what the owner confirmed."""
    return confirmed or prov == "user"


def own_keys(candidates: Sequence[Candidate], prov: str, actor: str) -> list[Candidate]:
    """Only the owner writes facts about the owner: another speaker's first-person ``user/…`` key is about
    that speaker (another user's, under ``member:<principal>/…``) or about no one the bank knows (a document's
    author, a tool, the assistant: no key)."""
    if prov == "user":
        return list(candidates)
    out = []
    for cand in candidates:
        if cand.key is not None and cand.key.startswith("user/"):
            key = f"member:{principal(actor)}/{cand.key[5:]}" if prov == "other_user" else None
            cand = cand.model_copy(update={"key": key})
        out.append(cand)
    return out


def owners_set(state: BankState, command: SetOwnersRequested) -> BankOwnersSet:
    return BankOwnersSet(
        event_id=derive_id(command.event_id, "owners"),
        **caused(command),
        owners=tuple(dict.fromkeys(command.owners)),
        previous=state.owners,
        reason=command.reason,
    )
