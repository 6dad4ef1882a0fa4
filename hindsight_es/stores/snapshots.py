"""Partition snapshots of an actor's state: gzipped JSON objects, each written once under its own key.

IO only. Key: ``snapshots/<actor>/partition=<p>/<covered>.json.gz``, where ``covered`` is the offset
of ``hindsight.memories`` the state was folded up to (exclusive). An object is never overwritten
(``put_new``), so a reader sees a whole snapshot or none, on a local disk and on S3 alike. JSON, not
pickle: a snapshot read from shared storage is data, never code. A snapshot that does not decode is
skipped: it is a cache, and the caller folds the log instead.
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
_NAME = re.compile(r"/(\d{20})\.json\.gz$")


class Snapshots:
    def __init__(self, objects: ObjectStore, actor: str) -> None:
        self.objects = objects
        self.actor = actor

    def _prefix(self, partition: int) -> str:
        return f"snapshots/{self.actor}/partition={partition}/"

    def covered(self, partition: int) -> list[int]:
        """The offsets the partition's snapshots cover, newest first."""
        found = [int(m[1]) for key, _ in self.objects.list(self._prefix(partition)) if (m := _NAME.search(key))]
        return sorted(found, reverse=True)

    def write(self, partition: int, covered: int, body: dict[str, Any]) -> bool:
        """Store a snapshot covering ``[0, covered)``; False when one covering exactly that exists already."""
        data = gzip.compress(json.dumps(body, separators=(",", ":")).encode("utf-8"), compresslevel=1)
        return self.objects.put_new(f"{self._prefix(partition)}{covered:020d}.json.gz", data)

    def newest(self, partition: int, at_most: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """Decoded snapshots covering at most ``at_most`` offsets, newest first; undecodable ones skipped."""
        for covered in self.covered(partition):
            if covered > at_most:
                continue  # written over a longer log than this one: not of this log
            key = f"{self._prefix(partition)}{covered:020d}.json.gz"
            data = self.objects.get(key)
            if data is None:
                continue
            try:
                body = json.loads(gzip.decompress(data))
            except (OSError, EOFError, ValueError) as exc:
                log_.warning("snapshot %s does not decode (%s): skipped", key, exc)
                continue
            if isinstance(body, dict):
                yield covered, body

    def drop_through(self, partition: int, offset: int) -> int:
        """Delete the snapshots covering at most ``offset + 1`` offsets (taken before the event at ``offset``:
        an erasure they may hold the content of); returns how many went."""
        old = [c for c in self.covered(partition) if c <= offset]
        for covered in old:
            self.objects.delete(f"{self._prefix(partition)}{covered:020d}.json.gz")
        return len(old)

    def prune(self, partition: int, keep: int = 2) -> int:
        """Delete all but the ``keep`` newest snapshots of a partition; returns how many went."""
        old = self.covered(partition)[keep:]
        for covered in old:
            self.objects.delete(f"{self._prefix(partition)}{covered:020d}.json.gz")
        return len(old)
