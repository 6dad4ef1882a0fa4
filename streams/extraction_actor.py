"""Extraction actor: consumes ``hindsight.turns``, produces ``ExtractionCompleted`` on ``hindsight.commands``.

Key: ``bank_id``. It runs only when an LLM is configured, off the bank actor's hot path: the bank actor
then decides turns from its output instead of extracting them itself. Per poll, each bank's new turns
go in batches of ``llm_batch_turns``, one request per batch (banks in parallel, at most
``llm_concurrency`` requests in flight, a bank's batches in order). A batch whose request fails falls
back to the rule extractor and records the error, so nothing is lost and the bank keeps flowing.
Offsets are committed once every batch of the poll is published; turns already extracted or decided
are skipped, so a restart does not call the LLM again for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol
from uuid import UUID

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.errors import DecodeError, ExtractionError
from hindsight_es.events import ExtractionCompleted, TokenUsage, TurnExtraction, TurnRecorded, decode, decoded, encode
from hindsight_es.events.candidates import GuardJudgement
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.events.validation import check_input
from hindsight_es.extraction import Extractor, RuleExtractor
from hindsight_es.extraction.prompts import Neighbor
from hindsight_es.health import progressed
from hindsight_es.log import EventLog, Record, TopicPartition
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.judge import GuardJudge
from hindsight_es.memory.trust import as_said
from hindsight_es.text import plural

if TYPE_CHECKING:
    from hindsight_es.embedding import Embedder
    from hindsight_es.extraction.llm import LLMResult

GROUP = "hindsight.extraction-actor"
log_ = logging.getLogger("hindsight.extraction_actor")

# (bank, turns of a batch) -> the bank's active memories nearest to them, for the LLM's judgement.
NeighborSearch = Callable[[str, Sequence[TurnRecorded]], Awaitable[list[Neighbor]]]


class BatchExtractor(Protocol):
    id: str
    model: str
    prompt_version: str

    async def extract(self, turns: Sequence[TurnRecorded], existing: Sequence[Neighbor] = ()) -> LLMResult: ...

    async def aclose(self) -> None: ...


class ExtractionActor:
    def __init__(
        self,
        log: EventLog,
        llm: BatchExtractor,
        settings: Settings,
        *,
        neighbors: NeighborSearch | None = None,
        fallback: Extractor | None = None,
        group: str = GROUP,
        judge: GuardJudge | None = None,
        trusted: NeighborSearch | None = None,
    ) -> None:
        self.log, self.llm, self.settings, self.group = log, llm, settings, group
        self.judge, self.trusted = judge, trusted  # the optional LLM guard judge and its trusted memories
        self.neighbors = neighbors
        self.fallback = fallback or RuleExtractor()
        # per owned partition: turn event ids already extracted or decided
        self.done: dict[int, set[UUID]] = {}
        self.lock = asyncio.Lock()  # held while a poll is extracted and committed (see BankActor.lock)
        self._slots = asyncio.Semaphore(settings.llm_concurrency)

    async def acquire(self, partitions: Iterable[int]) -> int:
        """Note, for each partition not held yet, every turn already decided (its memory events) or
        extracted (its ExtractionCompleted): the topics share partitions and keys. Returns turns noted."""
        count = 0
        for partition in sorted(set(partitions) - set(self.done)):
            done: set[UUID] = set()
            for topic in (TOPIC_MEMORIES, TOPIC_COMMANDS):
                end = (await self.log.end_offsets(topic)).get(partition, 0)
                position = 0
                while position < end and (records := await self.log.read(topic, partition, position, end, 2000)):
                    for _, event in decoded(records):
                        if isinstance(event, ExtractionCompleted):
                            done.update(x.turn.event_id for x in event.extractions)
                        elif topic == TOPIC_MEMORIES and event.causation_id is not None:
                            done.add(event.causation_id)
                    position = records[-1].offset + 1
            self.done[partition] = done
            count += len(done)
        return count

    async def release(self, partitions: Iterable[int]) -> None:
        for partition in partitions:
            self.done.pop(partition, None)

    async def load(self) -> int:
        """Acquire every partition (the embedded log's single member)."""
        return await self.acquire(range(await self.log.partitions(TOPIC_TURNS)))

    async def handle(self, records: list[Record]) -> int:
        """Extract a poll's new turns (their partitions acquired first); returns the batches published."""
        await self.acquire({r.partition for r in records})
        banks: dict[str, list[TurnRecorded]] = {}
        for record in records:
            try:
                event = check_input(
                    decode(record.value), topic=record.topic, key=None, max_text_chars=self.settings.max_text_chars
                )
            except DecodeError:
                continue  # the bank actor dead-letters it, and sends no one its text
            done = self.done[record.partition]
            if (
                isinstance(event, TurnRecorded)
                and event.event_id not in done
                and record.key == event.bank_id
                and not is_erased_turn(event.text, event.metadata)  # its placeholder is no one's words: never sent
            ):
                done.add(event.event_id)
                banks.setdefault(event.bank_id, []).append(as_said(event))  # the source the bank actor decides
        counts = await asyncio.gather(*(self._bank(bank, turns) for bank, turns in banks.items()))
        return sum(counts)

    async def _bank(self, bank_id: str, turns: list[TurnRecorded]) -> int:
        size = self.settings.llm_batch_turns
        for start in range(0, len(turns), size):
            completed = await self.extract_batch(bank_id, turns[start : start + size])
            await self.log.append(TOPIC_COMMANDS, bank_id, [encode(completed)])
        return (len(turns) + size - 1) // size

    async def extract_batch(self, bank_id: str, turns: list[TurnRecorded]) -> ExtractionCompleted:
        """One request for a batch of one bank's turns; the rule extractor's candidates if it fails."""
        event_id = derive_id(turns[0].event_id, f"extraction/{len(turns)}")
        async with self._slots:
            try:
                existing = await self._neighbors(bank_id, turns)
                result = await self.llm.extract(turns, existing)
            except ExtractionError as exc:
                log_.warning(
                    "LLM extraction failed for %s of bank %s (%s); rule extractor instead",
                    plural(len(turns), "turn"),
                    bank_id,
                    exc,
                )
                return ExtractionCompleted(
                    event_id=event_id,
                    bank_id=bank_id,
                    actor="extractor",
                    causation_id=turns[0].event_id,
                    extractions=tuple(TurnExtraction(turn=t, candidates=tuple(self._rules(t))) for t in turns),
                    extractor=self.fallback.id,
                    model=self.llm.model,
                    prompt_version=self.llm.prompt_version,
                    usage=TokenUsage(calls=exc.calls),
                    error=f"{self.llm.id}: {exc}"[:2000],
                )
            verdicts = await self._judged(bank_id, turns)
        return ExtractionCompleted(
            event_id=event_id,
            bank_id=bank_id,
            actor="extractor",
            causation_id=turns[0].event_id,
            extractions=tuple(
                TurnExtraction(turn=t, candidates=(*self._episode(t), *found), guard=verdict)
                for t, found, verdict in zip(turns, result.candidates, verdicts, strict=True)
            ),
            extractor=self.llm.id,
            model=self.llm.model,
            prompt_version=self.llm.prompt_version,
            usage=result.usage,
            latency_ms=result.latency_ms,
        )

    async def _judged(self, bank_id: str, turns: list[TurnRecorded]) -> list[GuardJudgement | None]:
        """The guard judge's verdicts (``memory.judge``); none when it is off or fails (the rules still decide)."""
        if self.judge is None:
            return [None] * len(turns)
        try:
            trusted = await self.trusted(bank_id, turns) if self.trusted is not None else []
            return await self.judge.judge(turns, trusted)
        except Exception:  # a refinement: the rules decide without it rather than stall the bank
            log_.exception("guard judge unavailable for bank %s; the rules decide alone", bank_id)
            return [None] * len(turns)

    async def _neighbors(self, bank_id: str, turns: list[TurnRecorded]) -> list[Neighbor]:
        if self.neighbors is None or not self.settings.llm_judge:
            return []
        try:
            return await self.neighbors(bank_id, turns)
        except Exception:  # the judgement is a refinement: extract without it rather than stall
            log_.exception("nearest memories of bank %s unavailable; extracting without them", bank_id)
            return []

    def _rules(self, turn: TurnRecorded) -> list:
        return self.fallback.extract(turn.text, speaker=turn.speaker, source=turn.source)

    def _episode(self, turn: TurnRecorded) -> list:
        """The turn itself, as the rule extractor keeps it (whole text, entities): recall's raw material."""
        return [c for c in self._rules(turn)[:1] if c.kind == "episode"]

    async def run(self, stop: asyncio.Event) -> None:
        """Consume until ``stop`` is set; commits after each poll's batches are published."""
        await self.load()
        consumer = await self.log.consumer(self.group, [TOPIC_TURNS])
        try:
            while not stop.is_set():
                records = await consumer.poll(self.settings.poll_max_records, self.settings.poll_timeout_ms)
                if records:
                    await self.handle(records)
                    await consumer.commit(_next_offsets(records))
                progressed()  # published and committed, or nothing waiting: a retried actor works again
        finally:
            await consumer.close()

    async def drain(self) -> int:
        """Extract everything waiting (no service running); returns records read."""
        await self.load()
        consumer = await self.log.consumer(self.group, [TOPIC_TURNS])
        total = 0
        try:
            while records := await consumer.poll(self.settings.poll_max_records, 50):
                await self.handle(records)
                await consumer.commit(_next_offsets(records))
                total += len(records)
        finally:
            await consumer.close()
        return total


def _next_offsets(records: list[Record]) -> dict[TopicPartition, int]:
    return {(r.topic, r.partition): r.offset + 1 for r in records}


def store_neighbors(
    settings: Settings, embedder: Embedder, *, per_turn: int = 4, limit: int = 8, trusted_only: bool = False
) -> NeighborSearch:
    """Nearest active typed memories from the LanceDB store (what recall would return for each turn)."""
    from hindsight_es.recall import recall
    from hindsight_es.stores import location
    from hindsight_es.stores.shards import open_hot

    kinds = ["fact", "preference", "plan", "decision", "correction", "constraint", "summary"]

    def search(bank_id: str, turns: Sequence[TurnRecorded]) -> list[Neighbor]:
        store = open_hot(location.current(settings)["lance"], location.s3_options(settings)).for_bank(bank_id)
        if store.table("memories") is None:
            return []
        found: dict[str, Neighbor] = {}
        for turn in turns:
            for hit in recall(
                store,
                embedder,
                bank_id,
                turn.text,
                limit=per_turn,
                kinds=None if trusted_only else kinds,
                trusted_only=trusted_only,
            ):
                found.setdefault(hit.memory_id, Neighbor(UUID(hit.memory_id), hit.kind, hit.text, hit.key))
        return list(found.values())[:limit]

    async def run(bank_id: str, turns: Sequence[TurnRecorded]) -> list[Neighbor]:
        return await asyncio.to_thread(search, bank_id, turns)

    return run


def make_extraction_actor(settings: Settings, log: EventLog, embedder: Embedder) -> ExtractionActor | None:
    """The extraction actor over the configured LLM; None when no LLM is configured (rules in the bank actor)."""
    if not settings.llm_enabled:
        return None
    from hindsight_es.extraction.llm import LLMExtractor

    judge = GuardJudge(settings) if settings.guard_judge else None
    trusted = store_neighbors(settings, embedder, trusted_only=True) if judge is not None else None
    return ExtractionActor(
        log,
        LLMExtractor(settings),
        settings,
        neighbors=store_neighbors(settings, embedder),
        judge=judge,
        trusted=trusted,
    )


async def run_extraction(actor: ExtractionActor, stop: asyncio.Event) -> None:
    try:
        await actor.run(stop)
    finally:
        await actor.llm.aclose()
        if actor.judge is not None:
            await actor.judge.aclose()


async def drain_extraction(actor: ExtractionActor) -> int:
    try:
        return await actor.drain()
    finally:
        await actor.llm.aclose()
        if actor.judge is not None:
            await actor.judge.aclose()
