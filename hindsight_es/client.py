"""Python client: publish turns and commands to either log, read the hot store and the archive.

    async with Hindsight(Settings()) as hs:
        await hs.record_turn("alice", "from now on use FedEx", session_id="s1")
        hits = await hs.recall("alice", "which carrier?")

Every read runs in a worker thread under ``settings.request_timeout_s`` and every kernel failure is a
``HindsightError`` (a store that fails or hangs is a ``StoreError``, a log that does a ``LogError``),
so callers such as the MCP gateway fail fast with a clear message and keep serving.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

from pydantic import ValidationError

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder, make_embedder
from hindsight_es.errors import HindsightError, InvalidInputError, LogError, LogUnavailableError, NotFoundError, StoreError
from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ForgetRequested,
    JanitorTick,
    PromoteRequested,
    RecallServed,
    RestoreRequested,
    RetentionPolicy,
    SessionEnded,
    TurnRecorded,
    encode,
)
from hindsight_es.log import EventLog, open_log
from hindsight_es.memory.decide import derive_id
from hindsight_es.outcome import Outcome, await_outcome, memory_partition_end
from hindsight_es.recall import RecallHit
from hindsight_es.recall.scoped import scoped_recall
from hindsight_es.recording import RecallRecorder
from hindsight_es.recall.context import ContextBlock, build_context, fit_hits
from hindsight_es.recall.models import MEMORY_COLUMNS, TURN_COLUMNS, MemoryView, TurnView
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.lance import POSITION_BANK, LanceStore, quote

T = TypeVar("T")
E = TypeVar("E", bound=Event)
_TURN_NS = uuid5(NAMESPACE_URL, "https://hindsight.local/turns")
AGENT_ID = re.compile(r"^[\w.:@\-]{1,128}$")
_MAX_CANDIDATES = 32  # derived memory ids probed for a turn decided before (extractors propose fewer)


def turn_event_id(bank_id: str, session_id: str, turn_id: str) -> UUID:
    """Stable id of a turn, so publishing the same turn twice is decided once."""
    return uuid5(_TURN_NS, f"{bank_id}/{session_id}/{turn_id}")


def check_text(settings: Settings, text: Any, what: str = "text") -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"{what} is empty")
    if len(text) > settings.max_text_chars:
        raise InvalidInputError(f"{what} of {len(text)} chars exceeds the limit of {settings.max_text_chars} "
                                "(HINDSIGHT_MAX_TEXT_CHARS)")
    return text


def build(cls: type[E], **fields: Any) -> E:
    """An event from caller input; a validation failure is an ``InvalidInputError`` naming the field."""
    try:
        return cls(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InvalidInputError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from exc


def make_turn(settings: Settings, bank_id: str, text: str, *, session_id: str = "default",
              turn_id: str | None = None, occurred_at: datetime | None = None, **fields: Any) -> TurnRecorded:
    """Validate and build a ``TurnRecorded``; raises ``InvalidInputError`` with the reason."""
    check_text(settings, text)
    turn_id = turn_id or str(uuid4())
    extra = {"occurred_at": occurred_at} if occurred_at is not None else {}
    return build(TurnRecorded, event_id=turn_event_id(bank_id, session_id, turn_id), bank_id=bank_id,
                 session_id=session_id, turn_id=turn_id, text=text, **extra, **fields)


def memory_uuid(value: str | UUID) -> UUID:
    try:
        return value if isinstance(value, UUID) else UUID(str(value))
    except ValueError as exc:
        raise InvalidInputError(f"{value!r} is not a memory id (a UUID, as recall returns it)") from exc


@dataclass(frozen=True, slots=True)
class Receipt:
    """An input that was published and, when the caller waited, what the bank actor made of it."""

    event: Event
    ready: bool | None  # None: not waited for; False: not decided and projected within the time-out
    retained: list[MemoryView] = field(default_factory=list)  # memories it retained, as they are now
    superseded: list[str] = field(default_factory=list)  # ids of memories it superseded


class Hindsight:
    """Client over the configured log (embedded or Kafka), the LanceDB hot store and the Parquet archive."""

    def __init__(self, settings: Settings, *, log: EventLog | None = None, embedder: Embedder | None = None) -> None:
        self._known_banks: set[str] = set()
        self.settings = settings
        self.log = log or open_log(settings)
        self._own_log = log is None
        self._log_started = log is not None  # a log passed in is started by its owner
        self._embedder = embedder
        self._store: LanceStore | None = None
        self._archive: ArchiveStore | None = None
        self.recorder = RecallRecorder(self.log, start=self.start, timeout_s=settings.request_timeout_s)

    async def __aenter__(self) -> Hindsight:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        """Start the log (again, after a failure: every write retries it)."""
        if self._log_started:
            return
        try:
            await asyncio.wait_for(self.log.start(), self.settings.request_timeout_s)
        except TimeoutError as exc:
            raise LogUnavailableError(f"the log did not start within {self.settings.request_timeout_s:g}s") from exc
        self._log_started = True

    async def close(self) -> None:
        await self.recorder.close()  # what recall served, before the log goes
        if self._own_log:
            await self.log.close()
            self._log_started = False

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedder)
        return self._embedder

    @property
    def store(self) -> LanceStore:
        """The current LanceDB store (reopened when a rebuild switches the data directory to a new one)."""
        path = self.settings.lance_path
        if self._store is None or self._store.path != path:
            self._store = LanceStore(path)
            self._store.upgrade()  # a store from an older release gains the columns recall filters on
        return self._store

    @property
    def archive(self) -> ArchiveStore:
        path = self.settings.archive_path
        if self._archive is None or self._archive.root != path:
            self._archive = ArchiveStore(path)
        return self._archive

    async def _logged(self, call: Awaitable[T], timeout_s: float | None = None) -> T:
        timeout = timeout_s or self.settings.request_timeout_s
        try:
            return await asyncio.wait_for(call, timeout)
        except TimeoutError as exc:
            raise LogError(f"the log did not answer within {timeout:g}s") from exc

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking store read in a thread, under the request time-out."""
        timeout = self.settings.request_timeout_s
        try:
            return await asyncio.wait_for(asyncio.to_thread(fn, *args), timeout)
        except HindsightError:
            raise
        except TimeoutError as exc:
            raise StoreError(f"the stores in {self.settings.data_dir} did not answer within {timeout:g}s "
                             "(HINDSIGHT_REQUEST_TIMEOUT_S)") from exc
        except Exception as exc:  # lancedb, duckdb, pyarrow, OS errors: the store failed this read
            raise StoreError(f"store read failed: {type(exc).__name__}: {exc}") from exc

    # ------------------------------------------------------------ writes

    async def publish(self, events: Sequence[Event]) -> None:
        """Append events to their topic, grouped per bank, in order."""
        await self.start()
        by_topic_bank: dict[tuple[str, str], list[bytes]] = defaultdict(list)
        for event in events:
            topic = TOPIC_TURNS if isinstance(event, TurnRecorded) else TOPIC_COMMANDS
            by_topic_bank[(topic, event.bank_id)].append(encode(event))
        try:
            for (topic, bank_id), values in by_topic_bank.items():
                await asyncio.wait_for(self.log.append(topic, bank_id, values), self.settings.request_timeout_s)
        except TimeoutError as exc:
            raise LogError(f"the log did not accept the write within {self.settings.request_timeout_s}s") from exc

    async def record_turn(self, bank_id: str, text: str, **fields: Any) -> TurnRecorded:
        turn = make_turn(self.settings, bank_id, text, **fields)
        await self.publish([turn])
        return turn

    async def send(self, command: Event) -> Event:
        await self.publish([command])
        return command

    async def retain(self, bank_id: str, text: str, *, wait: bool = False, timeout_s: float | None = None,
                     **fields: Any) -> Receipt:
        """Record a turn; with ``wait``, return once the memories it yields are queryable (or at the time-out)."""
        turn = make_turn(self.settings, bank_id, text, **fields)
        if not wait:
            await self.publish([turn])
            return Receipt(turn, None)
        ids = [str(derive_id(turn.event_id, f"memory/{i}")) for i in range(_MAX_CANDIDATES)]
        if known := await self._read(self._memory_rows, bank_id, ids):
            return Receipt(turn, True, known)  # the same turn (bank, session, turn id) was decided before
        return await self._publish_and_wait(turn, timeout_s)

    async def forget(self, bank_id: str, memory_id: str | UUID, *, reason: str = "", actor: str = "user",
                     wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Soft-delete one memory (it stays in the archive and in its history)."""
        current = await self.memory(bank_id, memory_id)
        if current.status in ("forgotten", "retracted"):
            raise InvalidInputError(f"memory {current.memory_id} is already {current.status}")
        command = build(ForgetRequested, bank_id=bank_id, memory_ids=(UUID(current.memory_id),), reason=reason,
                        actor=actor)
        return await self._publish_and_wait(command, timeout_s) if wait else await self._published(command)

    async def correct(self, bank_id: str, memory_id: str | UUID, text: str, *, reason: str = "",
                      actor: str = "user", wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Supersede an active memory by a corrected text; the old one stays in its history."""
        check_text(self.settings, text)
        current = await self.memory(bank_id, memory_id)
        if current.status != "active":
            newer = f" by {current.superseded_by}" if current.superseded_by else ""
            raise InvalidInputError(f"memory {current.memory_id} is {current.status}{newer}; only an active memory "
                                    "can be corrected")
        command = build(CorrectionRequested, bank_id=bank_id, memory_id=UUID(current.memory_id), text=text,
                        reason=reason, actor=actor)
        return await self._publish_and_wait(command, timeout_s) if wait else await self._published(command)

    async def submit(self, command: Event, *, wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Publish a command; with ``wait``, return once the bank actor's answer to it is queryable."""
        return await self._publish_and_wait(command, timeout_s) if wait else await self._published(command)

    # ------------------------------------------------------------ the forgetting lifecycle

    async def restore(self, bank_id: str, memory_id: str | UUID, *, reason: str = "", actor: str = "user",
                      wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Bring a memory back: archived (from the cold archive, with its history), forgotten, superseded or
        retracted; it becomes active again and supersedes the current holder of its key."""
        current = await self.memory(bank_id, memory_id)
        if current.status == "active":
            raise InvalidInputError(f"memory {current.memory_id} is active already")
        command = build(RestoreRequested, bank_id=bank_id, memory_ids=(UUID(current.memory_id),), reason=reason,
                        actor=actor)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def forget_where(self, bank_id: str, *, memory_ids: Sequence[str | UUID] = (), session_id: str | None = None,
                           since: datetime | None = None, until: datetime | None = None, reason: str = "",
                           actor: str = "user", wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Soft-forget the listed memories and those of a session and/or retained in [since, until) (ANDed)."""
        if not (memory_ids or session_id or since or until):
            raise InvalidInputError("name memories, a session or a time range to forget")
        if since is not None and until is not None and since >= until:
            raise InvalidInputError(f"since ({since.isoformat()}) must be before until ({until.isoformat()})")
        command = build(ForgetRequested, bank_id=bank_id, memory_ids=tuple(memory_uuid(m) for m in memory_ids),
                        session_id=session_id, since=since, until=until, reason=reason, actor=actor)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def end_session(self, bank_id: str, session_id: str, *, reason: str = "", actor: str = "user",
                          wait: bool = False, timeout_s: float | None = None) -> Receipt:
        """The session is over: its session-scoped memories expire (are archived) unless promoted."""
        command = build(SessionEnded, bank_id=bank_id, session_id=session_id, reason=reason, actor=actor)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def promote(self, bank_id: str, memory_ids: Sequence[str | UUID], *, scope: str = "global", reason: str = "",
                      actor: str = "user", wait: bool = True, timeout_s: float | None = None) -> Receipt:
        """Widen the scope of memories (a session-scoped one outlives its session); an expired one comes back."""
        command = build(PromoteRequested, bank_id=bank_id, memory_ids=tuple(memory_uuid(m) for m in memory_ids),
                        scope=scope, reason=reason, actor=actor)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def janitor_tick(self, bank_id: str, policy: RetentionPolicy, *, occurred_at: datetime | None = None,
                           reason: str = "manual", wait: bool = False, timeout_s: float | None = None) -> Receipt:
        """Ask the bank actor to archive what has faded now (or at ``occurred_at``) under ``policy``."""
        when = {"occurred_at": occurred_at} if occurred_at is not None else {}
        command = build(JanitorTick, bank_id=bank_id, policy=policy, reason=reason, actor="janitor", **when)
        return await self.submit(command, wait=wait, timeout_s=timeout_s)

    async def _published(self, event: Event) -> Receipt:
        await self.publish([event])
        return Receipt(event, None)

    async def _publish_and_wait(self, event: Event, timeout_s: float | None) -> Receipt:
        timeout = timeout_s or self.settings.mcp_wait_timeout_s
        deadline = time.monotonic() + timeout
        partition, start = await self._logged(memory_partition_end(self.log, event.bank_id))
        await self.publish([event])
        outcome: Outcome = await self._logged(
            await_outcome(self.log, event.event_id, partition, start, deadline, self._projected),
            timeout + self.settings.request_timeout_s)
        retained = await self._read(self._memory_rows, event.bank_id, outcome.retained_ids) if outcome.ready else []
        return Receipt(event, outcome.ready, retained, outcome.superseded_ids)

    async def _projected(self, partition: int, last_offset: int) -> bool:
        def check() -> bool:
            hot = self.store.positions("memories").get((TOPIC_MEMORIES, partition), 0)
            cold = self.archive.positions().get((TOPIC_MEMORIES, partition), 0)
            return hot > last_offset and cold > last_offset

        return await self._read(check)

    # ------------------------------------------------------------ reads

    def _banks(self) -> list[str]:
        found: set[str] = set()
        for name in ("memories", "turns"):
            table = self.store.scan(name, f"bank_id != {quote(POSITION_BANK)}", ["bank_id"])
            if table.num_rows:
                found.update(table.column("bank_id").to_pylist())
        return sorted(found)

    def banks(self) -> list[str]:
        return self._banks()

    async def list_banks(self) -> list[str]:
        return await self._read(self._banks)

    def _has_bank(self, bank_id: str) -> bool:
        where = f"bank_id = {quote(bank_id)}"
        return any(self.store.scan(n, where, ["bank_id"], limit=1).num_rows for n in ("memories", "turns"))

    def require_bank(self, bank_id: str) -> None:
        if bank_id in self._known_banks:
            return  # banks are never deleted: once seen, no need to look again
        if self._has_bank(bank_id):
            self._known_banks.add(bank_id)
        else:
            raise NotFoundError(f"unknown bank {bank_id!r}: nothing has been recorded in it yet")

    async def recall(self, bank_id: str, query: str, *, limit: int = 10, max_tokens: int | None = None,
                     agent: str | None = None, include_shared: bool = False, include_archived: bool = False,
                     **filters: Any) -> list[RecallHit]:
        """Active memories of a bank for ``query``, best first; at most ``limit``, and ``max_tokens`` if given.

        ``agent`` sees its own private memories and unowned ones (no agent: only unowned ones), never
        another agent's; ``include_shared`` adds the shared banks of ``Settings.shared_banks``;
        ``include_archived`` adds archived memories from the cold archive (and, with
        ``Settings.restore_on_recall``, those served come back). What is served is recorded (``RecallServed``).
        """
        if not query.strip():
            raise InvalidInputError("query is empty")
        if agent is not None and not AGENT_ID.match(agent):
            raise InvalidInputError(f"agent {agent!r} is not an agent id (letters, digits and . : @ - _)")
        scope = {"agent": agent, "include_shared": include_shared, "include_archived": include_archived}
        hits = await self._read(self._recall, bank_id, query, limit, scope | filters)
        hits = fit_hits(hits, max_tokens) if max_tokens is not None else hits
        self._served(bank_id, hits, "recall", agent)
        return hits

    def _recall(self, bank_id: str, query: str, limit: int, filters: dict[str, Any]) -> list[RecallHit]:
        self.require_bank(bank_id)
        return self._scoped(bank_id, query, limit, **filters)

    def _scoped(self, bank_id: str, query: str, limit: int, *, agent: str | None = None, include_shared: bool = False,
                include_archived: bool = False, **filters: Any) -> list[RecallHit]:
        shared = self.settings.shared_banks.get(bank_id, []) if include_shared else []
        return scoped_recall(self.store, self.archive if include_archived else None, self.embedder, bank_id, query,
                             limit=limit, agent=agent, shared=shared, weights=self.settings.recall_weights, **filters)

    def _served(self, bank_id: str, hits: Sequence[RecallHit], via: str, agent: str | None) -> None:
        """Record what was served, per bank, without waiting (``recording``)."""
        if not self.settings.record_recalls or not hits:
            return
        by_bank: dict[str, list[RecallHit]] = defaultdict(list)
        for hit in hits:
            by_bank[hit.bank_id or bank_id].append(hit)
        for bank, served in by_bank.items():
            archived = [UUID(h.memory_id) for h in served if h.status == "archived"]
            restore = archived if self.settings.restore_on_recall else []
            ids = tuple(UUID(h.memory_id) for h in served)[:500]
            self.recorder.record(RecallServed(bank_id=bank, memory_ids=ids, restore_ids=tuple(restore), via=via,
                                              agent=agent))

    def _memory_rows(self, bank_id: str, memory_ids: Sequence[str]) -> list[MemoryView]:
        if not memory_ids:
            return []
        where = f"bank_id = {quote(bank_id)} AND memory_id IN ({', '.join(quote(m) for m in memory_ids)})"
        rows = {r["memory_id"]: r for r in self.store.scan("memories", where, MEMORY_COLUMNS, len(memory_ids)).to_pylist()}
        return [MemoryView(**rows[m]) for m in memory_ids if m in rows]

    async def memory(self, bank_id: str, memory_id: str | UUID) -> MemoryView:
        """One memory of a bank, whatever its status: from the hot store, or from the archive when archived."""
        mid = str(memory_uuid(memory_id))
        rows = await self._read(self._memory_rows, bank_id, [mid])
        if not rows:
            rows = await self._read(self._cold_memory, bank_id, mid)
        if not rows:
            raise NotFoundError(f"no memory {mid} in bank {bank_id!r}")
        return rows[0]

    def _cold_memory(self, bank_id: str, memory_id: str) -> list[MemoryView]:
        cold = {r["memory_id"]: r["status"] for r in self.archive.cold_memories(bank_id)}
        if memory_id not in cold:
            return []
        retained = self.archive.lineage(bank_id, memory_id)["retained"] or {}
        fields = {k: retained[k] for k in MEMORY_COLUMNS if k in retained}
        return [MemoryView(**fields | {"status": cold[memory_id], "valid_to": None})] if retained else []

    async def history(self, bank_id: str, memory_id: str | UUID) -> dict[str, Any]:
        """A memory's lineage from the archive: source turns, its events, what it superseded and what superseded it."""
        mid = memory_uuid(memory_id)
        lineage = await self._read(self.archive.lineage, bank_id, mid)
        if lineage["retained"] is None:
            raise NotFoundError(f"no memory {mid} in bank {bank_id!r} (or it is not archived yet)")
        return lineage

    def _working_memory(self, bank_id: str, session_id: str, limit: int) -> list[TurnView]:
        where = f"bank_id = {quote(bank_id)} AND session_id = {quote(session_id)}"
        rows = self.store.scan("turns", where, [*TURN_COLUMNS, "offset"]).to_pylist()
        rows.sort(key=lambda r: (r["occurred_at"], r["offset"]))
        return [TurnView(**{c: r[c] for c in TURN_COLUMNS}) for r in rows[-limit:]] if limit > 0 else []

    async def working_memory(self, bank_id: str, session_id: str, limit: int | None = None) -> list[TurnView]:
        """The session's most recent turns, oldest first."""
        return await self._read(self._working_memory, bank_id, session_id,
                                self.settings.working_memory_turns if limit is None else limit)

    async def context(self, bank_id: str, session_id: str, message: str, *, budget_tokens: int = 1500,
                      memory_limit: int = 20, turn_limit: int | None = None, agent: str | None = None,
                      include_shared: bool = False) -> ContextBlock:
        """Working memory plus the memories relevant to ``message``, as one block (empty for a new bank);
        ``agent`` and ``include_shared`` as for ``recall``."""
        if agent is not None and not AGENT_ID.match(agent):
            raise InvalidInputError(f"agent {agent!r} is not an agent id (letters, digits and . : @ - _)")
        turns_n = self.settings.working_memory_turns if turn_limit is None else turn_limit
        hits: list[RecallHit] = []

        def assemble() -> ContextBlock:
            if not self._has_bank(bank_id):
                return build_context(bank_id, session_id, message, [], [], budget_tokens)
            turns = self._working_memory(bank_id, session_id, turns_n)
            if message.strip():
                hits.extend(self._scoped(bank_id, message, memory_limit, agent=agent, include_shared=include_shared))
            return build_context(bank_id, session_id, message, turns, hits, budget_tokens)

        block = await self._read(assemble)
        self._served(bank_id, [h for h in hits if h.memory_id in set(block.memory_ids)], "context", agent)
        return block

    async def bank_stats(self, bank_id: str) -> dict[str, Any]:
        """Memory counts by status, active memories by kind, turns and sessions of one bank."""

        def collect() -> dict[str, Any]:
            self.require_bank(bank_id)
            where = f"bank_id = {quote(bank_id)}"
            memories = self.store.scan("memories", where, ["status", "kind"]).to_pylist()
            turns = self.store.scan("turns", where, ["session_id", "occurred_at"]).to_pylist()
            times = [t["occurred_at"] for t in turns]
            cold = self.archive.cold_memories(bank_id)
            return {
                "bank_id": bank_id,
                "memories": dict(sorted((Counter(m["status"] for m in memories)
                                         + Counter(c["status"] for c in cold)).items())),
                "hot": len(memories), "cold": len(cold),
                "active_by_kind": dict(sorted(Counter(m["kind"] for m in memories if m["status"] == "active").items())),
                "turns": len(turns), "sessions": len({t["session_id"] for t in turns}),
                "first_turn_at": min(times, default=None), "last_turn_at": max(times, default=None),
            }

        return await self._read(collect)
