"""The read side of the client: recall, context, a memory and its history, working memory, stats.

Reads the current generation's stores (never the log, but for stats' log ends); what recall and
context serve is recorded off the read path (``recording``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, TypedDict
from uuid import UUID

from hindsight_es import observe
from hindsight_es.client.connection import Connection
from hindsight_es.client.inputs import check_agent, memory_uuid, turn_event_id
from hindsight_es.client.recording import RecallRecorder
from hindsight_es.client.rows import SCORE_COLUMNS, MemoryRow
from hindsight_es.client.tallies import store_counts
from hindsight_es.config import ALL_TOPICS
from hindsight_es.errors import ErasedError, InvalidInputError, NotFoundError
from hindsight_es.memory.episodes import repeated
from hindsight_es.recall.context import ContextBlock, build_context, fit_hits
from hindsight_es.recall.mentions import warm as warm_names
from hindsight_es.recall.models import MEMORY_COLUMNS, TURN_COLUMNS, Dispute, MemoryView, RecallHit, TurnView
from hindsight_es.recall.relevance import check_min_relevance
from hindsight_es.recall.rowcache import fill_in_background
from hindsight_es.recall.scoped import scoped_recall
from hindsight_es.recall.search import warm
from hindsight_es.stores.filters import MemoryFilter, TurnFilter
from hindsight_es.stores.lance import LanceStore
from hindsight_es.text import flattened

Via = str  # "recall" | "context"


class _Scope(TypedDict):
    agent: str | None
    include_shared: bool
    include_archived: bool


class Reader:
    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.settings = conn.settings
        self.recorder = RecallRecorder(
            conn.log, start=conn.start, flush_s=conn.settings.recall_tally_s, timeout_s=conn.settings.request_timeout_s
        )
        self._known_banks: set[str] = set()

    async def close(self) -> None:
        await self.recorder.close()  # what recall served, before the log goes

    # ------------------------------------------------------------ banks

    async def list_banks(self) -> list[str]:
        """Every bank with a memory or a turn in the hot store, or with an erasure (all it held may be erased)."""
        return await self.conn.read(lambda: sorted({*self.conn.lance().banks(), *self.conn.archive().erased_counts()}))

    def require_bank(self, bank_id: str) -> None:
        """Raise ``NotFoundError`` for a bank with nothing recorded (blocking: call from a thread). A bank whose
        every memory and turn was erased is known: the archive keeps its erasure (its reads answer empty)."""
        if bank_id in self._known_banks:
            return  # banks are never deleted: once seen, no need to look again
        if self.conn.lance().has_bank(bank_id) or self.conn.archive().erased_counts(bank_id):
            self._known_banks.add(bank_id)
        else:
            raise NotFoundError(
                f"unknown bank {bank_id!r}: nothing has been recorded in it yet (or not indexed yet: the "
                "service, `hindsight-es up`, indexes what is published)"
            )

    async def warm(self) -> None:
        """Open the hot store and load its indexes now (``recall.search.warm``), so the first recall after a
        start answers in its usual time, and start reading its active memories into the row and term caches in the
        background (``rowcache.fill_in_background``); a sharded store is left to its first recalls. The
        tables that read names (jieba's, pypinyin's) load here too (``recall.mentions.warm``)."""
        embedder = self.conn.embedder()

        def run() -> None:
            lance = self.conn.lance()
            if isinstance(lance, LanceStore):
                warm(lance, embedder, self.settings.prewarm_mb * 2**20)
                fill_in_background(lance)
            warm_names()

        await self.conn.read(run)

    # ------------------------------------------------------------ recall and context

    async def recall(
        self,
        bank_id: str,
        query: str,
        *,
        limit: int = 10,
        max_tokens: int | None = None,
        agent: str | None = None,
        include_shared: bool = False,
        include_archived: bool = False,
        min_relevance: float | None = None,
        record: bool = True,
        **filters: Any,
    ) -> list[RecallHit]:
        """Active memories of a bank for ``query``, best first; at most ``limit``, and ``max_tokens`` if given.

        ``agent`` sees its own private memories and unowned ones (no agent: only unowned ones), never
        another agent's; ``include_shared`` adds the shared banks of ``Settings.shared_banks``;
        ``include_archived`` adds archived memories from the cold archive (and, with
        ``Settings.restore_on_recall``, those served come back). ``trusted_only`` keeps the owner's word and
        what the owner confirmed. Each hit carries its provenance, its open disputes and its calibrated
        ``relevance``; when no hit reaches ``min_relevance`` (default ``Settings.min_relevance``) there are
        none. What is served is counted (``RecallsTallied``), unless ``record`` is false: a person looking
        (the dashboard), not an agent using the memory, which must leave retention as it is.
        """
        if not query.strip():
            raise InvalidInputError("query is empty")
        query = flattened(query)  # read and embedded with each run of white space as one (``text.flattened``)
        check_agent(agent)
        filters["min_relevance"] = self._min_relevance(min_relevance)
        scope: _Scope = {"agent": agent, "include_shared": include_shared, "include_archived": include_archived}

        def run() -> list[RecallHit]:
            self.require_bank(bank_id)
            return self._with_disputes(bank_id, self._scoped(bank_id, query, limit, **scope, **filters))

        with observe.operation("recall", **{"hindsight.bank": bank_id}) as span:
            hits = await self.conn.read(run)
            hits = fit_hits(hits, max_tokens) if max_tokens is not None else hits
            span.set_attribute("hindsight.hits", len(hits))
            origins = [
                turn_event_id(h.bank_id or bank_id, h.session_id or "default", t)
                for h in hits
                for t in h.source_turn_ids
            ]
            observe.link_origins(span, origins)
        if record:
            self._served(bank_id, hits, "recall", agent)
        return hits

    def _min_relevance(self, value: float | None) -> float:
        checked = check_min_relevance(value)
        return self.settings.min_relevance if checked is None else checked

    def _scoped(
        self,
        bank_id: str,
        query: str,
        limit: int,
        *,
        agent: str | None = None,
        include_shared: bool = False,
        include_archived: bool = False,
        **filters: Any,
    ) -> list[RecallHit]:
        stores = self.conn.stores()
        shared = self.settings.shared_banks.get(bank_id, []) if include_shared else []
        return scoped_recall(
            stores.lance,
            stores.archive if include_archived else None,
            self.conn.embedder(),
            bank_id,
            query,
            limit=limit,
            agent=agent,
            shared=shared,
            weights=self.settings.recall_weights,
            **filters,
        )

    def _with_disputes(self, bank_id: str, hits: list[RecallHit]) -> list[RecallHit]:
        """Each hit with the memories that dispute it and are still disputed (a resolved or retracted one
        drops out), read from the hot store (blocking: call from a thread). One per thing said: a disputing
        turn's episode is left out when its typed memories say all it says (``episodes.repeated``)."""
        wanted = sorted({d for h in hits for d in h.disputed_by})
        if not wanted:
            return hits
        where = MemoryFilter(bank_id, statuses=("disputed",), memory_ids=wanted)
        found = self.conn.lance().scan("memories", where, [*MEMORY_COLUMNS, "quote"], len(wanted)).to_pylist()
        said = repeated(found)  # the episodes shown as their typed memory
        rows = {r["memory_id"]: MemoryView(**r) for r in found if r["memory_id"] not in said}
        out = []
        for hit in hits:
            found = [rows[d] for d in hit.disputed_by if d in rows]
            notes = [Dispute(memory_id=r.memory_id, provenance=r.provenance, text=r.text) for r in found]
            out.append(hit.model_copy(update={"disputes": notes}) if notes else hit)
        return out

    async def context(
        self,
        bank_id: str,
        session_id: str,
        message: str,
        *,
        budget_tokens: int = 1500,
        memory_limit: int = 20,
        turn_limit: int | None = None,
        agent: str | None = None,
        include_shared: bool = False,
        trusted_only: bool = False,
        min_relevance: float | None = None,
    ) -> ContextBlock:
        """Working memory plus the memories relevant to ``message``, as one block (empty for a new bank);
        ``agent``, ``include_shared``, ``trusted_only`` and ``min_relevance`` as for ``recall`` (a message
        nothing remembered answers gets the recent turns alone). Unverified memories (not the owner's
        word) get their own labelled section."""
        check_agent(agent)
        floor = self._min_relevance(min_relevance)
        turns_n = self.settings.working_memory_turns if turn_limit is None else turn_limit
        hits: list[RecallHit] = []

        def assemble() -> ContextBlock:
            # Not NotFoundError, unlike every other read of an unknown bank: an agent asks for context before
            # its first turn is retained, and a new bank's context is simply empty.
            if not self.conn.lance().has_bank(bank_id):
                return build_context(bank_id, session_id, message, [], [], budget_tokens)
            turns = self._working_memory(bank_id, session_id, turns_n)
            if message.strip():
                found = self._scoped(
                    bank_id,
                    message,
                    memory_limit,
                    agent=agent,
                    include_shared=include_shared,
                    trusted_only=trusted_only,
                    min_relevance=0.0,  # the floor is the block's: decided on the memories it shows (below)
                )
                hits.extend(self._with_disputes(bank_id, found))
            return build_context(bank_id, session_id, message, turns, hits, budget_tokens, min_relevance=floor)

        with observe.operation("context", **{"hindsight.bank": bank_id}):
            block = await self.conn.read(assemble)
        self._served(bank_id, [h for h in hits if h.memory_id in set(block.memory_ids)], "context", agent)
        return block

    def _served(self, bank_id: str, hits: Sequence[RecallHit], via: Via, agent: str | None) -> None:
        """Count what was served, per bank, without waiting (``recording``: one event per bank and
        interval). ``via`` and ``agent`` are not recorded: a tally sums every caller's recalls."""
        if not self.settings.record_recalls or not hits:
            return
        by_bank: dict[str, list[RecallHit]] = defaultdict(list)
        for hit in hits:
            by_bank[hit.bank_id or bank_id].append(hit)
        for bank, served in by_bank.items():
            # An archived memory served comes back when it is itself relevant: the tail of an answer whose best
            # hit reached the floor (a greeting at relevance 0.09) is served, not used.
            bar = self.settings.min_relevance
            archived = [UUID(h.memory_id) for h in served if h.status == "archived" and h.relevance >= bar]
            restore = archived if self.settings.restore_on_recall else []
            self.recorder.served(bank, [UUID(h.memory_id) for h in served], restore)

    # ------------------------------------------------------------ one memory

    def memory_rows(self, bank_id: str, memory_ids: Sequence[str]) -> list[MemoryView]:
        """The hot rows of these memories with their scores (``MemoryRow``), in the order asked (blocking: call
        from a thread)."""
        if not memory_ids:
            return []
        where = MemoryFilter(bank_id, statuses=None, memory_ids=memory_ids)
        table = self.conn.lance().scan("memories", where, [*MEMORY_COLUMNS, *SCORE_COLUMNS], len(memory_ids))
        rows = {r["memory_id"]: r for r in table.to_pylist()}
        return [MemoryRow(**rows[m]) for m in memory_ids if m in rows]

    async def browse(
        self,
        bank_id: str,
        *,
        statuses: Sequence[str] | None = None,
        kinds: Sequence[str] | None = None,
        limit: int = 10_000,
    ) -> list[MemoryView]:
        """The hot memories of a bank (any status unless ``statuses``), oldest first."""

        def collect() -> list[MemoryView]:
            where = MemoryFilter(bank_id, statuses=statuses, kinds=kinds)
            rows = self.conn.lance().scan("memories", where, MEMORY_COLUMNS).to_pylist()
            rows.sort(key=lambda r: (r["valid_from"], r["memory_id"]))
            return [MemoryView(**r) for r in rows[:limit]]

        return await self.conn.read(collect)

    async def memory(self, bank_id: str, memory_id: str | UUID) -> MemoryView:
        """One memory of a bank, whatever its status: from the hot store, or from the archive when archived."""
        mid = str(memory_uuid(memory_id))
        rows = await self.conn.read(self.memory_rows, bank_id, [mid])
        if not rows:
            rows = await self.conn.read(self._cold_memory, bank_id, mid)
        if not rows:
            if (erased := await self.conn.read(self._erasure, bank_id, mid)) is not None:  # its row was dropped
                raise ErasedError(
                    f"memory {mid} was erased by {erased['actor']} at {erased['occurred_at']}: its content is "
                    "destroyed, so it cannot be restored or corrected"
                )
            raise NotFoundError(f"no memory {mid} in bank {bank_id!r}")
        return rows[0]

    def _erasure(self, bank_id: str, memory_id: str) -> dict[str, Any] | None:
        """The ``ContentErased`` in a memory's history, if it was erased."""
        events = self.conn.archive().lineage(bank_id, memory_id)["events"]
        return next((e for e in events if e["type"] == "ContentErased"), None)

    def _cold_memory(self, bank_id: str, memory_id: str) -> list[MemoryView]:
        archive = self.conn.archive()
        cold = {r["memory_id"]: r["status"] for r in archive.cold_memories(bank_id)}
        if memory_id not in cold:
            return []
        retained = archive.lineage(bank_id, memory_id)["retained"] or {}
        fields = {k: retained[k] for k in (*MEMORY_COLUMNS, *SCORE_COLUMNS) if k in retained}
        return [MemoryRow(**fields | {"status": cold[memory_id], "valid_to": None})] if retained else []

    async def history(self, bank_id: str, memory_id: str | UUID) -> dict[str, Any]:
        """A memory's lineage from the archive: source turns, its events, what it superseded and what superseded it."""
        mid = memory_uuid(memory_id)
        lineage: dict[str, Any] = await self.conn.read(lambda: self.conn.archive().lineage(bank_id, mid))
        if lineage["retained"] is None:
            raise NotFoundError(f"no memory {mid} in bank {bank_id!r} (or it is not archived yet)")
        return lineage

    # ------------------------------------------------------------ working memory and stats

    def _working_memory(self, bank_id: str, session_id: str, limit: int) -> list[TurnView]:
        table = self.conn.lance().scan("turns", TurnFilter(bank_id, session_id), [*TURN_COLUMNS, "offset"])
        rows = table.to_pylist()
        rows.sort(key=lambda r: (r["occurred_at"], r["offset"]))
        return [TurnView(**{c: r[c] for c in TURN_COLUMNS}) for r in rows[-limit:]] if limit > 0 else []

    async def working_memory(self, bank_id: str, session_id: str, limit: int | None = None) -> list[TurnView]:
        """The session's most recent turns, oldest first."""
        return await self.conn.read(
            self._working_memory, bank_id, session_id, self.settings.working_memory_turns if limit is None else limit
        )

    async def bank_stats(self, bank_id: str) -> dict[str, Any]:
        """Memory counts by status, active memories by kind, turns and sessions of one bank."""

        def collect() -> dict[str, Any]:
            self.require_bank(bank_id)
            stores = self.conn.stores()
            memories = stores.lance.scan(
                "memories", MemoryFilter(bank_id, statuses=None), ["status", "kind"]
            ).to_pylist()
            turns = stores.lance.scan("turns", TurnFilter(bank_id), ["session_id", "occurred_at"]).to_pylist()
            times = [t["occurred_at"] for t in turns]
            cold = stores.archive.cold_memories(bank_id)
            erased = Counter({"erased": stores.archive.erased_counts(bank_id).get(bank_id, 0)})
            return {
                "bank_id": bank_id,
                "memories": dict(
                    sorted(
                        (Counter(m["status"] for m in memories) + Counter(c["status"] for c in cold) + erased).items()
                    )
                ),
                "hot": len(memories),
                "cold": len(cold),
                "active_by_kind": dict(sorted(Counter(m["kind"] for m in memories if m["status"] == "active").items())),
                "turns": len(turns),
                "sessions": len({t["session_id"] for t in turns}),
                "first_turn_at": min(times, default=None),
                "last_turn_at": max(times, default=None),
            }

        return await self.conn.read(collect)

    async def stats(self) -> dict[str, Any]:
        """Every bank's memory counts by status (``hot``: rows of the hot table, any status; ``archived``
        and the statuses reached in the archive since), turns, log ends, projection positions, LLM usage."""
        report = await self.store_stats()
        return {"banks": report["banks"], "log_end_offsets": await self.log_ends(), **report}

    async def log_ends(self) -> dict[str, int]:
        """Each topic's end offset summed over its partitions: the one part of ``stats`` read from the log."""
        await self.conn.start()
        return {t: sum((await self.conn.logged(self.conn.log.end_offsets(t))).values()) for t in ALL_TOPICS}

    async def store_stats(self) -> dict[str, Any]:
        """``stats`` without the log's ends: what the stores alone answer."""

        return await self.conn.read(lambda: store_counts(self.conn.stores()))
