"""Scale-out on Kafka as an operator runs it: three `hindsight-es worker` processes on a Tansu broker, one
killed (-9) mid-stream and restarted, another killed while rollbacks and janitor ticks are in flight.

What must hold: every turn and command decided exactly once, and the memory events per bank (ids,
types, supersessions, in log order) equal to those of one process deciding the same inputs on the
embedded log. Ids are derived from the inputs, so the comparison is exact.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hindsight_es.client import make_turn
from hindsight_es.config import ALL_TOPICS, TOPIC_COMMANDS, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import Event, JanitorTick, RetentionPolicy, RetractionRequested, decoded, encode
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import EventLog, partition_for, replay
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.log.kafka import KafkaLog
from streams.bank_actor import BankActor
from tests.e2e.served import free_port

pytestmark = pytest.mark.kafka
REPO = Path(__file__).resolve().parents[2]
PARTITIONS = 4
BANKS = [f"scale-{i:02d}" for i in range(52)]
PAIRS = [
    ("From now on we use FedEx for shipping.", "Actually, we use UPS for shipping now."),
    ("I live in Paris.", "I moved to Berlin last month."),
    ("My favorite color is blue.", "My favorite color is green now."),
    ("我们用的是 MySQL", "不对，我们用的是 PostgreSQL"),
]
VALUES = ["UPS", "Berlin", "green", "PostgreSQL"]  # the value each pair's later turn sets
T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def inputs() -> tuple[list[Event], list[Event], list[Event]]:
    """Three waves: the first statement of every bank, the one that supersedes it (plus a fact of its own
    session, which a rollback removes), then rollbacks and far-future janitor ticks."""
    settings = Settings()
    first, second, commands = [], [], []
    for i, bank in enumerate(BANKS):
        a, b = PAIRS[i % len(PAIRS)]
        first.append(make_turn(settings, bank, a, session_id="s1", turn_id="t1", occurred_at=T0))
        second.append(make_turn(settings, bank, b, session_id="s1", turn_id="t2", occurred_at=T0 + timedelta(hours=1)))
        second.append(
            make_turn(
                settings,
                bank,
                "My dog is called Rex.",
                session_id="s2",
                turn_id="t3",
                occurred_at=T0 + timedelta(hours=2),
            )
        )
        if i % 3 == 0:
            commands.append(
                RetractionRequested(
                    bank_id=bank, session_id="s2", reason="poisoned", occurred_at=T0 + timedelta(days=1)
                )
            )
        elif i % 3 == 1:
            tick = RetentionPolicy(grace_days=0, threshold=0.9)
            commands.append(JanitorTick(bank_id=bank, policy=tick, occurred_at=T0 + timedelta(days=900)))
    return first, second, commands


async def publish(log: EventLog, events: list[Event]) -> None:
    for event in events:
        topic = TOPIC_TURNS if event.type == "TurnRecorded" else TOPIC_COMMANDS
        await log.append(topic, event.bank_id, [encode(event)])


Decided = tuple[str, str, str, str, str]  # type, event id, memory id, superseded by, cause


async def memory_events(log: EventLog) -> dict[str, list[Decided]]:
    """Per bank of this test, its memory events in log order."""
    out: dict[str, list[Decided]] = defaultdict(list)
    async for records in replay(log, TOPIC_MEMORIES):
        for _, event in decoded(records):
            if event.bank_id in BANKS or event.bank_id.startswith("scale-"):
                fields = event.__dict__
                out[event.bank_id].append(
                    (
                        event.type,
                        str(event.event_id),
                        str(fields.get("memory_id")),
                        str(fields.get("superseded_by")),
                        str(event.causation_id),
                    )
                )
    return dict(out)


async def single_worker(tmp: Path, waves: list[list[Event]]) -> dict[str, list[Decided]]:
    """The reference: one actor on the embedded log, each wave drained before the next is published."""
    settings = Settings(data_dir=tmp, partitions=PARTITIONS, embedder="minilm")
    log = EmbeddedLog(settings.log_path, PARTITIONS)
    await log.start()
    try:
        actor = BankActor(log, RuleExtractor(), make_embedder("minilm"), settings)
        consumer = await log.consumer("reference", [TOPIC_TURNS, TOPIC_COMMANDS])
        for wave in waves:
            await publish(log, wave)
            while records := await consumer.poll(500, 50):
                await actor.handle(records)
                await consumer.commit({(r.topic, r.partition): r.offset + 1 for r in records})
        await consumer.close()
        return await memory_events(log)
    finally:
        await log.close()


class Workers:
    """Worker processes (and a `serve`), each with its own data directory, all on the shared S3 stores."""

    def __init__(self, broker: str, root: Path, s3: dict[str, str]) -> None:
        self.broker, self.root, self.s3 = broker, root, s3
        self.procs: dict[int | str, subprocess.Popen[bytes]] = {}

    def env(self, name: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
        env.update({f"HINDSIGHT_{k.upper()}": v for k, v in self.s3.items()})
        env.update(
            PYTHONPATH=str(REPO),
            HINDSIGHT_BROKER=self.broker,
            HINDSIGHT_DATA_DIR=str(self.root / name),
            HINDSIGHT_PARTITIONS=str(PARTITIONS),
            HINDSIGHT_EMBEDDER="minilm",
            HINDSIGHT_KAFKA_SESSION_TIMEOUT_MS="1500",
            HINDSIGHT_KAFKA_HEARTBEAT_INTERVAL_MS="300",
            HINDSIGHT_POLL_MAX_RECORDS="20",
            HINDSIGHT_SNAPSHOT_EVERY="40",
            HINDSIGHT_JANITOR_ENABLED="false",
            HINDSIGHT_LOG_LEVEL="INFO",
            HINDSIGHT_READERS="1",
            HINDSIGHT_TRACES=f"file:{self.root / name}.traces.jsonl",
        )
        return env

    def traces(self) -> dict[str, set[str]]:
        """Trace id -> the names of its spans, over every process's trace file."""
        out: dict[str, set[str]] = defaultdict(set)
        for path in self.root.glob("*.traces.jsonl"):
            for line in path.read_text().splitlines():
                if line.strip():  # a process killed mid-write leaves a partial last line
                    with contextlib.suppress(json.JSONDecodeError):
                        span = json.loads(line)
                        out[span["context"]["trace_id"]].add(span["name"])
        return out

    def start(self, i: int | str, role: str = "worker", **extra: str) -> None:
        out = open(self.root / f"{role}-{i}.log", "ab")  # noqa: SIM115
        env = self.env(f"{role}-{i}") | extra
        self.procs[i] = subprocess.Popen(
            [sys.executable, "-m", "hindsight_es.app.cli.main", role], env=env, stdout=out, stderr=out
        )

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "hindsight_es.app.cli.main", *args]
        return subprocess.run(argv, env=self.env("cli"), capture_output=True, text=True, timeout=120)

    def kill(self, i: int | str) -> None:
        self.procs[i].send_signal(signal.SIGKILL)
        self.procs[i].wait(10)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in sorted(self.root.glob("*.log")))


async def until_decided(
    log: EventLog, expected: dict[str, list[Decided]], workers: Workers, timeout_s: float
) -> dict[str, list[Decided]]:
    """Wait until every bank has at least its expected number of memory events (then a little more)."""
    deadline = time.monotonic() + timeout_s
    while True:
        found = await memory_events(log)
        if all(len(found.get(b, [])) >= len(v) for b, v in expected.items()):
            await asyncio.sleep(2.0)  # a duplicate decision would land by now
            return await memory_events(log)
        assert time.monotonic() < deadline, f"not decided in {timeout_s:g}s\n{workers.logs()}"
        await asyncio.sleep(0.5)


async def projected(settings: Settings, log: EventLog, workers: Workers, timeout_s: float) -> None:
    """Wait until the shared stores' positions reach the log's end on every topic they project."""
    from hindsight_es.stores.archive import ArchiveStore
    from hindsight_es.stores.location import current, s3_options
    from hindsight_es.stores.shards import open_hot

    deadline = time.monotonic() + timeout_s
    while True:
        stores = current(settings)
        hot, archive = (
            open_hot(stores["lance"], s3_options(settings)),
            ArchiveStore(stores["archive"], s3_options(settings)),
        )
        ends = {(t, p): e for t in ALL_TOPICS for p, e in (await log.end_offsets(t)).items() if e}
        have = {**hot.positions("memories"), **hot.positions("turns")}
        lance_ok = all(have.get(tp, 0) >= e for tp, e in ends.items() if tp[0] in (TOPIC_MEMORIES, TOPIC_TURNS))
        archive_at = archive.positions()
        if lance_ok and all(archive_at.get(tp, 0) >= e for tp, e in ends.items()):
            return
        assert time.monotonic() < deadline, (
            f"not projected in {timeout_s:g}s: {have} {archive_at} {ends}\n{workers.logs()}"
        )
        await asyncio.sleep(0.5)


async def recalled_through_serve(workers: Workers, port: int) -> dict[str, list[str]]:
    from tests.e2e.test_mcp import call, connected, http_client

    out: dict[str, list[str]] = {}
    async with connected(http_client(f"http://127.0.0.1:{port}/mcp", None)) as client:
        for bank in BANKS:
            found = await call(
                client,
                "recall",
                bank=bank,
                query="what do we use, where, which color?",
                include_archived=True,
                min_relevance=0,  # a question about everything: every hit, whatever the floor
            )
            out[bank] = [hit["text"] for hit in found["hits"]]
    return out


async def test_workers_killed_and_restarted_decide_like_one_worker(broker, s3_server, tmp_path):
    first, second, commands = inputs()
    assert {partition_for(b, PARTITIONS) for b in BANKS} == set(range(PARTITIONS))
    expected = await single_worker(tmp_path / "reference", [first, second, commands])
    supersessions = sum(1 for events in expected.values() for e in events if e[0] == "MemorySuperseded")
    assert supersessions >= len(BANKS) and any(e[0] == "SourceRetracted" for v in expected.values() for e in v)
    assert any(e[0] == "MemoryArchived" for v in expected.values() for e in v)

    settings = Settings(broker=broker, partitions=PARTITIONS, **s3_server)
    settings = settings.model_copy(update={"stores_uri": f"{s3_server['stores_uri']}/{tmp_path.name}"})
    log = KafkaLog(settings)
    await log.start()
    workers = Workers(broker, tmp_path, {**s3_server, "stores_uri": settings.stores_uri or ""})
    try:
        for i in range(3):
            workers.start(i)
        await publish(log, first)
        await asyncio.sleep(6)  # joined and deciding
        workers.kill(0)  # mid-stream: its partitions go to the others within the session time-out
        await publish(log, second)
        await asyncio.sleep(3)
        workers.start(0)  # back: a rebalance hands it partitions, loaded from their snapshots and tails
        caused_by = {str(c.event_id) for c in commands}
        of_turns = {b: [e for e in v if e[4] not in caused_by] for b, v in expected.items()}
        await until_decided(log, of_turns, workers, timeout_s=120)
        await publish(log, commands)
        await asyncio.sleep(0.3)
        workers.kill(1)  # while rollbacks and janitor ticks are being decided
        found = await until_decided(log, expected, workers, timeout_s=120)
        for bank in BANKS:
            assert found.get(bank, []) == expected.get(bank, []), f"{bank}:\n{workers.logs()[-4000:]}"

        # The shared stores: every bank recallable through a stateless `serve`, and a rebuild equals them.
        await projected(settings, log, workers, timeout_s=90)
        port = free_port()
        # its recall use is tallied at once, so that it is decided before the verify below, not during it
        workers.start(
            "gateway",
            "serve",
            HINDSIGHT_MCP_PORT=str(port),
            HINDSIGHT_MCP_HOST="127.0.0.1",
            HINDSIGHT_RECALL_TALLY_S="0.5",
        )
        await until_listening(port, workers)
        hits = await recalled_through_serve(workers, port)
        # A turn is one trace across the processes: decided by one worker, projected by its partition's owner.
        whole = [names for names in workers.traces().values() if {"bank-actor.decide", "projection.vectors"} <= names]
        assert len(whole) >= len(BANKS), f"{len(whole)} turns traced from decision to the vectors projection"
        for i, bank in enumerate(BANKS):
            value = VALUES[i % len(PAIRS)]  # what the later turn of the pair states (as a statement or the turn)
            assert any(value in hit for hit in hits[bank]), (bank, hits[bank])
        verified = workers.run("replay", "verify", "--json")
        assert verified.returncode == 0, verified.stdout[-2000:] + verified.stderr[-2000:]

        # Stopped as an operator stops them, each says so; the rebalances above were normal, not errors.
        workers.stop_all()
        assert "hindsight serve stopped cleanly" in (tmp_path / "serve-gateway.log").read_text()
        said = "".join(path.read_text(errors="replace") for path in tmp_path.glob("worker-*.log"))
        assert "hindsight worker stopped cleanly" in said
        assert "CommitFailedError" not in said and " INFO hindsight.kafka: Received" not in said
        assert "Auto create topics is disabled" not in said
    finally:
        workers.stop_all()
        await log.close()


async def until_listening(port: int, workers: Workers, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            assert time.monotonic() < deadline, workers.logs()
            await asyncio.sleep(0.3)


async def test_read_commands_join_no_consumer_group_on_kafka(broker, tmp_path):
    settings = Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "cli")
    log = KafkaLog(settings)
    await log.start()
    try:
        bank = "scale-reader"
        await publish(log, [make_turn(settings, bank, "I live in Oslo.", session_id="s1", turn_id="t1")])
        workers = Workers(broker, tmp_path, {})
        for argv in (["stats", "--json"], ["recall", bank, "where do I live?", "--json"]):
            done = workers.run(*argv)
            assert "Traceback" not in done.stderr, done.stderr
        # Without a broker these commands would have decided the turn in their own process (as a member
        # of the bank actor's group); with one, the turn waits for the workers.
        assert bank not in await memory_events(log)
        assert all(bank not in r.key for rs in [x async for x in replay(log, TOPIC_MEMORIES)] for r in rs if r.key)
    finally:
        await log.close()
