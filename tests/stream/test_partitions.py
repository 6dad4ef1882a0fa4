"""Partition state: a snapshot plus the memory tail folds to the same bank states as the whole log, and
a snapshot that is missing, corrupt or of another log costs a full fold, never a wrong state."""

from __future__ import annotations

import json

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import ForgetRequested
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import partition_for
from hindsight_es.memory.columnar import pack, unpack
from hindsight_es.memory.lazy import LazyMap
from hindsight_es.memory.snapshot import layout, state_from_json, state_to_json
from hindsight_es.stores.objects import LocalObjects
from hindsight_es.stores.snapshots import Snapshots
from streams.bank_actor import BankActor
from streams.partitions import Owned, load, save

TEXTS = ["We use MySQL for orders.", "好的", "不对，我们用的是 PostgreSQL", "I live in Paris.", "I moved to Berlin."]


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


async def decided(settings: Settings, hs: Hindsight, embedder, banks: list[str]) -> BankActor:
    for bank in banks:
        for i, text in enumerate(TEXTS):
            await hs.record_turn(bank, text, session_id="s1", turn_id=f"t{i}")
    actor = BankActor(hs.log, RuleExtractor(), embedder, settings)
    consumer = await hs.log.consumer("g", [TOPIC_TURNS, TOPIC_COMMANDS])
    while records := await consumer.poll(500, 50):
        await actor.handle(records)
        await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
    await consumer.close()
    return actor


async def test_snapshot_plus_tail_equals_a_full_fold(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path, partitions=2)
    snapshots = Snapshots(LocalObjects(tmp_path / "stores"), "bank-actor")
    async with Hindsight(settings, embedder=embedder) as hs:
        actor = await decided(settings, hs, embedder, [f"bank-{i}" for i in range(6)])
        for state in actor.banks.values():
            assert state_from_json(json.loads(json.dumps(state_to_json(state)))) == state
        partition = partition_for("bank-0", 2)
        assert save(actor.owned[partition], snapshots)
        covered = snapshots.covered(partition)[0]
        forgotten = next(m for m in actor.banks["bank-0"].memories.values() if m.status == "active")
        forget = ForgetRequested(bank_id="bank-0", memory_ids=(forgotten.memory_id,))
        await hs.publish([forget])  # decided after the snapshot: the tail must bring it in
        actor2 = await decided(settings, hs, embedder, [])
        owned, folded = await load(hs.log, partition, snapshots)
        full, everything = await load(hs.log, partition, None)
        assert owned.covered == full.covered > covered and 0 < folded < everything
        assert owned.banks == full.banks == {b: s for b, s in actor2.banks.items() if b in owned.banks}
        assert owned.banks["bank-0"].memories[forgotten.memory_id].status == "forgotten"
        assert owned.retained.offsets == full.retained.offsets


def _format_3(owned: Owned) -> dict:
    """The gzipped-JSON snapshot body earlier releases wrote (``memory.snapshot``)."""
    return {
        **layout(),
        "partition": owned.partition,
        "covered": owned.covered,
        "last_id": owned.last_id,
        "embedders": [[e, d, n] for (e, d), n in owned.embedders.items()],
        "retained": {b: [[str(m), o] for m, o in offsets.items()] for b, offsets in owned.retained.offsets.items()},
        "banks": [state_to_json(s) for s in owned.banks.values()],
    }


async def test_corrupt_or_foreign_snapshots_fall_back_to_the_log(tmp_path, embedder, caplog):
    settings = Settings(data_dir=tmp_path, partitions=1)
    objects = LocalObjects(tmp_path / "stores")
    snapshots = Snapshots(objects, "bank-actor")
    async with Hindsight(settings, embedder=embedder) as hs:
        actor = await decided(settings, hs, embedder, ["alice"])
        save(actor.owned[0], snapshots)
        covered = snapshots.covered(0)[0]
        key = f"snapshots/bank-actor/partition=0/{covered:020d}.hsnap"
        data = objects.get(key)
        owned, folded = await load(hs.log, 0, snapshots)
        assert folded == 0 and owned.banks == actor.owned[0].banks  # the snapshot as written is used
        header, banks = unpack(data)
        foreign = {**header, "last_id": "00000000-0000-0000-0000-000000000000"}  # another log's event
        other_release = {**header, "memory_fields": header["memory_fields"][:-1]}
        middle = len(data) // 2
        damaged = data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1 :]
        cut = data[:middle]
        for bad in (b"not a snapshot", cut, damaged, pack(foreign, banks), pack(other_release, banks)):
            objects.put(key, bad)
            caplog.clear()
            owned, folded = await load(hs.log, 0, snapshots)
            assert folded == covered and owned.banks == actor.owned[0].banks
            assert "no usable snapshot of partition 0: folding its" in caplog.text


async def test_a_format_3_json_snapshot_still_loads(tmp_path, embedder):
    settings = Settings(data_dir=tmp_path, partitions=1)
    snapshots = Snapshots(LocalObjects(tmp_path / "stores"), "bank-actor")
    async with Hindsight(settings, embedder=embedder) as hs:
        actor = await decided(settings, hs, embedder, ["alice", "bob"])
        owned = actor.owned[0]
        assert snapshots.write(0, owned.covered, _format_3(owned))
        loaded, folded = await load(hs.log, 0, snapshots)
        assert folded == 0 and loaded.banks == owned.banks and loaded.retained.offsets == owned.retained.offsets
        loaded.unsaved = 1  # written again in format 4 beside it, and preferred
        assert save(loaded, snapshots)
        again, folded = await load(hs.log, 0, snapshots)
        assert folded == 0 and again.banks == owned.banks and isinstance(again.banks["alice"].memories, LazyMap)
