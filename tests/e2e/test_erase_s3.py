"""Erase at scale, as deployed: two `hindsight-es worker` processes on a Tansu broker, the stores and the
data keys on a real S3 server (SeaweedFS), and this process as a third machine (its own data directory
and key cache) that records turns and erases. The workers open what this process sealed (one key store,
shared through the object store); after the erase no S3 object (LanceDB tables and their versions,
Parquet archive, snapshots, keys) and no raw Kafka record holds the erased text or its keys, the Kafka
working-memory table has no row of it, and what was not erased still recalls."""

from __future__ import annotations

import asyncio
import base64
import gzip
import io
import time
from pathlib import Path
from uuid import uuid4

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import ALL_TOPICS, TOPIC_TURNS, Settings
from hindsight_es.events import TurnRecorded, decoded
from hindsight_es.log import replay, sealer_for
from hindsight_es.log.kafka import KafkaLog
from hindsight_es.memory import columnar
from hindsight_es.objects import objects, s3_options
from hindsight_es.stores.filters import MemoryFilter, TurnFilter
from hindsight_es.stores.location import current
from hindsight_es.stores.shards import open_hot
from tests.e2e.test_erase import SECRET, decoded_parquet
from tests.e2e.test_scale_out import PARTITIONS, Workers, projected

pytestmark = pytest.mark.kafka
BANK = "alice"


def s3_bytes(settings: Settings) -> dict[str, bytes]:
    """Every object under the stores' prefix, as stored and as its readers decode it (Parquet, gzip)."""
    assert settings.stores_uri is not None
    store = objects(settings.stores_uri, s3_options(settings))
    out = {}
    for name, _ in store.list(""):
        data = store.get(name) or b""
        if name.endswith(".parquet"):
            data += decoded_parquet(io.BytesIO(data))  # type: ignore[arg-type]
        elif name.endswith(".gz"):
            data += gzip.decompress(data)
        elif name.endswith(".hsnap"):
            data += columnar.plain(data)
        out[name] = data
    return out


def holding(found: dict[str, bytes], needles: list[bytes]) -> list[str]:
    return [f"{name}: {n[:16]!r}" for name, data in found.items() for n in needles if n in data]


async def raw_records(settings: Settings) -> bytes:
    """Every record of every topic as the broker holds it (no key store: what a foreign reader gets)."""
    log = KafkaLog(settings)
    await log.start()
    try:
        return b"\n".join([r.value for topic in ALL_TOPICS async for records in replay(log, topic) for r in records])
    finally:
        await log.close()


def rows_of(settings: Settings, table: str, where: MemoryFilter | TurnFilter) -> list[dict[str, object]]:
    """The table's rows as they stand now on S3 (a store opened for this read)."""
    hot = open_hot(current(settings)["lance"], s3_options(settings))
    if hot.table(table) is None:
        return []
    return hot.scan(table, where, ["turn_id" if table == "turns" else "memory_id", "text"]).to_pylist()


def turn_rows(settings: Settings) -> list[dict[str, object]]:
    return rows_of(settings, "turns", TurnFilter(BANK))


async def test_erase_on_object_storage_across_machines(broker: str, s3_server: dict[str, str], tmp_path: Path) -> None:
    stores_uri = f"{s3_server['stores_uri']}/erase-{uuid4().hex[:8]}"
    fields = {**s3_server, "stores_uri": stores_uri}
    settings = Settings(
        broker=broker,
        partitions=PARTITIONS,
        data_dir=tmp_path / "client",
        embedder="minilm",
        kafka_session_timeout_ms=1500,
        kafka_heartbeat_interval_ms=300,
        **fields,
    )
    workers = Workers(broker, tmp_path, fields)
    try:
        for i in range(2):
            workers.start(i)
        async with Hindsight(settings) as hs:
            said = f"My passport number is {SECRET} and I live in Hangzhou."
            await hs.retain(BANK, said, session_id="s1", turn_id="t1")
            await hs.retain(BANK, "I prefer green tea in the morning.", session_id="s2", turn_id="t3")
            deadline = time.monotonic() + 120
            while not any("Hangzhou" in str(r["text"]) for r in rows_of(settings, "memories", MemoryFilter(BANK))):
                assert time.monotonic() < deadline, workers.logs()[-4000:]  # decided and projected by a worker
                await asyncio.sleep(0.5)
            log = KafkaLog(settings)
            await log.start()
            try:
                await projected(settings, log, workers, timeout_s=120)
            finally:
                await log.close()
            rows = {r["turn_id"]: r["text"] for r in turn_rows(settings)}
            assert rows.get("t1") == said, rows  # the workers opened what this process sealed
            sealer = sealer_for(settings)
            assert sealer is not None
            units = sealer.keys.select(BANK, session_id="s1")
            keys = [k for k in sealer.keys.lookup(BANK, units).values() if isinstance(k, bytes)]
            key_bytes = keys + [base64.b64encode(k) for k in keys]  # as stored, and the bytes themselves
            sealer.close()
            assert "turn:t1" in units and key_bytes
            assert SECRET.encode() not in await raw_records(settings)  # sealed on the broker from the start
            before = s3_bytes(settings)
            assert holding(before, [SECRET.encode()]) and holding(before, key_bytes[len(keys) :])  # the proof can fail

            done = await hs.operator.erase(BANK, session_id="s1", reason="user request", timeout_s=120)
            assert done.ready and done.turn_ids == ["t1"] and "turn:t1" in done.units

            assert holding(s3_bytes(settings), [SECRET.encode(), b"Hangzhou", *key_bytes]) == []
            raw = await raw_records(settings)
            assert not any(n in raw for n in (SECRET.encode(), b"Hangzhou", *key_bytes))
            rows = {r["turn_id"]: r["text"] for r in turn_rows(settings)}
            assert "t1" not in rows and "t3" in rows, rows  # the Kafka working memory dropped the erased turn
            # this process created t1's key and held it: its own log reads the placeholder now
            turns = [e for r in [x async for x in replay(hs.log, TOPIC_TURNS)] for _, e in decoded(r)]
            t1 = next(e for e in turns if isinstance(e, TurnRecorded) and e.turn_id == "t1")
            assert t1.text.startswith("[erased by operator at "), t1.text
            block = await hs.context(BANK, "s1", "where do I live?")
            assert SECRET not in block.model_dump_json()
            texts = [h.text for h in await hs.recall(BANK, "what do I drink in the morning?")]
            assert any("green tea" in t for t in texts) and not any("Hangzhou" in t for t in texts)
    finally:
        workers.stop_all()
    assert "Traceback" not in workers.logs(), workers.logs()[-4000:]
