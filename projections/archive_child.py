"""The archive of some topics replayed by a child process of ``replay.rebuild`` (``run`` starts it).

Run as ``python -m projections.archive_child`` with a JSON job on stdin (the settings, the archive's
root, the topics, the offsets to replay up to, the batch size); replays those topics from the log
through its own connection into the archive, compacts them, and prints ``{"records": n}``.

A plain child process, not multiprocessing: spawn would import the parent's main module again (the
whole CLI and LanceDB, ~2 s) and oblige every script that rebuilds to guard its ``__main__``. This
module imports only the log, the archive and its projection (~0.9 s).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from hindsight_es.config import Settings
from hindsight_es.errors import StoreError
from hindsight_es.log import TopicPartition, started_log
from hindsight_es.log.sealed import deciding
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.location import s3_options
from hindsight_es.stores.objects import is_remote
from projections.archive import ArchiveProjection
from projections.runner import replay_into


def job(
    settings: Settings, root: Path | str, topics: tuple[str, ...], until: dict[TopicPartition, int], batch_size: int
) -> bytes:
    """The stdin of a child replaying ``topics`` (up to ``until``) into the archive at ``root``."""
    return json.dumps(
        {
            "settings": settings.model_dump(mode="json"),
            "root": str(root),
            "topics": list(topics),
            "until": [[topic, partition, end] for (topic, partition), end in until.items()],
            "batch_size": batch_size,
        }
    ).encode()


async def run(
    settings: Settings, root: Path | str, topic: str, until: dict[TopicPartition, int], batch_size: int
) -> int:
    """Replay ``topic`` into the archive at ``root`` in a child process, with its own connection to the
    log; returns the records it read. One process replaying everything is bound by one core: decoding
    and row building are Python, and the GIL runs one at a time."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "projections.archive_child",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await child.communicate(job(settings, root, (topic,), until, batch_size))
    finally:
        if child.returncode is None:  # cancelled (the replay in the parent failed) or interrupted
            child.kill()
            await child.wait()
    if child.returncode != 0:
        tail = err.decode(errors="replace").strip().splitlines()[-5:]
        raise StoreError(
            f"the archive's replay of {topic} in a child process failed (exit {child.returncode}): " + " | ".join(tail)
        )
    return int(json.loads(out)["records"])


async def replay(spec: dict[str, Any]) -> int:
    settings = Settings.model_validate(spec["settings"])
    until = {(topic, partition): end for topic, partition, end in spec["until"]}
    async with started_log(settings) as opened:
        log = deciding(opened)  # as the parent's rebuild: refuse content this key store cannot open
        root = spec["root"]
        archive = ArchiveProjection(
            ArchiveStore(root if is_remote(root) else Path(root), s3_options(settings)), tuple(spec["topics"])
        )
        read = await replay_into(log, [archive], until=until, batch_size=spec["batch_size"], lag=False)
        await archive.maintain()
        return read


def main() -> None:
    records = asyncio.run(replay(json.loads(sys.stdin.buffer.read())))
    print(json.dumps({"records": records}))


if __name__ == "__main__":
    main()
