"""A worker follows `replay rebuild` (which switches the stores) as an operator watches it on a real
broker: it says so in one INFO line naming the generation it left and the one it joined, within seconds
and without waiting for a record, and projects what comes next into the new generation only."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hindsight_es.client import make_turn
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.events import encode
from hindsight_es.log import EventLog, open_log
from hindsight_es.stores import generations
from hindsight_es.stores.shards import open_hot
from tests.e2e.test_scale_out import PARTITIONS, Workers, free_port, until_listening

pytestmark = pytest.mark.kafka
BANK = "switch-1"
SWITCHED = re.compile(
    r" INFO [\w.]+: the stores were switched from generation initial to generation (\S+) \((.+?)\): the projections"
)


async def projected(log: EventLog, lance: Path, workers: Workers, timeout_s: float = 90) -> None:
    """Until the hot store at ``lance`` stands at the log's end on the memory and turn topics."""
    hot = open_hot(lance, None)
    deadline = time.monotonic() + timeout_s
    while True:
        ends = {(t, p): e for t in (TOPIC_MEMORIES, TOPIC_TURNS) for p, e in (await log.end_offsets(t)).items() if e}
        held = hot.positions("memories") | hot.positions("turns")
        if ends and all(held.get(tp, 0) >= end for tp, end in ends.items()):
            return
        assert time.monotonic() < deadline, f"{held} {ends}\n{workers.logs()[-4000:]}"
        await asyncio.sleep(0.5)


async def test_a_worker_says_once_which_generation_it_moved_to_and_projects_there(broker, tmp_path):
    settings = Settings(broker=broker, partitions=PARTITIONS, data_dir=tmp_path / "worker-w")
    log = open_log(settings)  # the worker's own data directory: the same keys and stores
    await log.start()
    workers = Workers(broker, tmp_path, {})
    try:
        port = free_port()
        workers.start("w", HINDSIGHT_METRICS_PORT=str(port))
        await until_listening(port, workers)
        turn = make_turn(settings, BANK, "I live in Oslo.", session_id="s1", turn_id="t1")
        await log.append(TOPIC_TURNS, BANK, [encode(turn)])
        await projected(log, settings.data_dir / "lance", workers)

        argv = [sys.executable, "-m", "hindsight_es.app.cli.main", "replay", "rebuild"]
        rebuilt = subprocess.run(argv, env=workers.env("worker-w"), capture_output=True, text=True, timeout=300)
        assert rebuilt.returncode == 0, rebuilt.stdout[-2000:] + rebuilt.stderr[-2000:]
        new = generations.current(settings.data_dir)
        assert new["lance"] != settings.data_dir / "lance"

        deadline = time.monotonic() + 10  # no record is published meanwhile: the worker notices by itself
        while not SWITCHED.search(said := (tmp_path / "worker-w.log").read_text()):
            assert time.monotonic() < deadline, said[-4000:]
            await asyncio.sleep(0.2)
        (line,) = SWITCHED.findall(said)  # one line for the process, not one per projection
        assert line[0] == new["lance"].parent.name and str(new["lance"]) in line[1]

        later = make_turn(settings, BANK, "I moved to Rome.", session_id="s1", turn_id="t2")
        await log.append(TOPIC_TURNS, BANK, [encode(later)])
        await projected(log, new["lance"], workers)
        old = open_hot(settings.data_dir / "lance", None)
        ends = await log.end_offsets(TOPIC_TURNS)
        assert sum(old.positions("turns").get((TOPIC_TURNS, p), 0) for p in ends) < sum(ends.values())
        assert len(SWITCHED.findall((tmp_path / "worker-w.log").read_text())) == 1
    finally:
        workers.stop_all()
        await log.close()
