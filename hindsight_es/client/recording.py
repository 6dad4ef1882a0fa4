"""Recording what recall serves, off the read path: per bank, summed per memory, one event per interval.

Recall never waits for the log: ``served`` adds to the bank's tally (memory -> recalls, last recalled
at) and returns; a background task appends each bank's tally to ``hindsight.commands`` as one
``RecallsTallied`` every ``flush_s`` (60 s by default, ``HINDSIGHT_RECALL_TALLY_S``), so what reads
write to the log grows with banks x intervals, not with recalls. ``close`` (a clean shutdown) flushes
what is left. Recall use is advisory: a crash loses at most one interval of counts, and a failed
append is logged and its tally dropped (recall counts feed retention scores, they are not the truth of
any memory).

Bounded: a tally holds at most ``max_memories`` distinct memories in memory (memories first served
once it is full are not counted) and an event carries the ``MAX_TALLIED`` most recalled of them (ties:
the most recently recalled); ``dropped`` counts, in the event and here, the memories left out (up to
``max_memories`` of those never counted: beyond, a lower bound).

Why ``hindsight.commands``: a served recall is an input to the bank's decisions (recall counts and
last-recall times in the retention score, bringing back an archived memory that was used), so it goes
where the bank actor reads its inputs, keyed by bank, ordered with the forgets and restores of that
bank; the actor records its effect as ``RecallsCounted`` on the memory topic, so the counts are part
of the state folded from the memory log. Logs written before tallies hold a ``RecallServed`` per
recall; the actor still decides those (``memory.forgetting``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from hindsight_es.config import TOPIC_COMMANDS
from hindsight_es.events import RecallsTallied, RecallUse, encode, utcnow
from hindsight_es.events.inputs import MAX_TALLIED
from hindsight_es.log import EventLog
from hindsight_es.text import plural

log_ = logging.getLogger("hindsight.recording")


@dataclass
class Tally:
    """One bank's recall use since ``since``: per memory, how often served and when last."""

    since: datetime
    recalls: int = 0
    counts: dict[UUID, int] = field(default_factory=dict)
    last_at: dict[UUID, datetime] = field(default_factory=dict)
    restore: dict[UUID, None] = field(default_factory=dict)  # insertion-ordered set
    dropped: set[UUID] = field(default_factory=set)

    def add(
        self, memory_ids: Iterable[UUID], at: datetime, restore_ids: Iterable[UUID] = (), *, max_memories: int = 10_000
    ) -> None:
        """Count one recall at ``at`` that served ``memory_ids``."""
        self.recalls += 1
        for memory_id in dict.fromkeys(memory_ids):
            if memory_id not in self.counts and len(self.counts) >= max_memories:
                if len(self.dropped) < max_memories:  # the count of what is left out is bounded too
                    self.dropped.add(memory_id)
                continue
            self.counts[memory_id] = self.counts.get(memory_id, 0) + 1
            if (last := self.last_at.get(memory_id)) is None or at > last:
                self.last_at[memory_id] = at
        for memory_id in restore_ids:
            if len(self.restore) < MAX_TALLIED:
                self.restore[memory_id] = None

    def event(self, bank_id: str, at: datetime) -> RecallsTallied:
        """The tally as one bounded event: the ``MAX_TALLIED`` most recalled memories."""
        ranked = sorted(self.counts, key=lambda m: (-self.counts[m], -self.last_at[m].timestamp(), str(m)))
        kept = ranked[:MAX_TALLIED]
        return RecallsTallied(
            bank_id=bank_id,
            occurred_at=max(at, self.since),
            since=self.since,
            recalls=self.recalls,
            uses=tuple(RecallUse(memory_id=m, count=self.counts[m], last_at=self.last_at[m]) for m in kept),
            restore_ids=tuple(self.restore)[:MAX_TALLIED],
            dropped=len(ranked) - len(kept) + len(self.dropped),
        )


class RecallRecorder:
    def __init__(
        self,
        log: EventLog,
        *,
        start: Callable[[], Awaitable[None]] | None = None,
        flush_s: float = 60.0,
        max_memories: int = 10_000,
        timeout_s: float = 10.0,
    ) -> None:
        self.log, self.flush_s, self.max_memories, self.timeout_s = log, flush_s, max_memories, timeout_s
        self.start = start  # starts the log (idempotent) before the first append
        self.tallies: dict[str, Tally] = {}
        self.dropped = 0  # memory counts left out of, or lost with, a tally
        self._task: asyncio.Task[None] | None = None

    def served(
        self, bank_id: str, memory_ids: Iterable[UUID], restore_ids: Iterable[UUID] = (), at: datetime | None = None
    ) -> None:
        """Count one recall that served ``memory_ids`` from ``bank_id``; never blocks and never raises."""
        at = at or utcnow()
        tally = self.tallies.get(bank_id)
        if tally is None:
            tally = self.tallies[bank_id] = Tally(since=at)
        tally.add(memory_ids, at, restore_ids, max_memories=self.max_memories)
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the next call or close flushes
                self._task = asyncio.get_running_loop().create_task(self._later(), name="recall-recorder")

    async def _later(self) -> None:
        await asyncio.sleep(self.flush_s)
        await self.flush()

    async def flush(self) -> int:
        """Append each bank's tally as one event; returns how many events were appended."""
        tallies, self.tallies = self.tallies, {}
        at = utcnow()
        written = 0
        for bank_id, tally in tallies.items():
            if not tally.counts:
                self.dropped += len(tally.dropped)
                continue
            event = tally.event(bank_id, at)
            self.dropped += event.dropped
            try:
                if self.start is not None:
                    await self.start()
                await asyncio.wait_for(self.log.append(TOPIC_COMMANDS, bank_id, [encode(event)]), self.timeout_s)
                written += 1
            except Exception as exc:
                self.dropped += len(event.uses)
                log_.warning(
                    "could not record the recalls of bank %s (%s): %r",
                    bank_id,
                    plural(len(event.uses), "memory", "memories"),
                    exc,
                    extra={"bank": bank_id, "dropped": len(event.uses)},
                )
        return written

    def discard(self) -> int:
        """Drop the tallies not appended yet (a log that cannot be reached); returns how many memories' counts
        were dropped. The caller says so: nothing is logged here."""
        tallies, self.tallies = self.tallies, {}
        dropped = sum(len(t.counts) for t in tallies.values())
        self.dropped += dropped
        return dropped

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.tallies:
            await self.flush()
