"""The archive of some topics replayed by a child process of ``replay.rebuild`` (``start`` starts it).

Run as ``python -m projections.archive_child`` with a JSON job on stdin (the settings, the archive's
root, the topics, the offsets to replay up to, the batch size, whether to relay); replays those topics
from the log through its own connection into the archive, compacts them, and writes frames on its
stdout (``projections.relay``): with ``relay``, every batch it read, as it reads it (the rebuild's
process projects them instead of reading them again); last, the number of records it read.

A plain child process, not multiprocessing: spawn would import the parent's main module again (the
whole CLI and LanceDB, ~2 s) and oblige every script that rebuilds to guard its ``__main__``. This
module imports only the log, the archive and its projection (~0.9 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from hindsight_es.config import Settings
from hindsight_es.errors import StoreError
from hindsight_es.log import EventLog, TopicPartition, started_log
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.location import s3_options
from hindsight_es.stores.objects import is_remote
from projections.archive import ArchiveProjection
from projections.relay import Relayed, Tee, write_end
from projections.runner import replay_into


def job(
    settings: Settings,
    root: Path | str,
    topics: tuple[str, ...],
    until: dict[TopicPartition, int],
    batch_size: int,
    relay: bool = False,
) -> bytes:
    """The stdin of a child replaying ``topics`` (up to ``until``) into the archive at ``root``."""
    return json.dumps(
        {
            "settings": settings.model_dump(mode="json"),
            "root": str(root),
            "topics": list(topics),
            "until": [[topic, partition, end] for (topic, partition), end in until.items()],
            "batch_size": batch_size,
            "relay": relay,
        }
    ).encode()


class Child:
    """A running child replaying one topic's archive. One process replaying everything is bound by one
    core: decoding and row building are Python, and the GIL runs one at a time."""

    def __init__(self, process: asyncio.subprocess.Process, topic: str) -> None:
        self.process, self.topic = process, topic
        assert process.stdout is not None and process.stderr is not None
        self.stdout: asyncio.StreamReader = process.stdout
        self._stderr = asyncio.create_task(process.stderr.read())  # drained as it comes: the child never blocks on it
        self._relayed: Relayed | None = None

    def relayed(self, log: EventLog) -> Relayed:
        """``log`` with the reads of the child's topic served by the records it relays (a job with ``relay``)."""
        self._relayed = Relayed(log, self.topic, self.stdout, self._failed)
        return self._relayed

    async def finish(self) -> int:
        """Wait for the child to end; the records it read. Raises ``StoreError`` with its error if it failed."""
        relayed = self._relayed or Relayed(_NO_LOG, self.topic, self.stdout, self._failed)
        records = await relayed.drain()
        await self.process.wait()
        await self._failed()
        return records

    async def kill(self) -> None:
        if self.process.returncode is None:  # cancelled (the replay in the parent failed) or interrupted
            self.process.kill()
            await self.process.wait()
        self._stderr.cancel()
        with contextlib.suppress(BaseException):
            await self._stderr

    async def _failed(self) -> None:
        """Raise the child's error if it exited with one (waits for it to exit)."""
        code = await self.process.wait()
        if code != 0:
            err = await self._stderr
            tail = err.decode(errors="replace").strip().splitlines()[-5:]
            raise StoreError(
                f"the archive's replay of {self.topic} in a child process failed (exit {code}): " + " | ".join(tail)
            )


_NO_LOG: Any = None  # a relay that is drained only never reads the log


async def start(
    settings: Settings,
    root: Path | str,
    topic: str,
    until: dict[TopicPartition, int],
    batch_size: int,
    *,
    relay: bool = False,
) -> Child:
    """Start replaying ``topic`` into the archive at ``root`` in a child process, with its own connection
    to the log; with ``relay``, it passes on the records it reads (``Child.relayed``)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "projections.archive_child",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None
    process.stdin.write(job(settings, root, (topic,), until, batch_size, relay))
    process.stdin.close()
    return Child(process, topic)


async def replay(spec: dict[str, Any], out: IO[bytes]) -> int:
    settings = Settings.model_validate(spec["settings"])
    until = {(topic, partition): end for topic, partition, end in spec["until"]}
    async with started_log(settings) as log:
        root = spec["root"]
        topics = tuple(spec["topics"])
        archive = ArchiveProjection(ArchiveStore(root if is_remote(root) else Path(root), s3_options(settings)), topics)
        source: EventLog = Tee(log, topics[0], out) if spec.get("relay") else log
        read = await replay_into(source, [archive], until=until, batch_size=spec["batch_size"], lag=False)
        await archive.maintain()
        return read


def main() -> None:
    out = os.fdopen(os.dup(1), "wb")  # the frames' own descriptor: anything else printing goes to stderr
    os.dup2(2, 1)
    spec = json.loads(sys.stdin.buffer.read())
    write_end(out, asyncio.run(replay(spec, out)))
    out.close()


if __name__ == "__main__":
    main()
