"""Erase content for good (crypto-shredding): the one code path of ``hindsight-es erase``, the HTTP
``POST /v1/banks/{bank}/erase`` route, the MCP ``erase`` tool and the remote clients.

An erase records an ``ErasureRequested`` (the units it covers: the data keys of a session's turns and
memories, of one turn and the memories drawn from it, or of one memory), then destroys those keys in the
key store (``log.keys``): from then on every read of the log gives the erased placeholder. The bank
actor answers ``ContentErased`` and drops its older snapshots; each projection, the only writer of its
table, drops the erased rows itself when it applies it (``projections.vectors``,
``projections.working_memory``, ``projections.erasure``). This module writes no store: with ``wait`` it
returns once every projection has applied the ``ContentErased`` (the writer's wait-for-position).
Recorded before destroyed, so a failure in between leaves the record, not live content: the bank actor
destroys the request's keys too (a second destroy is a no-op) before it appends ``ContentErased``, so no
key opens content the log says is erased. A session, turn or memory the bank never held is a
``NotFoundError`` before anything is recorded (a mistyped id must not read as an erasure done).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from hindsight_es.client.connection import Connection
from hindsight_es.client.inputs import build, memory_uuid
from hindsight_es.client.outcome import Outcomes, Projected, memory_partition_end
from hindsight_es.client.writer import Writer
from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.errors import InvalidInputError, NotFoundError
from hindsight_es.events import CommandIgnored, ContentErased, ErasureRequested
from hindsight_es.log.keys import Destruction, KeyStore
from hindsight_es.remote.erasure import ErasureResult

__all__ = ["Erasure", "erase", "erase_bank"]

Drive = Callable[[], Awaitable[object]]


@dataclass(frozen=True, slots=True)
class Erasure:
    """What an erase destroyed, and (when waited for) what the bank actor found to erase."""

    bank_id: str
    request_id: str
    units: list[str]
    ready: bool | None  # None: not waited for; False: not applied by every projection within the time-out
    memory_ids: list[str] = field(default_factory=list)
    turn_ids: list[str] = field(default_factory=list)
    erased_at: str | None = None  # None: not decided by the bank actor (not waited for, not within the wait, ignored)
    ignored: str = ""  # why the bank actor erased nothing (erased before): its CommandIgnored's reason

    def result(self) -> ErasureResult:
        """As the HTTP API, the MCP tool and the CLI's ``--json`` answer it."""
        return ErasureResult(
            bank_id=self.bank_id,
            request_id=self.request_id,
            units=self.units,
            memory_ids=self.memory_ids,
            turn_ids=self.turn_ids,
            erased_at=self.erased_at,
            ready=bool(self.ready),
            ignored=self.ignored or None,
        )


async def erase(
    conn: Connection,
    writer: Writer,
    bank_id: str,
    *,
    session_id: str | None = None,
    turn_id: str | None = None,
    memory_id: str | UUID | None = None,
    reason: str,
    actor: str = "operator",
    wait: bool = True,
    timeout_s: float | None = None,
    drive: Drive | None = None,
) -> Erasure:
    """Erase one session, turn or memory of ``bank_id`` (exactly one). ``drive``: run after the keys are
    destroyed, for a caller without a running service (the CLI runs the actor and projections there)."""
    if sum(x is not None for x in (session_id, turn_id, memory_id)) != 1:
        raise InvalidInputError("give exactly one of session_id, turn_id, memory_id")
    sealer = await _sealer(conn, reason)
    memory = memory_uuid(memory_id) if memory_id is not None else None
    plan = await _planned(conn, sealer, bank_id, session_id, turn_id, memory, reason, actor)
    outcomes = Outcomes(conn.log, *await _recorded(conn, writer, sealer, bank_id, [plan], drive), _projected(conn))
    return await _outcome(conn, bank_id, plan, outcomes, wait, timeout_s)


async def erase_bank(
    conn: Connection,
    writer: Writer,
    bank_id: str,
    *,
    reason: str,
    actor: str = "operator",
    wait: bool = True,
    timeout_s: float | None = None,
    drive: Drive | None = None,
    done: Callable[[str, Erasure, int, int], object] = lambda *_: None,
) -> list[Erasure]:
    """Erase everything ``bank_id`` holds for good: an erasure of each session that holds a live key, then of
    each turn or memory keyed outside a session, so every erasure in the log names its scope as one of a
    session does and no single event carries a whole bank's units. They are recorded and their keys destroyed
    together, the actor and projections driven once (``drive``), and then each outcome is awaited in turn
    (the bank actor decides them in the order recorded). ``done(scope, erasure, n, of)`` after each ("session
    s1", "turn t9"; the CLI's progress). Afterwards the bank holds no live key (``KeyStore.live``); its memories
    read as erased placeholders, as after any erase, and content written before sealing was on is not covered
    (it has no key)."""
    sealer = await _sealer(conn, reason)
    live = await asyncio.to_thread(sealer.keys.live, bank_id)
    if not live:
        raise NotFoundError(
            f"bank {bank_id!r} holds no live data key: nothing to erase (erased before, never written, or written "
            "before sealing was on)"
        )
    out: list[Erasure] = []

    async def batch(scopes: list[Scope]) -> None:
        if not scopes:
            return
        plans = [await _planned(conn, sealer, bank_id, *scope[1:], reason, actor) for scope in scopes]
        outcomes = Outcomes(conn.log, *await _recorded(conn, writer, sealer, bank_id, plans, drive), _projected(conn))
        for n, (scope, plan) in enumerate(zip(scopes, plans, strict=True), 1):
            out.append(await _outcome(conn, bank_id, plan, outcomes, wait, timeout_s))
            done(scope[0], out[-1], n, len(plans))

    await batch([(f"session {s}", s, None, None) for s in sorted({s for s in live.values() if s is not None})])
    # then what no session covered (keyed outside one, or written meanwhile), read after the sessions' erasures
    rest = await asyncio.to_thread(sealer.keys.live, bank_id)
    await batch([(f"{u.replace(':', ' ', 1)} (keyed outside a session)", None, *_unit_scope(u)) for u in rest])
    return out


Scope = tuple[str, str | None, str | None, UUID | None]  # (what the progress says, session, turn, memory)


def _unit_scope(unit: str) -> tuple[str | None, UUID | None]:
    """(turn id, memory id) of a ``turn:…`` or ``memory:…`` unit."""
    kind, _, name = unit.partition(":")
    return (name, None) if kind == "turn" else (None, memory_uuid(name))


Plan = tuple[ErasureRequested, list[str]]  # the command, and the units whose keys it destroys


async def _planned(
    conn: Connection,
    sealer: Any,
    bank_id: str,
    session_id: str | None,
    turn_id: str | None,
    memory: UUID | None,
    reason: str,
    actor: str,
) -> Plan:
    """The erasure of one scope and the live units it covers; ``NotFoundError`` when the bank never held it."""
    scope = {"session_id": session_id, "turn_id": turn_id, "memory_id": None if memory is None else str(memory)}
    units = await asyncio.to_thread(sealer.keys.select, bank_id, **scope)
    if not units and not await _held(conn, sealer.keys, bank_id, session_id, turn_id, memory):
        named = f"session {session_id!r}" if session_id else f"turn {turn_id!r}" if turn_id else f"memory {memory}"
        raise NotFoundError(f"no {named} in bank {bank_id!r}: nothing to erase (check the id and the bank)")
    command = build(
        ErasureRequested,
        bank_id=bank_id,
        session_id=session_id,
        turn_id=turn_id,
        memory_id=memory,
        units=tuple(units),
        reason=reason,
        actor=actor,
    )
    return command, list(units)


async def _recorded(
    conn: Connection, writer: Writer, sealer: Any, bank_id: str, plans: list[Plan], drive: Drive | None
) -> tuple[int, int]:
    """Record the erasures, then destroy their keys (recorded first: a failure in between leaves the record,
    not live content), then ``drive``; the bank's memories partition and its end before them, where their
    outcomes are looked for."""
    at = await conn.logged(memory_partition_end(conn.log, bank_id))
    await writer.publish([command for command, _ in plans])
    await asyncio.to_thread(sealer.keys.destroy_all, [Destruction.of(command) for command, _ in plans])
    sealer.forget_cached()
    if drive is not None:
        await drive()
    return at


async def _outcome(
    conn: Connection, bank_id: str, plan: Plan, outcomes: Outcomes, wait: bool, timeout_s: float | None
) -> Erasure:
    """What the bank actor decided for ``plan``, once every projection applied it (``wait``; else at once)."""
    command, units = plan
    out = Erasure(bank_id, str(command.event_id), list(units), None)
    if not wait:
        return out
    timeout = timeout_s or conn.settings.mcp_wait_timeout_s
    outcome = await conn.logged(
        outcomes.of(command.event_id, time.monotonic() + timeout), timeout + conn.settings.request_timeout_s
    )
    if ignored := next((e for e in outcome.events if isinstance(e, CommandIgnored)), None):
        return Erasure(bank_id, out.request_id, out.units, True, ignored=ignored.reason)
    done = next((e for e in outcome.events if isinstance(e, ContentErased)), None)
    if done is None:
        return Erasure(bank_id, out.request_id, out.units, False)
    return Erasure(
        bank_id,
        out.request_id,
        out.units,
        outcome.ready,
        [str(m) for m in done.memory_ids],
        list(done.turn_ids),
        done.occurred_at.isoformat(timespec="seconds"),
    )


def _projected(conn: Connection) -> Projected:
    """Whether every projection that applies an erasure (the memories and turns tables, the archive) holds
    the bank's memory events up to an offset."""

    async def projected(part: int, last: int) -> bool:
        def check() -> bool:
            lance = conn.lance()
            stands = [lance.positions("memories").get((TOPIC_MEMORIES, part), 0)]
            stands.append(conn.archive().positions().get((TOPIC_MEMORIES, part), 0))
            turns = lance.positions("turns")
            if any(topic == TOPIC_MEMORIES for topic, _ in turns):  # a working memory that reads the erasures
                stands.append(turns.get((TOPIC_MEMORIES, part), 0))
            return min(stands) > last

        return await conn.read(check)

    return projected


async def _sealer(conn: Connection, reason: str) -> Any:
    """The log's sealer (whose key store an erase destroys keys in), once the reason and the log allow one."""
    if not reason.strip():
        raise InvalidInputError("a reason is required: it is kept with the erasure (never the content)")
    await conn.start()
    sealer = getattr(conn.log, "sealer", None)
    if sealer is None:
        raise InvalidInputError(
            "content is not sealed here (HINDSIGHT_SEAL_CONTENT off), so it cannot be erased for good"
        )
    return sealer


async def _held(
    conn: Connection, keys: KeyStore, bank_id: str, session_id: str | None, turn_id: str | None, memory: UUID | None
) -> bool:
    """Whether the bank ever held what an erase names that no live key covers: erased before (the key store
    keeps the turn's or memory's tombstone; a session's erased turns stay in the archive as placeholders),
    or written before sealing was on (the archive has it). Neither: a mistyped id, refused before anything
    is recorded. Reads the bank's turns only for a turn the key store never keyed."""
    unit = f"turn:{turn_id}" if turn_id is not None else f"memory:{memory}" if memory is not None else None
    if unit is not None and unit in await asyncio.to_thread(keys.lookup, bank_id, [unit]):
        return True

    def archived() -> bool:
        archive = conn.archive()
        if memory is not None:
            return bool(archive.events(bank_id, memory_id=memory, limit=1))
        if session_id is not None:
            return bool(archive.events(bank_id, types=["TurnRecorded"], session_id=session_id, limit=1))
        return any(e["turn_id"] == turn_id for e in archive.events(bank_id, types=["TurnRecorded"]))

    return await conn.read(archived)
