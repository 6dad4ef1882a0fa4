"""Bank actor: consumes ``hindsight.turns`` and ``hindsight.commands``, produces ``hindsight.memories``.

Key: ``bank_id`` (one partition per bank, so one actor sees a bank's inputs in log order). It is the
only writer of memory events. Per poll: extract and embed every input once (batched), then, in log
order, ``decide`` against the bank state and ``evolve`` it at once, so the decision at offset n+1
sees the memory retained at offset n. Offsets are committed after the memory events are appended.
With an LLM configured, turns are not extracted here: the extraction actor's ``ExtractionCompleted``
(on ``hindsight.commands``) carries them with their candidates, and each is decided from it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, defaultdict
from uuid import UUID

import numpy as np

from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder
from hindsight_es.embedding.base import vector_space
from hindsight_es.errors import ConfigError, DecodeError
from hindsight_es.events import (
    CorrectionRequested,
    Event,
    ExtractionCompleted,
    MemoryRetained,
    TurnRecorded,
    decode,
    decoded,
    encode,
)
from hindsight_es.events.validation import check_input
from hindsight_es.extraction import Candidate, Extractor
from hindsight_es.log import EventLog, Record, TopicPartition, replay
from hindsight_es.memory import BankState, Prepared, decide, evolve
from hindsight_es.memory.guard import GuardPolicy
from hindsight_es.memory.indexing import LastTurn, index_text, reply_context
from streams.deadletter import dead_letter
from streams.metrics import observe
from streams.revival import RetainedIndex

GROUP = "hindsight.bank-actor"
log_ = logging.getLogger("hindsight.bank_actor")


def check_embedder(found: Counter[tuple[str, int]], settings: Settings, embedder: Embedder) -> None:
    """Raise ``ConfigError`` when the bank's memories in the log (``found``: (embedder id, dimension) ->
    memories) were all embedded by models ``embedder`` cannot compare with (none in its ``vector_space``).

    Their vectors would not fit the table, or would rank against the others meaninglessly, and once
    appended they stay in the log: an actor started with the wrong HINDSIGHT_EMBEDDER stops here, before
    it writes anything. The check reads the actor's own input, the memory log, not a read model.
    """
    if not found or {e for e, _ in found} & set(vector_space(embedder)):
        return
    names = ", ".join(f"{n:,} by {e} ({dim}-d)" for (e, dim), n in found.most_common())
    raise ConfigError(
        f"the memories in the log were embedded by another model ({names}) than this process's {embedder.id} "
        f"({embedder.dim}-d; embedder {settings.embedder!r}, set by HINDSIGHT_EMBEDDER or --embedder): their "
        "vectors do not compare. Run with the embedder the data was written with, or use a new data directory."
    )


class BankActor:
    def __init__(
        self, log: EventLog, extractor: Extractor, embedder: Embedder, settings: Settings, *, group: str = GROUP
    ) -> None:
        self.log, self.extractor, self.embedder, self.settings = log, extractor, embedder, settings
        self.group = group
        self.banks: dict[str, BankState] = {}
        self.retained = RetainedIndex()  # where each memory was retained, to bring archived ones back
        self.policy = GuardPolicy.from_settings(settings)
        self.defer_turns = settings.llm_enabled  # the extraction actor extracts; turns arrive in ExtractionCompleted
        self._given: dict[UUID, tuple[list[Candidate], str, tuple[str, str] | None]] = {}  # turn -> its extraction

    def state(self, bank_id: str) -> BankState:
        if bank_id not in self.banks:
            self.banks[bank_id] = BankState(bank_id)
        return self.banks[bank_id]

    async def load(self) -> int:
        """Rebuild every bank's state from the memory log; returns events folded. Refuses to run an
        embedder the logged memories do not compare with (``check_embedder``)."""
        count = 0
        embedders: Counter[tuple[str, int]] = Counter()
        async for records in replay(self.log, TOPIC_MEMORIES):
            for record, event in decoded(records):
                evolve(self.state(event.bank_id), event)
                self.retained.note(event, record.offset)
                if isinstance(event, MemoryRetained):
                    embedders[(event.embedder, len(event.vector) // 4)] += 1
                count += 1
        check_embedder(embedders, self.settings, self.embedder)
        return count

    async def handle(self, records: list[Record]) -> int:
        """Decide on a batch of input records; returns memory events appended."""
        inputs: list[tuple[Record, Event]] = []
        for record in records:
            try:
                event = self._validate(decode(record.value), record)
            except DecodeError as exc:
                await dead_letter(self.log, record, str(exc))
                continue
            inputs.append((record, event))
        inputs = self._expand(inputs)
        prepared = await asyncio.to_thread(self._prepare, [e for _, e in inputs])
        out: dict[str, list[Event]] = defaultdict(list)
        for (_, event), prep in zip(inputs, prepared, strict=True):
            state = self.state(event.bank_id)
            revived = await self.retained.fetch(self.log, state, event, out[event.bank_id])
            for produced in decide(state, event, prep, self.policy, revived=revived):
                evolve(state, produced)
                out[event.bank_id].append(produced)
        for bank_id, events in out.items():
            offsets = await self.log.append(TOPIC_MEMORIES, bank_id, [encode(e) for e in events])
            self.retained.note_appended(events, offsets)
            observe(bank_id, events)
        return sum(len(v) for v in out.values())

    def _expand(self, inputs: list[tuple[Record, Event]]) -> list[tuple[Record, Event]]:
        """An ExtractionCompleted becomes its turns, decided with the candidates it carries; with an LLM
        configured, turns wait for it (the extraction actor) instead of being extracted here."""
        out: list[tuple[Record, Event]] = []
        for record, event in inputs:
            if isinstance(event, ExtractionCompleted):
                failure = (f"llm:{event.model}/{event.prompt_version}", event.error) if event.error else None
                for item in event.extractions:
                    if item.turn.bank_id == event.bank_id:
                        self._given[item.turn.event_id] = (list(item.candidates), event.extractor, failure)
                        out.append((record, item.turn))
            elif not (self.defer_turns and isinstance(event, TurnRecorded)):
                out.append((record, event))
        return out

    def _validate(self, event: Event, record: Record) -> Event:
        return check_input(event, topic=record.topic, key=record.key, max_text_chars=self.settings.max_text_chars)

    def _prepare(self, events: list[Event]) -> list[Prepared | None]:
        """Extraction and one batched embedding call for every text the batch may retain."""
        texts: list[list[str]] = []
        candidates: list[list[Candidate]] = []
        contexts: list[str | None] = []
        extractors: list[tuple[str, tuple[str, str] | None]] = []
        last_turn: dict[tuple[str, str], LastTurn] = {}  # turns earlier in this batch, not yet in the state
        for event in events:
            context: str | None = None
            extractor: tuple[str, tuple[str, str] | None] = (self.extractor.id, None)
            if isinstance(event, TurnRecorded) and event.event_id not in self.state(event.bank_id).handled:
                given = self._given.pop(event.event_id, None)
                found = (
                    given[0]
                    if given
                    else self.extractor.extract(event.text, speaker=event.speaker, source=event.source)
                )
                extractor = (given[1], given[2]) if given else extractor
                session = (event.bank_id, event.session_id)
                who = event.speaker or event.source
                context = reply_context(
                    last_turn.get(session, self.state(event.bank_id).last_turn.get(event.session_id)), who
                )
                if found:
                    last_turn[session] = LastTurn(who, index_text(found[0].text, event.speaker), context)
                candidates.append(found)
                texts.append([index_text(c.text, event.speaker, context, c.quote) for c in found])
            elif isinstance(event, CorrectionRequested) and event.event_id not in self.state(event.bank_id).handled:
                candidates.append([])
                texts.append([event.text])
            else:
                candidates.append([])
                texts.append([])
            contexts.append(context)
            extractors.append(extractor)
        flat = [t for group in texts for t in group]
        unique = list(dict.fromkeys(flat))  # a fact often repeats its turn's text: embed it once
        found_vectors = self.embedder.embed(unique) if unique else np.zeros((0, self.embedder.dim), np.float32)
        row = {text: i for i, text in enumerate(unique)}
        vectors = found_vectors[[row[t] for t in flat]] if flat else found_vectors
        out: list[Prepared | None] = []
        start = 0
        for found, group, context, (extractor_id, failure) in zip(candidates, texts, contexts, extractors, strict=True):
            if not group:
                out.append(None)
                continue
            out.append(
                Prepared(found, vectors[start : start + len(group)], self.embedder.id, extractor_id, context, failure)
            )
            start += len(group)
        return out

    async def run(self, stop: asyncio.Event) -> None:
        """Consume until ``stop`` is set; commits after each appended batch."""
        await self.load()
        consumer = await self.log.consumer(self.group, [TOPIC_TURNS, TOPIC_COMMANDS])
        try:
            while not stop.is_set():
                records = await consumer.poll(self.settings.poll_max_records, self.settings.poll_timeout_ms)
                if not records:
                    continue
                await self.handle(records)
                offsets: dict[TopicPartition, int] = {}
                for record in records:
                    offsets[(record.topic, record.partition)] = record.offset + 1
                await consumer.commit(offsets)
        finally:
            await consumer.close()
