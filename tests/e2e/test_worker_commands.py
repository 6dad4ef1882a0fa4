"""The CLI's write commands beside `worker` processes on a real broker: `forget` and `erase` publish their
request and wait for the workers' answer, `replay import` appends and leaves the projecting to them, as a
script's `local` does. They never join the workers' consumer groups to run the pipeline themselves (the
broker refuses such a member: its assignor is not the workers'). A worker whose metrics port is taken
stops before it joins a group, and `mcp` on stdio joins none."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time

import pytest

from hindsight_es.app.local import local
from hindsight_es.config import Settings
from tests.conftest import tansu
from tests.e2e.test_scale_out import PARTITIONS, Workers, free_port, until_listening

pytestmark = pytest.mark.kafka
BANK = "ops-1"


async def recalled(workers: Workers, query: str, timeout_s: float = 60) -> list[dict[str, str]]:
    deadline = time.monotonic() + timeout_s
    while True:
        done = workers.run("recall", BANK, query, "--json", "--kind", "fact")
        hits = json.loads(done.stdout)["hits"] if done.returncode == 0 else []
        if hits:
            return hits
        assert time.monotonic() < deadline, f"{done.stdout}{done.stderr}\n{workers.logs()}"
        await asyncio.sleep(1)


async def test_forget_and_erase_are_decided_by_the_workers(broker, tmp_path):
    workers = Workers(broker, tmp_path, {"stores_uri": str(tmp_path / "stores")})  # one key store for all
    try:
        port = free_port()
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port))
        await until_listening(port, workers)
        published = workers.run("publish", "--bank", BANK, "--session", "s1", "--text", "I live in Oslo.")
        assert published.returncode == 0, published.stderr
        workers.run("publish", "--bank", BANK, "--session", "s2", "--text", "We use PostgreSQL.")
        hit = next(h for h in await recalled(workers, "where do I live?") if "Oslo" in h["text"])

        forgot = workers.run("forget", BANK, hit["memory_id"][:8], "--reason", "asked", "--timeout", "60")
        assert forgot.returncode == 0, forgot.stdout + forgot.stderr
        assert "forgot" in forgot.stdout and "InconsistentGroupProtocol" not in forgot.stderr, forgot.stderr

        erased = workers.run("erase", "--bank", BANK, "--session", "s2", "--reason", "user request", "--timeout", "60")
        assert erased.returncode == 0, erased.stdout + erased.stderr
        assert "every store has dropped them" in erased.stdout, erased.stdout + erased.stderr

        exported = workers.run("replay", "export", "--bank", BANK, str(tmp_path / "bank.jsonl"))
        assert exported.returncode == 0, exported.stderr
        imported = workers.run("replay", "import", str(tmp_path / "bank.jsonl"))  # the workers project it
        assert imported.returncode == 0, imported.stdout + imported.stderr
        said = " ".join(imported.stdout.split())  # rich wraps at 80 columns
        assert "appended 0 hindsight.memories, 0 hindsight.commands, 0 hindsight.turns" in said, said

        # a script's `local` beside the workers: they decide its turn, and it waits for them
        stores, script = str(tmp_path / "stores"), tmp_path / "script"
        settings = Settings(broker=broker, partitions=PARTITIONS, data_dir=script, stores_uri=stores, embedder="minilm")
        async with local(settings) as hs:
            kept = await hs.retain(BANK, "I'm allergic to peanuts.", session_id="s3", wait=True, timeout_s=60)
        assert kept.ready and any("peanuts" in m.text for m in kept.retained), kept
    finally:
        workers.stop_all()


async def test_a_worker_whose_metrics_port_is_taken_stops_before_it_joins_a_group(tmp_path):
    # A broker of its own: the module's holds the other tests' turns, sealed with their key stores, which a
    # worker with this one's refuses at its start (exit 1) before it reaches the port.
    with tansu() as broker:
        await _stops_at_the_taken_port(broker, tmp_path)


async def _stops_at_the_taken_port(broker: str, tmp_path) -> None:
    workers = Workers(broker, tmp_path, {"stores_uri": str(tmp_path / "stores")})
    taken = socket.create_server(("127.0.0.1", 0))
    try:
        port = taken.getsockname()[1]
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port))
        rc = workers.procs["w"].wait(120)
        said = (tmp_path / "worker-w.log").read_text()
        assert rc == 2, said[-3000:]  # a setting that cannot be used, as a taken HINDSIGHT_MCP_PORT
        assert f"cannot serve /metrics and /healthz on 127.0.0.1:{port}" in said, said[-3000:]
        assert "HINDSIGHT_METRICS_PORT" in said and "Traceback" not in said, said[-3000:]
        assert "assigned to partitions" not in said, said[-3000:]  # no group was made to rebalance for it
    finally:
        taken.close()
        workers.stop_all()


async def test_mcp_on_stdio_publishes_and_reads_and_joins_no_group(broker, tmp_path):
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from hindsight_es.config import TOPIC_MEMORIES
    from hindsight_es.log import open_log, replay

    workers = Workers(broker, tmp_path, {"stores_uri": str(tmp_path / "stores")})
    bank = "desk-1"  # no other test's worker decides it
    argv = ["-m", "hindsight_es.app.cli.main", "mcp", "--bank", bank]
    params = StdioServerParameters(command=sys.executable, args=argv, env=workers.env("mcp"), cwd=str(tmp_path))
    async with Client(stdio_client(params)) as client:
        done = await client.call_tool("retain", {"text": "I live in Oslo.", "session_id": "s1"})
        assert not done.is_error, done
        await asyncio.sleep(12)  # a member of the bank actor's group would have joined and decided it by now
    log = open_log(Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "reader"))
    await log.start()
    try:
        decided = [r for rs in [x async for x in replay(log, TOPIC_MEMORIES)] for r in rs if r.key == bank]
        assert decided == []  # waits for a worker: the desktop client's process is not one
    finally:
        await log.close()


def test_a_command_on_kafka_leaves_no_data_directory_in_the_working_directory(tmp_path):
    """Found by an operator: `erase` with HINDSIGHT_BROKER set (stores elsewhere, no --data-dir) left
    ./hindsight-data/locks behind, though on Kafka no command runs the pipeline, so none takes that lock.
    A broker of its own: a turn sealed with this test's key store would stop the module's workers."""
    with tansu() as broker:
        _no_local_state(broker, tmp_path)


def _no_local_state(broker: str, tmp_path) -> None:
    from tests.e2e.test_cli import env

    here = tmp_path / "cwd"
    here.mkdir()
    run_env = env(HINDSIGHT_BROKER=broker, HINDSIGHT_STORES_URI=str(tmp_path / "stores"))
    hs = [sys.executable, "-m", "hindsight_es.app.cli.main"]
    for args in (
        ("publish", "--text", "I live in Oslo.", "--bank", "cwd-1", "--session", "s1"),
        ("erase", "--bank", "cwd-1", "--session", "s1", "--reason", "asked", "--timeout", "1"),
    ):
        done = subprocess.run([*hs, *args], cwd=here, env=run_env, capture_output=True, text=True, timeout=120)
        assert done.returncode in (0, 3), done.stderr  # erase: no worker runs, so it may end pending (3)
        assert list(here.iterdir()) == [], (args, list(here.rglob("*")))
