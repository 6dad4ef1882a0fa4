"""The archive of one topic replayed by a child process of ``replay.rebuild`` (``start`` starts it), which
relays the records it reads to the rebuild's own projections of that topic (``RelayedLog``).

Run as ``python -m projections.archive_child`` with a JSON job on stdin (the settings, the archive's
root, the topic, the offsets to replay up to, the batch size, whether to relay); replays the topic from
the log through its own connection into the archive and compacts it. Each batch it reads (inflated and
opened) is written to stdout before it is archived, so the topic is read and opened once for both
processes (each decodes it: the archive's rows and the parent's projections need its events); the last
frame is the count of records read. Frames are ``marshal`` data: both ends run the same interpreter.

A plain child process, not multiprocessing: spawn would import the parent's main module again (the
whole CLI and LanceDB, ~2 s) and oblige every script that rebuilds to guard its ``__main__``. This
module imports only the log, the archive and its projection (~0.9 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import marshal
import os
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from hindsight_es.config import Settings
from hindsight_es.errors import StoreError
from hindsight_es.log import Consumer, EventLog, Record, TopicPartition, started_log
from hindsight_es.log.port import record as new_record
from hindsight_es.log.sealed import deciding
from hindsight_es.stores.archive import ArchiveStore
from hindsight_es.stores.location import s3_options
from hindsight_es.stores.objects import is_remote
from projections.archive import ArchiveProjection
from projections.runner import replay_into

_LENGTH = struct.Struct("!Q")  # a frame's length, before it
# Relayed bytes the rebuild may hold unread (it replays the other topics first, while the child reads
# ahead) before the child waits; a frame (a batch) must fit in it.
BUFFER = 1 << 30


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


class Relay:
    """The rebuild's end of a child replaying ``topic`` into the archive: its relayed records, its result.
    One process replaying everything is bound by one core: decoding and row building are Python, and
    the GIL runs one at a time."""

    def __init__(self, child: asyncio.subprocess.Process, topic: str, relays: bool) -> None:
        self.child, self.topic, self.relays = child, topic, relays
        assert child.stderr is not None and child.stdout is not None
        self._out = child.stdout
        self._errors = asyncio.ensure_future(child.stderr.read())  # drained meanwhile: the child never waits on it

    async def read(self, partition: int, start: int, stop: int, limit: int) -> list[Record]:
        """The next batch the child read: the one ``log.read(topic, partition, start, stop, limit)`` returns
        (both replay the same offsets in the same batches, in the same order; partitions no projection
        here reads are passed over)."""
        while (frame := await self._frame())[0] == "records" and frame[1] < partition:
            pass
        if frame[0] != "records" or frame[1:3] != (partition, start) or len(frame[3]) > limit:
            raise StoreError(
                f"the archive's child relayed {self.topic} out of step: {frame[:3]} for {partition}/{start}"
            )
        return [new_record(self.topic, partition, o, key, value, ts) for o, key, value, ts in frame[3] if o < stop]

    async def finish(self) -> int:
        """Wait for the child to end; returns the records it read."""
        while (frame := await self._frame())[0] == "records":
            pass  # partitions past the last one a projection here reads
        if await self.child.wait() != 0:
            raise await self._failed("after its last frame")
        return int(frame[1])

    async def stop(self) -> None:
        """Kill the child if it still runs, and reap it."""
        if self.child.returncode is None:
            self.child.kill()
        await self.child.wait()
        with contextlib.suppress(BaseException):
            await self._errors

    async def _frame(self) -> tuple[Any, ...]:
        try:
            length = _LENGTH.unpack(await self._out.readexactly(_LENGTH.size))[0]
            frame: tuple[Any, ...] = marshal.loads(await self._out.readexactly(length))
        except (asyncio.IncompleteReadError, ValueError, EOFError, TypeError) as exc:
            raise await self._failed(f"{type(exc).__name__}: {str(exc)[:200]}") from None
        return frame

    async def _failed(self, read: str) -> StoreError:
        code = await self.child.wait()
        tail = (await self._errors).decode(errors="replace").strip().splitlines()[-5:]
        return StoreError(
            f"the archive's replay of {self.topic} in a child process failed (exit {code}): "
            + " | ".join(tail or [f"its output ended or broke off ({read})"])
        )


async def start(
    settings: Settings,
    root: Path | str,
    topic: str,
    until: dict[TopicPartition, int],
    batch_size: int,
    *,
    relay: bool,
) -> Relay:
    """Start a child replaying ``topic`` into the archive at ``root``, with its own connection to the log;
    ``relay``: it relays the records it reads (read them through ``RelayedLog``, then ``Relay.finish``)."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "projections.archive_child",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=BUFFER,
    )
    out = Relay(child, topic, relay)
    assert child.stdin is not None
    try:
        child.stdin.write(job(settings, root, (topic,), until, batch_size, relay))
        with contextlib.suppress(ConnectionError):  # a child that failed at once: its error comes with its exit
            await child.stdin.drain()
        child.stdin.close()
    except BaseException:
        await out.stop()
        raise
    return out


class _Tap:
    """An ``EventLog`` that is ``inner`` but for ``read``; subclasses say what a read of ``topic`` does."""

    def __init__(self, inner: EventLog, topic: str) -> None:
        self.inner, self.topic = inner, topic

    async def start(self) -> None:
        await self.inner.start()

    async def close(self) -> None:
        await self.inner.close()

    async def append(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        return await self.inner.append(topic, key, values)

    async def partitions(self, topic: str) -> int:
        return await self.inner.partitions(topic)

    async def end_offsets(self, topic: str) -> dict[int, int]:
        return await self.inner.end_offsets(topic)

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        return await self.inner.read(topic, partition, start, stop, limit)

    async def consumer(self, group: str, topics: Sequence[str]) -> Consumer:
        return await self.inner.consumer(group, topics)


class RelayedLog(_Tap):
    """The rebuild's log: ``relay.topic`` is read from the child (``Relay``), every other topic from ``inner``."""

    def __init__(self, inner: EventLog, relay: Relay) -> None:
        super().__init__(inner, relay.topic)
        self.relay = relay

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        if topic == self.topic:
            return await self.relay.read(partition, start, stop, limit)
        return await self.inner.read(topic, partition, start, stop, limit)


class _Relaying(_Tap):
    """The child's log: what it reads of ``topic`` is also written to ``out``, a frame per read."""

    def __init__(self, inner: EventLog, topic: str, out: BinaryIO) -> None:
        super().__init__(inner, topic)
        self.out = out

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        records = await self.inner.read(topic, partition, start, stop, limit)
        if topic == self.topic:
            rows = [(r.offset, r.key, r.value, r.timestamp_ms) for r in records]
            await asyncio.to_thread(_send, self.out, ("records", partition, start, rows))
        return records


def _send(out: BinaryIO, frame: tuple[Any, ...]) -> None:
    body = marshal.dumps(frame)
    out.write(_LENGTH.pack(len(body)))
    out.write(body)
    out.flush()


async def replay(spec: dict[str, Any], out: BinaryIO) -> int:
    settings = Settings.model_validate(spec["settings"])
    until = {(topic, partition): end for topic, partition, end in spec["until"]}
    (topic,) = spec["topics"]
    async with started_log(settings) as opened:
        log = deciding(opened)  # as the parent's rebuild: refuse content this key store cannot open
        if spec.get("relay"):
            log = _Relaying(log, topic, out)
        root = spec["root"]
        archive = ArchiveProjection(
            ArchiveStore(root if is_remote(root) else Path(root), s3_options(settings)), (topic,)
        )
        read = await replay_into(log, [archive], until=until, batch_size=spec["batch_size"], lag=False)
        await archive.maintain()
        return read


def main() -> None:
    # The frames get stdout's pipe to themselves: whatever else writes to stdout (a print, a handler that
    # took ``sys.stdout`` at import, a C library) writes to stderr instead, never between two frames.
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    records = asyncio.run(replay(json.loads(sys.stdin.buffer.read()), out))
    _send(out, ("done", records))


if __name__ == "__main__":
    main()
