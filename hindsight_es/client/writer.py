"""The write side of the client: publish turns and commands, and wait for what the bank actor made of them.

Turns go to ``hindsight.turns``, commands to ``hindsight.commands``, grouped per bank. Waiting
(``wait=True``) follows ``outcome``: the bank's memory partition is read from where it stood until the
events caused by the input are there and every projection holds them.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from hindsight_es import observe
from hindsight_es.client.connection import Connection
from hindsight_es.client.inputs import build, check_text, make_turn, memory_uuid
from hindsight_es.client.outcome import Outcome, await_outcome, memory_partition_end
from hindsight_es.client.reader import Reader
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.errors import ConflictError, InvalidInputError, LogError
from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ForgetRequested,
    JanitorTick,
    PromoteRequested,
    RestoreRequested,
    RetentionPolicy,
    SessionEnded,
    TurnRecorded,
    encode,
)
from hindsight_es.events.memory import is_erased_text
from hindsight_es.extraction.filler import is_filler
from hindsight_es.memory import ids as memory_ids
from hindsight_es.recall.models import MemoryView

# Memory ids probed for a turn decided before: the actor's ``ids.memory_id(turn, i)`` for i below this
# (extractors propose fewer candidates per turn).
MAX_CANDIDATES = 32


@dataclass(frozen=True, slots=True)
class Receipt:
    """An input that was published and, when the caller waited, what the bank actor made of it."""

    event: Event
    ready: bool | None  # None: not waited for; False: not decided and projected within the time-out
    retained: list[MemoryView] = field(default_factory=list)  # memories it retained, as they are now
    superseded: list[str] = field(default_factory=list)  # ids of memories it superseded


class Writer:
    def __init__(self, conn: Connection, reader: Reader) -> None:
        self.conn, self.reader = conn, reader
        self.settings = conn.settings

    async def publish(
        self, events: Sequence[Event], *, wait: bool = False, timeout_s: float | None = None
    ) -> bool | None:
        """Append events to their topic, grouped per bank, in order. With ``wait``, return once every bank's
        turns are decided and projected (True), or at the time-out (False); without, None.

        A bank's turns are decided in order and its memory events projected in order, so the wait follows the
        last turn with content of each bank; one whose memories are already there (published before) has
        nothing to wait for."""
        if not wait:
            await self._append(events)
            return None
        timeout = timeout_s or self.settings.mcp_wait_timeout_s
        deadline = time.monotonic() + timeout
        await self.conn.start()
        last = {e.bank_id: e for e in events if isinstance(e, TurnRecorded) and not is_filler(e.text)}
        pending = []
        for bank_id, turn in last.items():
            if await self.conn.read(self.reader.memory_rows, bank_id, _derived(turn)):
                continue  # decided before: the same turn (bank, session, turn id) adds nothing
            pending.append((turn, *await self.conn.logged(memory_partition_end(self.conn.log, bank_id))))
        await self._append(events)
        for turn, partition, start in pending:
            if not (await self._outcome(turn, partition, start, deadline, timeout)).ready:
                return False
        return True

    async def _append(self, events: Sequence[Event]) -> None:
        await self.conn.start()
        started = observe.now_ns()
        by_topic_bank: dict[tuple[str, str], list[bytes]] = defaultdict(list)
        for event in events:
            topic = TOPIC_TURNS if isinstance(event, TurnRecorded) else TOPIC_COMMANDS
            by_topic_bank[(topic, event.bank_id)].append(encode(event))
        timeout = self.settings.request_timeout_s
        try:
            for (topic, bank_id), values in by_topic_bank.items():
                await asyncio.wait_for(self.conn.log.append(topic, bank_id, values), timeout)
        except TimeoutError as exc:
            # The records may still be in the producer's hands and land later: the outcome is unknown, and the
            # caller needs the turn ids to send again without a duplicate (a turn id is decided once).
            turns = [e.turn_id for e in events if isinstance(e, TurnRecorded)]
            again = (
                f"send it again with the same session_id and turn_id ({', '.join(turns)}): a turn is decided once"
                if turns
                else ("check with history or recall before sending it again")
            )
            raise LogError(
                f"the log did not confirm the write within {timeout:g}s: it may still be written; {again}"
            ) from exc
        observe.spans_for("publish", events, started)

    async def record_turn(self, bank_id: str, text: str, **fields: Any) -> TurnRecorded:
        turn = make_turn(self.settings, bank_id, text, **fields)
        await self.publish([turn])
        return turn

    async def submit(self, command: Event, *, wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Publish a command; with ``wait``, return once the bank actor's answer to it is queryable."""
        if wait:
            return await self._publish_and_wait(command, timeout_s)
        await self.publish([command])
        return Receipt(command, None)

    async def retain(
        self, bank_id: str, text: str, *, wait: bool = False, timeout_s: float | None = None, **fields: Any
    ) -> Receipt:
        """Record a turn; with ``wait``, return once the memories it yields are queryable (or at the time-out)."""
        turn = make_turn(self.settings, bank_id, text, **fields)
        if not wait:
            await self.publish([turn])
            return Receipt(turn, None)
        if is_filler(text):  # the bank actor retains nothing of it (``memory.decide``): nothing to wait for
            await self.publish([turn])
            return Receipt(turn, True)
        if known := await self.conn.read(self.reader.memory_rows, bank_id, _derived(turn)):
            _same_turn(turn, known)
            return Receipt(turn, True, known)  # the same turn (bank, session, turn id) was decided before
        receipt = await self._publish_and_wait(turn, timeout_s)
        if receipt.ready:  # another retain of this turn id, sent beside this one, may have been decided first
            _same_turn(turn, receipt.retained)
        return receipt

    async def forget(
        self,
        bank_id: str,
        memory_id: str | UUID,
        *,
        reason: str = "",
        actor: str = "user",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Soft-delete one memory (it stays in the archive and in its history)."""
        current = await self.reader.memory(bank_id, memory_id)
        if current.status in ("forgotten", "retracted"):
            raise ConflictError(f"memory {current.memory_id} is already {current.status}")
        command = build(
            ForgetRequested, bank_id=bank_id, memory_ids=(UUID(current.memory_id),), reason=reason, actor=actor
        )
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def correct(
        self,
        bank_id: str,
        memory_id: str | UUID,
        text: str,
        *,
        reason: str = "",
        actor: str = "user",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Supersede an active memory by a corrected text; the old one stays in its history."""
        check_text(self.settings, text)
        current = await self.reader.memory(bank_id, memory_id)
        if current.status != "active":
            newer = f" by {current.superseded_by}" if current.superseded_by else ""
            raise ConflictError(
                f"memory {current.memory_id} is {current.status}{newer}; only an active memory can be corrected"
            )
        command = build(
            CorrectionRequested,
            bank_id=bank_id,
            memory_id=UUID(current.memory_id),
            text=text,
            reason=reason,
            actor=actor,
        )
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def restore(
        self,
        bank_id: str,
        memory_id: str | UUID,
        *,
        reason: str = "",
        actor: str = "user",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Bring a memory back: archived (from the cold archive, with its history), forgotten, superseded or
        retracted; it becomes active again and supersedes the current holder of its key."""
        current = await self.reader.memory(bank_id, memory_id)
        if current.status == "active":
            raise ConflictError(f"memory {current.memory_id} is active already")
        command = build(
            RestoreRequested, bank_id=bank_id, memory_ids=(UUID(current.memory_id),), reason=reason, actor=actor
        )
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    # ------------------------------------------------------------ the forgetting lifecycle

    async def forget_where(
        self,
        bank_id: str,
        *,
        memory_ids: Sequence[str | UUID] = (),
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        reason: str = "",
        actor: str = "user",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Soft-forget the listed memories and those of a session and/or retained in [since, until) (ANDed)."""
        if not (memory_ids or session_id or since or until):
            raise InvalidInputError("name memories, a session or a time range to forget")
        if since is not None and until is not None and since >= until:
            raise InvalidInputError(f"since ({since.isoformat()}) must be before until ({until.isoformat()})")
        command = build(
            ForgetRequested,
            bank_id=bank_id,
            memory_ids=tuple(memory_uuid(m) for m in memory_ids),
            session_id=session_id,
            since=since,
            until=until,
            reason=reason,
            actor=actor,
        )
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def end_session(
        self,
        bank_id: str,
        session_id: str,
        *,
        reason: str = "",
        actor: str = "user",
        wait: bool = False,
        timeout_s: float | None = None,
    ) -> Receipt:
        """The session is over: its session-scoped memories expire (are archived) unless promoted."""
        command = build(SessionEnded, bank_id=bank_id, session_id=session_id, reason=reason, actor=actor)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def promote(
        self,
        bank_id: str,
        memory_ids: Sequence[str | UUID],
        *,
        scope: str = "global",
        reason: str = "",
        actor: str = "user",
        wait: bool = True,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Widen the scope of memories (a session-scoped one outlives its session); an expired one comes back."""
        command = build(
            PromoteRequested,
            bank_id=bank_id,
            memory_ids=tuple(memory_uuid(m) for m in memory_ids),
            scope=scope,
            reason=reason,
            actor=actor,
        )
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def janitor_tick(
        self,
        bank_id: str,
        policy: RetentionPolicy,
        *,
        occurred_at: datetime | None = None,
        reason: str = "manual",
        wait: bool = False,
        timeout_s: float | None = None,
    ) -> Receipt:
        """Ask the bank actor to archive what has faded now (or at ``occurred_at``) under ``policy``."""
        when = {"occurred_at": occurred_at} if occurred_at is not None else {}
        command = build(JanitorTick, bank_id=bank_id, policy=policy, reason=reason, actor="janitor", **when)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    # ------------------------------------------------------------ waiting

    async def _publish_and_wait(self, event: Event, timeout_s: float | None) -> Receipt:
        started = time.perf_counter()
        timeout = timeout_s or self.settings.mcp_wait_timeout_s
        deadline = time.monotonic() + timeout
        await self.conn.start()
        partition, start = await self.conn.logged(memory_partition_end(self.conn.log, event.bank_id))
        await self.publish([event])
        outcome = await self._outcome(event, partition, start, deadline, timeout)
        if outcome.ready and isinstance(event, TurnRecorded):
            observe.OPERATION_SECONDS.labels(operation="retain_to_queryable").observe(time.perf_counter() - started)
        retained = (
            await self.conn.read(self.reader.memory_rows, event.bank_id, outcome.retained_ids) if outcome.ready else []
        )
        return Receipt(event, outcome.ready, retained, outcome.superseded_ids)

    async def _outcome(self, event: Event, partition: int, start: int, deadline: float, timeout: float) -> Outcome:
        """What the bank actor made of ``event``, read from its memory partition past ``start`` (``outcome``)."""
        return await self.conn.logged(
            await_outcome(self.conn.log, event.event_id, partition, start, deadline, self._projected),
            timeout + self.settings.request_timeout_s,
        )

    async def _projected(self, partition: int, last_offset: int) -> bool:
        def check() -> bool:
            hot = self.conn.lance().positions("memories").get((TOPIC_MEMORIES, partition), 0)
            cold = self.conn.archive().positions().get((TOPIC_MEMORIES, partition), 0)
            return hot > last_offset and cold > last_offset

        return await self.conn.read(check)


def _derived(turn: TurnRecorded) -> list[str]:
    """The ids the memories of ``turn`` would have (they derive from its event id)."""
    return [str(memory_ids.memory_id(turn.event_id, i)) for i in range(MAX_CANDIDATES)]


def _same_turn(turn: TurnRecorded, known: Sequence[MemoryView]) -> None:
    """Refuse a turn id retained before with other words: the log keeps the first (a turn id names one turn,
    and retaining it again changes nothing), so the new words would be dropped without a word. An agent that
    numbers its turns from 1 in every conversation of one session meets this."""
    episode = next((m for m in known if m.kind == "episode"), None)
    if episode is None or is_erased_text(episode.text) or episode.text.strip() == turn.text.strip():
        return
    raise ConflictError(
        f"turn {turn.turn_id!r} of session {turn.session_id!r} was retained before, saying {episode.text[:80]!r}: "
        "a turn id names one turn (retaining it again changes nothing); give this one a new turn_id"
    )
