"""Partition snapshots of an actor's state: objects written once each under their own key.

IO only. Key: ``snapshots/<actor>/partition=<p>/<covered>.<suffix>``, where ``covered`` is the offset
of ``hindsight.memories`` the state was folded up to (exclusive); ``.hsnap`` holds the bytes the caller
encoded (``memory.columnar``: Arrow tables), ``.json.gz`` gzipped JSON (written by earlier releases,
still read). An object is never overwritten (``put_new``), so a reader sees a whole snapshot or none,
on a local disk and on S3 alike. Data, never pickle: a snapshot read from shared storage is never code.
A snapshot that does not decode is skipped: it is a cache, and the caller folds the log instead.
"""

from __future__ import annotations

import gzip
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

from hindsight_es.stores.objects import ObjectStore

log_ = logging.getLogger("hindsight.snapshots")
_NAME = re.compile(r"/(\d{20})\.(hsnap|json\.gz)$")
SUFFIXES = ("hsnap", "json.gz")  # the order ``newest`` tries them in at one offset


class Snapshots:
    def __init__(self, objects: ObjectStore, actor: str) -> None:
        self.objects = objects
        self.actor = actor

    def _prefix(self, partition: int) -> str:
        return f"snapshots/{self.actor}/partition={partition}/"

    def where(self, partition: int, covered: int) -> str:
        """Where the snapshot of ``partition`` covering ``covered`` lies, for a message."""
        return f"{getattr(self.objects, 'uri', '')}/{self._prefix(partition)}{covered:020d}.*"

    def covered(self, partition: int) -> list[int]:
        """The offsets the partition's snapshots cover, newest first."""
        found = {int(m[1]) for key, _ in self.objects.list(self._prefix(partition)) if (m := _NAME.search(key))}
        return sorted(found, reverse=True)

    def write(self, partition: int, covered: int, body: bytes | dict[str, Any]) -> bool:
        """Store a snapshot covering ``[0, covered)`` (bytes: ``.hsnap``; a dict: gzipped JSON); False when
        one covering exactly that exists already."""
        if isinstance(body, bytes):
            return self.objects.put_new(f"{self._prefix(partition)}{covered:020d}.hsnap", body)
        data = gzip.compress(json.dumps(body, separators=(",", ":")).encode("utf-8"), compresslevel=1)
        return self.objects.put_new(f"{self._prefix(partition)}{covered:020d}.json.gz", data)

    def newest(self, partition: int, at_most: int) -> Iterator[tuple[int, bytes | dict[str, Any]]]:
        """Snapshots covering at most ``at_most`` offsets, newest first: the bytes of a ``.hsnap``, the
        decoded body of a ``.json.gz`` (one that does not decode is skipped)."""
        for covered in self.covered(partition):
            if covered > at_most:
                continue  # written over a longer log than this one: not of this log
            for suffix in SUFFIXES:
                key = f"{self._prefix(partition)}{covered:020d}.{suffix}"
                data = self.objects.get(key)
                if data is None:
                    continue
                if suffix == "hsnap":
                    yield covered, data
                    continue
                try:
                    body = json.loads(gzip.decompress(data))
                except (OSError, EOFError, ValueError) as exc:
                    log_.warning("snapshot %s does not decode (%s): skipped", key, exc)
                    continue
                if isinstance(body, dict):
                    yield covered, body

    def _delete(self, partition: int, covered: int) -> None:
        for suffix in SUFFIXES:
            self.objects.delete(f"{self._prefix(partition)}{covered:020d}.{suffix}")

    def drop_through(self, partition: int, offset: int) -> int:
        """Delete the snapshots covering at most ``offset + 1`` offsets (taken before the event at ``offset``:
        an erasure they may hold the content of); returns how many went."""
        old = [c for c in self.covered(partition) if c <= offset]
        for covered in old:
            self._delete(partition, covered)
        return len(old)

    def prune(self, partition: int, keep: int = 2) -> int:
        """Delete all but the ``keep`` newest snapshots of a partition; returns how many went."""
        old = self.covered(partition)[keep:]
        for covered in old:
            self._delete(partition, covered)
        return len(old)
