"""A log that ends before what the stores, the snapshots or the actor already hold lost records: every
path that would act on it refuses with ``LogLostError`` (naming the topic, the partition, the position
held and the log's end) before it applies, appends or commits anything, while a batch delivered again
on the whole log is still skipped as before. The worker on a real broker: ``tests/e2e/test_broker_emptied.py``."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from hindsight_es.app.bench.cmd_replay import synthetic_history, write_history
from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import Record
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.log.lost import LogLostError
from hindsight_es.stores.objects import LocalObjects
from hindsight_es.stores.snapshots import Snapshots
from streams.bank_actor import BankActor
from streams.kafka_projections import OwnedProjections
from streams.partitions import load, save
from streams.service import catch_up_all, serve

BANK = "lost-bank"


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


async def history(path: Path, events: int) -> EmbeddedLog:
    log = EmbeddedLog(path, partitions=1)
    await log.start()
    await write_history(log, synthetic_history(BANK, events, dim=8, seed=3), chunk=50)
    return log


async def records(log: EmbeddedLog, topic: str) -> list[Record]:
    end = (await log.end_offsets(topic))[0]
    return await log.read(topic, 0, 0, end, end + 1)


async def test_a_projection_skips_a_batch_delivered_again_and_refuses_one_from_a_shorter_log(tmp_path):
    whole, short = await history(tmp_path / "whole.sqlite3", 60), await history(tmp_path / "short.sqlite3", 5)
    try:
        owner = OwnedProjections(Settings(data_dir=tmp_path, partitions=1), "vectors", whole)
        memories = await records(whole, TOPIC_MEMORIES)
        end = len(memories)
        assert await owner.handle(memories) == {(TOPIC_MEMORIES, 0): end}
        assert await owner.handle(memories[:5]) == {(TOPIC_MEMORIES, 0): end}  # delivered again: skipped

        owner.log = short  # the broker lost the partition and took new records from offset 0
        fewer = await records(short, TOPIC_MEMORIES)
        with pytest.raises(LogLostError, match=rf"hindsight.memories\[0\] ends at offset {len(fewer)} .* {end}\."):
            await owner.handle(fewer)
        assert owner.positions[0][(TOPIC_MEMORIES, 0)] == end  # nothing of it applied
    finally:
        await whole.close()
        await short.close()


async def test_a_snapshot_past_the_memory_log_end_refuses_the_load(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path / "d", partitions=1, record_recalls=False)
    snapshots = Snapshots(LocalObjects(tmp_path / "stores"), "bank-actor")
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.record_turn(BANK, "I live in Paris.", session_id="s1", turn_id="t1")
        actor = BankActor(hs.log, RuleExtractor(), embedder, settings)
        await actor.load()
        consumer = await hs.log.consumer("g", [TOPIC_TURNS])
        await actor.handle(await consumer.poll(500, 50))
        await consumer.close()
        covered = actor.owned[0].covered
        assert covered > 0 and save(actor.owned[0], snapshots)
    empty = EmbeddedLog(tmp_path / "empty.sqlite3", partitions=1)
    await empty.start()
    try:
        with pytest.raises(LogLostError, match=rf"hindsight.memories\[0\] ends at offset 0 .* to offset {covered}\."):
            await load(empty, 0, snapshots)
    finally:
        await empty.close()


async def test_the_bank_actor_appends_nothing_to_a_memory_log_that_ends_before_its_state(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path / "d", partitions=1, record_recalls=False)
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.record_turn(BANK, "I live in Paris.", session_id="s1", turn_id="t1")
        actor = BankActor(hs.log, RuleExtractor(), embedder, settings)
        consumer = await hs.log.consumer("g", [TOPIC_TURNS])
        await actor.handle(await consumer.poll(500, 50))
        covered = actor.owned[0].covered
        await hs.record_turn(BANK, "I moved to Berlin.", session_id="s1", turn_id="t2")
        batch = await consumer.poll(500, 50)
        await consumer.close()
    empty = EmbeddedLog(tmp_path / "empty.sqlite3", partitions=1)
    await empty.start()
    try:
        actor.log = actor.publish = empty  # the log under the running actor lost its memory events
        with pytest.raises(LogLostError, match=rf"ends at offset 0 .* but the bank actor .* {covered}\."):
            await actor.handle(batch)
        assert (await empty.end_offsets(TOPIC_MEMORIES))[0] == 0  # nothing appended
        with pytest.raises(LogLostError):  # and not after the state was dropped either
            await actor.acquire([0])
    finally:
        await empty.close()


async def test_the_service_refuses_to_start_on_a_log_shorter_than_its_stores(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path, partitions=1, record_recalls=False, janitor_enabled=False)
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.record_turn(BANK, "I live in Paris.", session_id="s1", turn_id="t1")
        await catch_up_all(settings, hs.log, embedder=embedder)
    for path in tmp_path.glob("log.sqlite3*"):  # the log is lost; the stores and snapshots stay
        path.unlink()
    shutil.rmtree(tmp_path / "snapshots", ignore_errors=True)  # only the stores' positions tell
    async with Hindsight(settings, embedder=embedder) as hs:
        stop = asyncio.Event()
        with pytest.raises(LogLostError, match=r"ends at offset 0 on the log at .* but the \w+ table's position"):
            await asyncio.wait_for(serve(settings, hs.log, stop, embedder=embedder), 30)
