"""Recording what recall serves, off the read path: ``RecallServed`` events, batched, fire-and-forget.

Recall never waits for the log: ``record`` queues an event and returns; a background task appends the
queue to ``hindsight.commands`` every ``flush_s`` (one append per bank). A failed append is logged and
its events dropped (recall counts feed retention scores, they are not the truth of any memory), and
at most ``max_pending`` events wait (the oldest are dropped beyond). ``close`` flushes what is left.

Why ``hindsight.commands``: a served recall is an input to the bank's decisions (recall counts and
last-recall times in the retention score, bringing back an archived memory that was used), so it goes
where the bank actor reads its inputs, keyed by bank, ordered with the forgets and restores of that
bank; the actor records its effect as ``MemoriesRecalled`` on the memory topic, so the counts are part
of the state folded from the memory log, and the archive keeps every RecallServed for audit.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable

from hindsight_es.config import TOPIC_COMMANDS
from hindsight_es.events import RecallServed, encode
from hindsight_es.log import EventLog

log_ = logging.getLogger("hindsight.recording")


class RecallRecorder:
    def __init__(
        self,
        log: EventLog,
        *,
        start: Callable[[], Awaitable[None]] | None = None,
        flush_s: float = 0.5,
        max_pending: int = 10_000,
        timeout_s: float = 10.0,
    ) -> None:
        self.log, self.flush_s, self.max_pending, self.timeout_s = log, flush_s, max_pending, timeout_s
        self.start = start  # starts the log (idempotent) before the first append
        self.pending: list[RecallServed] = []
        self.dropped = 0
        self._task: asyncio.Task[None] | None = None

    def record(self, event: RecallServed) -> None:
        """Queue one event; never blocks and never raises."""
        self.pending.append(event)
        if len(self.pending) > self.max_pending:
            self.dropped += len(self.pending) - self.max_pending
            del self.pending[: len(self.pending) - self.max_pending]
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the next record or close flushes
                self._task = asyncio.get_running_loop().create_task(self._later(), name="recall-recorder")

    async def _later(self) -> None:
        await asyncio.sleep(self.flush_s)
        await self.flush()

    async def flush(self) -> int:
        """Append everything queued; returns how many events were appended."""
        batch, self.pending = self.pending, []
        by_bank: dict[str, list[bytes]] = defaultdict(list)
        for event in batch:
            by_bank[event.bank_id].append(encode(event))
        written = 0
        for bank_id, values in by_bank.items():
            try:
                if self.start is not None:
                    await self.start()
                await asyncio.wait_for(self.log.append(TOPIC_COMMANDS, bank_id, values), self.timeout_s)
                written += len(values)
            except Exception as exc:
                self.dropped += len(values)
                log_.warning(
                    "could not record %d served recalls of bank %s: %r",
                    len(values),
                    bank_id,
                    exc,
                    extra={"bank": bank_id, "dropped": len(values)},
                )
        return written

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.pending:
            await self.flush()
