"""One topic read once for two processes of a rebuild: the archive's child (``archive_child``) reads the
records of its topic from the log (reading, inflating and opening sealed content: most of a record's cost
before it is decoded) and passes every batch it reads on its stdout; the rebuild's own process projects
them from there (``Relayed``) instead of reading the log a second time.

A frame is the length of its body (8 bytes, big-endian) and the body, a pickle: a batch (its partition,
the offset its read started from, its records as tuples of ``Record`` fields), or after the last batch
the number of records the child read. The pipe joins a process
to the child it started with the same interpreter and code, so nothing else writes what is unpickled.
"""

from __future__ import annotations

import asyncio
import collections
import pickle
import struct
from collections.abc import Awaitable, Callable
from typing import IO, Any

from hindsight_es.errors import StoreError
from hindsight_es.log import EventLog, Record

_LENGTH = struct.Struct(">Q")
_Fields = tuple[int, int, str | None, bytes, int]  # partition, offset, key, value, timestamp_ms


def write_batch(out: IO[bytes], start: int, records: list[Record]) -> None:
    """A batch read from ``start`` (every record of its partition from ``start`` to its last one)."""
    fields = [(r.partition, r.offset, r.key, r.value, r.timestamp_ms) for r in records]
    body = pickle.dumps((records[0].partition, start, fields), protocol=5)
    out.write(_LENGTH.pack(len(body)))
    out.write(body)
    out.flush()


def write_end(out: IO[bytes], records: int) -> None:
    body = pickle.dumps(records, protocol=5)
    out.write(_LENGTH.pack(len(body)) + body)
    out.flush()


async def read_frame(stream: asyncio.StreamReader) -> Any:
    """The next frame's body, unpickled: a batch (partition, start, fields) or an int (the end); None at EOF."""
    try:
        length = _LENGTH.unpack(await stream.readexactly(_LENGTH.size))[0]
        body = await stream.readexactly(length)
    except asyncio.IncompleteReadError:
        return None
    return await asyncio.to_thread(pickle.loads, body) if length > 1 << 16 else pickle.loads(body)


class Tee:
    """An ``EventLog`` (the child's) that writes every batch read of ``topic`` to ``out``, in read order."""

    def __init__(self, log: EventLog, topic: str, out: IO[bytes]) -> None:
        self.log, self.topic, self.out = log, topic, out

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        records = await self.log.read(topic, partition, start, stop, limit)
        if topic == self.topic and records:
            await asyncio.to_thread(write_batch, self.out, start, records)  # blocks while the reader is behind
        return records

    def __getattr__(self, name: str) -> Any:
        return getattr(self.log, name)


class Relayed:
    """An ``EventLog`` whose reads of ``topic`` return the records a child relays (``Tee``), the others
    the log's. The relay holds every record of one partition from an offset on (each frame names the
    range it was read from, and the child reads each range where the last ended): a read within what it
    holds returns those records, in order, as the log would; a read behind it (records already passed,
    or before its first frame) or past its end reads the log. The relay saves reads, it never decides
    what a read returns. ``failed``: awaited when the relay ends before its end frame (the child died);
    it raises the child's error."""

    def __init__(
        self, log: EventLog, topic: str, stream: asyncio.StreamReader, failed: Callable[[], Awaitable[None]]
    ) -> None:
        self.log, self.topic, self.stream, self.failed = log, topic, stream, failed
        self.records: int | None = None  # the child's count, once its end frame is read
        # Every record of partition ``_partition`` from offset ``_from`` up to ``_to`` is in ``_pending``.
        self._pending: collections.deque[_Fields] = collections.deque()
        self._partition, self._from, self._to = -1, 0, 0

    async def read(self, topic: str, partition: int, start: int, stop: int, limit: int = 1000) -> list[Record]:
        if topic != self.topic:
            return await self.log.read(topic, partition, start, stop, limit)
        while self._partition < partition and self.records is None:  # a read ahead: what is held is passed
            self._pending.clear()
            await self._next()
        out: list[Record] = []
        if partition == self._partition and self._from <= start:
            while len(out) < limit and (self._pending or await self._next(partition)):
                head = self._pending[0]
                if head[1] >= stop:
                    break
                self._pending.popleft()
                self._from = head[1] + 1
                if head[1] >= start:
                    out.append(Record(topic, head[0], head[1], head[2], head[3], head[4]))
        return out or await self.log.read(topic, partition, start, stop, limit)

    async def drain(self) -> int:
        """Read the relay to its end frame (batches no read asked for are dropped); the child's count."""
        while await self._next():
            self._pending.clear()
        if self.records is None:
            await self.failed()
            raise StoreError("the archive's child process ended without reporting its records")
        return self.records

    async def _next(self, partition: int | None = None) -> bool:
        """Read the next frame; whether it continues what is held of ``partition`` (None: any frame). A
        frame starting elsewhere replaces what is held."""
        if self.records is not None:
            return False
        frame = await read_frame(self.stream)
        if frame is None:
            await self.failed()
            raise StoreError("the archive's child process ended before it relayed every record")
        if isinstance(frame, int):
            self.records = frame
            return False
        p, start, fields = frame
        continues = p == self._partition and start == self._to and (partition is None or p == partition)
        if not continues:
            self._pending.clear()
            self._partition, self._from = p, start
        self._pending.extend(fields)
        self._to = fields[-1][1] + 1
        return continues or partition is None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.log, name)
