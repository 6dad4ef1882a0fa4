"""Bank actor: consumes ``hindsight.turns`` and ``hindsight.commands``, produces ``hindsight.memories``.

Key: ``bank_id`` (one partition per bank, so one actor sees a bank's inputs in log order). It is the
only writer of memory events, and it holds the state of the partitions it owns only (``partitions``):
exactly one owner decides a bank at a time, on the fold of everything already decided for it. Per
poll: extract and embed every input once (batched), then, in log order, ``decide`` against the bank
state and ``evolve`` it at once, so the decision at offset n+1 sees the memory retained at offset n.
Offsets are committed after the memory events are appended. With an LLM configured, turns are not
extracted here: the extraction actor's ``ExtractionCompleted`` (on ``hindsight.commands``) carries
them with their candidates, and each is decided from it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Sequence

from hindsight_es import observe as tracing
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import Embedder
from hindsight_es.errors import DecodeError, LogError
from hindsight_es.events import (
    ContentErased,
    ErasureRequested,
    Event,
    ExtractionCompleted,
    TurnRecorded,
    decode,
    encode,
)
from hindsight_es.events.validation import check_input
from hindsight_es.extraction import Extractor
from hindsight_es.health import progressed
from hindsight_es.log import EventLog, Record, TopicPartition, partition_for
from hindsight_es.log.lost import LogLostError, where_of
from hindsight_es.log.sealed import shred
from hindsight_es.memory import BankState, Prepared, decide, evolve
from hindsight_es.memory.guard import GuardPolicy
from hindsight_es.memory.trust import as_said
from hindsight_es.stores.snapshots import Snapshots
from streams.deadletter import dead_letter
from streams.metrics import observe
from streams.partitions import Owned, check_embedder, load, save
from streams.preparing import Given, prepare

GROUP = "hindsight.bank-actor"
SNAPSHOTS = "bank-actor"  # the actor's name under the stores' snapshots/
# (topic, key, values) -> their offsets: the log's append, or a FastStream publisher's (streams.kafka)
Publish = Callable[[str, str, Sequence[bytes]], Awaitable[list[int]]]
_ANOTHER_WRITER = "another writer appended to %s[%d] (an owner whose session expired, or an import): reloading it"
log_ = logging.getLogger("hindsight.bank_actor")


PIECES, PIECE_MIN = 3, 8  # a batch is decided and appended in pieces (``handle``)
SNAPSHOT_EVERY_S = 300.0  # a partition that changed is snapshotted at least this often
RELEASE_SNAPSHOT_MIN = 2000  # events folded since the last snapshot that make a released partition's worth writing


class BankActor:
    """The bank actor's handlers over the partitions it owns (``streams.partitions``).

    ``acquire`` loads a partition's state, ``release`` snapshots and drops it, ``handle`` decides a
    batch. The wiring calls them: ``run`` here (the embedded log: one member, every partition), or the
    FastStream subscriber's rebalance listener and handler on Kafka (``streams.kafka``). ``lock`` is held
    while a batch is decided and committed, so a revocation waits for the batch in hand.
    """

    def __init__(
        self,
        log: EventLog,
        extractor: Extractor,
        embedder: Embedder,
        settings: Settings,
        *,
        group: str = GROUP,
        snapshots: Snapshots | None = None,
        publish: Publish | None = None,
    ) -> None:
        self.log, self.extractor, self.embedder, self.settings = log, extractor, embedder, settings
        self.group = group
        self.owned: dict[int, Owned] = {}
        self.snapshots = snapshots
        self.publish: Publish = publish or log.append
        self.lock = asyncio.Lock()
        self.policy = GuardPolicy.from_settings(settings)
        self.defer_turns = settings.llm_enabled  # the extraction actor extracts; turns arrive in ExtractionCompleted
        self._given: Given = {}  # turn -> its extraction (``streams.preparing.Given``)
        self._partitions: int | None = None
        # memory partition -> the furthest this process has seen it folded: the log can never end before
        # it again (``log.lost``), although the state was dropped (a revocation, a failed batch)
        self._reached: dict[int, int] = {}

    @property
    def banks(self) -> dict[str, BankState]:
        """Every bank state held now (of the owned partitions)."""
        return {b: s for owned in self.owned.values() for b, s in owned.banks.items()}

    async def partition_count(self) -> int:
        if self._partitions is None:
            self._partitions = await self.log.partitions(TOPIC_MEMORIES)
        return self._partitions

    def owns(self, bank_id: str) -> bool:
        """Whether this actor holds the bank's partition now."""
        return self._partitions is not None and partition_for(bank_id, self._partitions) in self.owned

    def state(self, bank_id: str) -> BankState:
        """The state of a bank of an owned partition (``acquire`` it first)."""
        assert self._partitions is not None, "no partition acquired yet"
        return self.owned[partition_for(bank_id, self._partitions)].state(bank_id)

    async def acquire(self, partitions: Iterable[int]) -> int:
        """Load the state of the partitions not held yet (snapshot + memory tail); returns events folded
        from the log. Refuses an embedder the partition's memories do not compare with (``check_embedder``)."""
        await self.partition_count()
        folded, loaded = 0, {}
        for partition in sorted(set(partitions) - set(self.owned)):
            loaded[partition], n = await load(self.log, partition, self.snapshots)
            self._within_log(partition, loaded[partition].covered)
            folded += n
        if loaded:  # checked over every partition held: one partition may hold only a few banks' memories
            seen: Counter[tuple[str, int]] = Counter()
            for owned in [*self.owned.values(), *loaded.values()]:
                seen.update(owned.embedders)
            check_embedder(seen, self.settings, self.embedder)
            self.owned.update(loaded)
        return folded

    async def release(self, partitions: Iterable[int], *, snapshot: bool = True) -> None:
        """Drop the state of these partitions, after a snapshot of those with a tail worth saving the next
        owner (``RELEASE_SNAPSHOT_MIN`` events; a shorter tail folds faster than a snapshot is written,
        and a revocation should not keep the group waiting)."""
        for partition in sorted(set(partitions) & set(self.owned)):
            owned = self.owned.pop(partition)
            self._reached[partition] = max(self._reached.get(partition, 0), owned.covered)
            if snapshot and self.snapshots is not None and owned.unsaved >= RELEASE_SNAPSHOT_MIN:
                await asyncio.to_thread(_save, owned, self.snapshots)

    async def load(self) -> int:
        """Acquire every partition (the embedded log's single member); returns events folded."""
        return await self.acquire(range(await self.partition_count()))

    async def save_snapshots(self, *, every: int | None = None, force: bool = False) -> int:
        """Snapshot the owned partitions with ``every`` (default ``settings.snapshot_every``) events
        folded since their last one, or changed and not snapshotted for ``SNAPSHOT_EVERY_S``; returns how many."""
        if self.snapshots is None:
            return 0
        every = self.settings.snapshot_every if every is None else every
        now, written = time.monotonic(), 0
        for owned in list(self.owned.values()):
            due = owned.unsaved >= every or (owned.unsaved and now - owned.saved_at >= SNAPSHOT_EVERY_S)
            if owned.unsaved and (due or force):
                written += await asyncio.to_thread(_save, owned, self.snapshots)
        return written

    async def handle(self, records: list[Record]) -> int:
        """Decide on a batch of input records (their partitions are acquired first if not held yet);
        returns memory events appended."""
        started = tracing.now_ns()
        await self.acquire({r.partition for r in records})
        await self._catch_up({r.partition for r in records})
        inputs: list[tuple[Record, Event]] = []
        for record in records:
            try:
                event = self._validate(decode(record.value), record)
            except DecodeError as exc:
                await dead_letter(self.log, record, str(exc), publish=self.publish)
                continue
            if await self._rekeyed(record, event):
                continue
            inputs.append((record, event))
        inputs = self._expand(inputs)
        # An erasure's keys go before its ContentErased is appended (``log.sealed.shred``).
        if erasures := [e for _, e in inputs if isinstance(e, ErasureRequested)]:
            await asyncio.to_thread(shred, self.log, erasures)
        decided: dict[str, list[Event]] = defaultdict(list)  # this batch's, by bank, appended or not yet
        appending: asyncio.Task[None] | None = None
        pieces = _pieces(inputs)
        try:
            # Each piece is decided, then appended while the next piece is extracted and embedded: the
            # append waits on object storage and the broker, the next piece on the CPU. A piece is
            # prepared after the previous one was decided, so it reads the same state as unpipelined.
            for i, piece in enumerate(pieces):
                prepared = await asyncio.to_thread(self._prepare, [e for _, e in piece])
                out = await self._decide(piece, prepared, decided)
                if appending is not None:
                    await appending  # appends stay in log order
                appending = asyncio.create_task(self._append_all(out), name=f"append-{i}")
            if appending is not None:
                await appending
        except BaseException:
            if appending is not None:
                appending.cancel()
                await asyncio.gather(appending, return_exceptions=True)
            # The state holds decisions the log may not have taken: the partitions are loaded again
            # from the log when the batch comes back, so it is decided once, on what was appended.
            n = await self.partition_count()
            await self.release({partition_for(e.bank_id, n) for _, e in inputs}, snapshot=False)
            raise
        tracing.spans_for("bank-actor.decide", [e for _, e in inputs], started)  # one trace per input
        tracing.consumed(self.group, records)
        return sum(len(v) for v in decided.values())

    async def _decide(
        self, inputs: list[tuple[Record, Event]], prepared: list[Prepared | None], decided: dict[str, list[Event]]
    ) -> dict[str, list[Event]]:
        """Decide and fold each input in order; returns the events by bank (also added to ``decided``)."""
        out: dict[str, list[Event]] = defaultdict(list)
        for (_, event), prep in zip(inputs, prepared, strict=True):
            owned = self.owned[partition_for(event.bank_id, await self.partition_count())]
            state = owned.state(event.bank_id)
            revived = await owned.retained.fetch(self.log, state, event, decided[event.bank_id])
            for produced in decide(state, event, prep, self.policy, revived=revived):
                evolve(state, produced)
                out[event.bank_id].append(produced)
                decided[event.bank_id].append(produced)
        return out

    async def _append_all(self, out: dict[str, list[Event]]) -> None:
        """Append decided events, each partition's side by side with the others' (independent logs)."""
        n = await self.partition_count()
        by_partition: dict[int, dict[str, list[Event]]] = defaultdict(dict)
        for bank_id, events in out.items():
            by_partition[partition_for(bank_id, n)][bank_id] = events
        await self._still_alone(set(by_partition))
        moved = await asyncio.gather(*(self._append(self.owned[p], banks) for p, banks in by_partition.items()))
        for partition in sorted(owned.partition for owned in moved if owned is not None):
            log_.warning(_ANOTHER_WRITER, TOPIC_MEMORIES, partition)
            await self.release([partition], snapshot=False)
            await self.acquire([partition])

    async def _append(self, owned: Owned, out: dict[str, list[Event]]) -> Owned | None:
        """Append the banks' events in one go where the publisher can (``Publisher.many``; ``covered``
        follows the partition's appends in order); ``owned`` if another writer appended to its memory
        partition meanwhile."""
        stale = None
        items = [(bank_id, [encode(e) for e in events]) for bank_id, events in out.items()]
        many = getattr(self.publish, "many", None)
        appended = (
            await many(TOPIC_MEMORIES, items) if many else [await self.publish(TOPIC_MEMORIES, *i) for i in items]
        )
        for (bank_id, events), offsets in zip(out.items(), appended, strict=True):
            owned.retained.note_appended(events, offsets)
            if offsets and offsets[0] != owned.covered:
                stale = owned
            elif offsets:
                owned.covered, owned.last_id = offsets[-1] + 1, str(events[-1].event_id)
                owned.unsaved += len(events)
                owned.alone = stale is None
            await self._drop_erased_snapshots(owned.partition, events, offsets)
            observe(bank_id, events)
        return stale

    async def _drop_erased_snapshots(self, partition: int, events: list[Event], offsets: list[int]) -> None:
        """Snapshots taken before a ``ContentErased`` hold the erased memories' text: this actor wrote them,
        so it deletes them (the next load folds the log, which reads the placeholders)."""
        erased = [o for e, o in zip(events, offsets, strict=False) if isinstance(e, ContentErased)]
        if erased and self.snapshots is not None:
            await asyncio.to_thread(self.snapshots.drop_through, partition, max(erased))

    async def _catch_up(self, partitions: set[int]) -> None:
        """Fold what a previous owner appended after this one loaded the partition (it was still
        finishing its last batch), so every decision here sees it; until an append of this owner's
        found no other writer (``Owned.alone``): a request per batch it would cost after that."""
        partitions = {p for p in partitions if not self.owned[p].alone}
        if not partitions:
            return
        ends = await self.log.end_offsets(TOPIC_MEMORIES)
        for partition in sorted(partitions):
            owned = self.owned[partition]
            if ends.get(partition, 0) > owned.covered:
                await owned.fold(self.log, ends[partition])

    async def _still_alone(self, partitions: set[int]) -> None:
        """Refuse to append when another owner appended to a memory partition since this one last read
        it: the partition is dropped (reloaded on its next record) and the batch fails, so it is
        delivered again and decided on the state that includes the other owner's events."""
        ends = await self.log.end_offsets(TOPIC_MEMORIES)
        for partition in sorted(partitions):
            self._within_log(partition, ends.get(partition, 0), self.owned[partition].covered)
        moved = sorted(p for p in partitions if ends.get(p, 0) != self.owned[p].covered)
        if moved:
            await self.release(moved, snapshot=False)
            raise LogError(
                f"another owner appended to {TOPIC_MEMORIES} partitions {moved} while this batch was decided "
                "(a rebalance gave them away): the batch will be delivered again"
            )

    def _within_log(self, partition: int, end: int, held: int = 0) -> None:
        """Raise ``LogLostError`` when the memory partition ends at ``end``, before what this actor holds
        (``held``) or held before (``_reached``): the log lost its events, so nothing is decided or
        appended on a state the log no longer has."""
        reached = max(held, self._reached.get(partition, 0))
        if end < reached:
            raise LogLostError(TOPIC_MEMORIES, partition, reached, end, "the bank actor", where_of(self.log))

    async def _rekeyed(self, record: Record, event: Event) -> bool:
        """A valid input keyed wrongly or not at all, or from a producer that left out its id or time,
        is published again under its bank's key, as the event it decodes to (its id stable, its time
        fixed), and not decided here: the copy is, on the bank's partition."""
        n = await self.partition_count()
        foreign = b'"event_id"' not in record.value or (
            isinstance(event, TurnRecorded) and b'"occurred_at"' not in record.value
        )
        if record.key == event.bank_id and record.partition == partition_for(event.bank_id, n) and not foreign:
            return False
        log_.warning(
            "%s/%d@%d (key %r) is bank %r's: republished under its key",
            record.topic,
            record.partition,
            record.offset,
            record.key,
            event.bank_id,
        )
        await self.publish(record.topic, event.bank_id, [encode(event)])
        return True

    def _expand(self, inputs: list[tuple[Record, Event]]) -> list[tuple[Record, Event]]:
        """An ExtractionCompleted becomes its turns, decided with the candidates it carries; with an LLM
        configured, turns wait for it (the extraction actor) instead of being extracted here."""
        out: list[tuple[Record, Event]] = []
        for record, event in inputs:
            if isinstance(event, ExtractionCompleted):
                failure = (f"llm:{event.model}/{event.prompt_version}", event.error) if event.error else None
                for item in event.extractions:
                    # a turn its own record failed (``_validate``: dead-lettered there) is not decided from here
                    if item.turn.bank_id == event.bank_id and self._admissible(item.turn):
                        self._given[item.turn.event_id] = (list(item.candidates), event.extractor, failure, item.guard)
                        out.append((record, item.turn))
            elif not (self.defer_turns and isinstance(event, TurnRecorded)):
                out.append((record, event))
        return out

    def _validate(self, event: Event, record: Record) -> Event:
        """The topic and size checks (``check_input``); a wrong key is mended by ``_rekeyed`` instead. A turn
        comes out with the source its role allows (``trust.as_said``): what prepare and decide both read."""
        event = check_input(event, topic=record.topic, key=None, max_text_chars=self.settings.max_text_chars)
        return as_said(event) if isinstance(event, TurnRecorded) else event

    def _admissible(self, turn: TurnRecorded) -> bool:
        try:
            check_input(turn, topic=TOPIC_TURNS, key=None, max_text_chars=self.settings.max_text_chars)
        except DecodeError:
            return False
        return True

    def _prepare(self, events: list[Event]) -> list[Prepared | None]:
        return prepare(events, self._state, self.extractor, self.embedder, self._given)

    def _state(self, bank_id: str) -> BankState:
        return self.state(bank_id)

    async def run(self, stop: asyncio.Event) -> None:
        """The embedded runner: consume until ``stop`` is set, owning every partition (the embedded log
        has one active member per group); commits after each appended batch, snapshots as they fall due
        and when it stops."""
        await self.load()
        consumer = await self.log.consumer(self.group, [TOPIC_TURNS, TOPIC_COMMANDS])
        failed = True
        try:
            while not stop.is_set():
                records = await consumer.poll(self.settings.poll_max_records, self.settings.poll_timeout_ms)
                if records:
                    await self.handle(records)
                    await consumer.commit(next_offsets(records))
                await self.save_snapshots()
                progressed()  # decided and committed, or nothing waiting: a retried actor works again
            failed = False
        finally:
            await consumer.close()
            # After a failed batch the state holds decisions the log never took: never snapshot it (a
            # restart folds the partitions again from the last snapshot and the log).
            await self.release(list(self.owned), snapshot=not failed)


def _pieces(inputs: list[tuple[Record, Event]]) -> list[list[tuple[Record, Event]]]:
    """A batch in up to ``PIECES`` pieces in order, none under ``PIECE_MIN`` inputs (one embedding call
    per piece: smaller ones lose more to its fixed cost than the overlap gains)."""
    size = max(PIECE_MIN, -(-len(inputs) // PIECES))
    return [inputs[i : i + size] for i in range(0, len(inputs), size)]


def next_offsets(records: Sequence[Record]) -> dict[TopicPartition, int]:
    return {(record.topic, record.partition): record.offset + 1 for record in records}  # the last of each wins


def _save(owned: Owned, snapshots: Snapshots) -> int:
    return int(save(owned, snapshots))
