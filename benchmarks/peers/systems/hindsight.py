"""hindsight through its public surfaces: the ``Hindsight`` client publishes each item as a turn (the turn
id is the item id) and recalls; the ``hindsight-es`` CLI drains the log through the bank actor and the
projections (with no service running, a CLI read first drains the log in its own process).

The embedded log and the stores live in the data directory. Recall runs in this server process with
``now`` set to the bank's newest turn, as hindsight's own LoCoMo bench does. A hit cites the turns it
came from; the ranked, distinct cited turn ids are the answer.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.peers.systems.base import Item, System


def _cli() -> str:
    exe = Path(sys.executable).parent / "hindsight-es"
    return str(exe) if exe.exists() else "hindsight-es"


class HindsightSystem(System):
    name = "hindsight"

    @property
    def embedder_name(self) -> str:
        return "minilm" if self.options["system"] == "hindsight-minilm" else str(self.options.get("embedder", "hybrid"))

    async def start(self) -> None:
        from hindsight_es.client import Hindsight
        from hindsight_es.config import Settings

        self.settings = Settings(data_dir=self.data_dir / "hindsight", embedder=self.embedder_name)
        self.hs = Hindsight(self.settings)
        await self.hs.start()
        await asyncio.to_thread(self.hs.embedder.embed, ["warm-up"])  # the query embedder, loaded untimed
        t0 = time.perf_counter()
        await self.finish()  # the drain on an empty log: the CLI's start-up and model load alone
        self.drain_startup_s = time.perf_counter() - t0
        self.newest: dict[str, datetime] = {}
        self.banks: set[str] = set()

    async def ingest(self, bank: str, items: list[Item]) -> None:
        from hindsight_es.client import make_turn

        turns = []
        for item in items:
            fields: dict[str, object] = {"session_id": item.session or "default", "turn_id": item.id}
            if item.speaker:
                fields["speaker"] = item.speaker
            if item.time:
                fields["occurred_at"] = item.time
                if bank not in self.newest or item.time > self.newest[bank]:
                    self.newest[bank] = item.time
            turns.append(make_turn(self.settings, bank, item.text, **fields))
        await self.hs.publish(turns)
        self.banks.add(bank)

    async def finish(self) -> None:
        env = {**os.environ, "HINDSIGHT_LOG_LEVEL": "WARNING"}
        cmd = [_cli(), "--data-dir", str(self.settings.data_dir), "--embedder", self.embedder_name, "stats", "--json"]
        proc = await asyncio.create_subprocess_exec(
            *cmd, env=env, stdout=subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        _, err = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-2000:]}")

    async def query(self, bank: str, question: str, k: int) -> list[str]:
        now = {"now": self.newest[bank]} if bank in self.newest else {}
        hits = await self.hs.recall(bank, question, limit=k, **now)
        return list(dict.fromkeys(t for h in hits for t in h.source_turn_ids))[:k]

    def config_notes(self) -> list[str]:
        return [
            f"embedder {self.embedder_name}; rule extractor, write-time guard, supersession on (defaults)",
            "embedded SQLite log; ingest = publish + drain by `hindsight-es stats` (its start-up and model load "
            "are inside the ingest time)",
            "recall in the server process through the Python client (records RecallServed, the default)",
        ]

    async def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {"drain_startup_s": round(self.drain_startup_s, 2)}
        for bank in self.banks:
            stats = await self.hs.bank_stats(bank)
            out[bank] = {"memories": stats["memories"], "active_by_kind": stats["active_by_kind"]}
        return out

    async def close(self) -> None:
        if hasattr(self, "hs"):
            await self.hs.close()
