"""The archive's files: every record of every topic in immutable Parquet files, and their positions.

IO only. Files are ``events/topic=<t>/partition=<p>/<first>-<last>.parquet`` under a local directory
or an S3 prefix (``objects``); their names are the positions, and each is written whole under its
final name (locally renamed into place, on S3 one PUT), so rows and position never part. A file whose
range lies inside another's is a compaction leftover and is never read; readers also dedupe by
(topic, partition, offset). Writers of different partitions never touch the same file. DuckDB reads
local files directly, and S3 objects through a pyarrow dataset (no DuckDB extension to download).
Every page carries a CRC32 (Parquet's page checksum); a file is checked whole (structure and every
page's checksum) before a process first reads it, and a damaged one (truncated, bytes overwritten) is
named in a warning and skipped, never served; ``damaged()`` lists them for ``replay verify``, and a
rebuild writes them again from the log. ``archive.ArchiveStore`` adds the queries.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, overload

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hindsight_es.errors import StoreError
from hindsight_es.events import vectors
from hindsight_es.log import TopicPartition
from hindsight_es.stores.archive_parts import Part, small_runs, split_covered, tiered
from hindsight_es.stores.objects import LocalObjects, ObjectStore, S3Objects, S3Options, objects

log_ = logging.getLogger("hindsight.archive")
_TS = pa.timestamp("us", tz="UTC")
_IDS = pa.list_(pa.string())
SCHEMA = pa.schema(
    [
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
        ("timestamp_ms", pa.int64()),
        ("key", pa.string()),
        ("event_id", pa.string()),
        ("type", pa.string()),
        ("schema_version", pa.int32()),
        ("bank_id", pa.string()),
        ("occurred_at", _TS),
        ("causation_id", pa.string()),
        ("actor", pa.string()),
        ("memory_id", pa.string()),
        ("superseded_by", pa.string()),
        ("session_id", pa.string()),
        ("turn_id", pa.string()),
        ("kind", pa.string()),
        ("text", pa.string()),
        ("source_turn_ids", _IDS),
        ("retracted_memory_ids", _IDS),
        ("restored_memory_ids", _IDS),
        ("vector", pa.list_(pa.int8())),  # a MemoryRetained's int8 codes (``vectors.codes``); cosine needs no scale
        ("payload", pa.string()),
    ]
)
# Files written before the codes held float32 vectors: reads see either as float lists (cosine is the same
# for the codes and the vector they encode), and a compaction writes the old ones' as codes.
_READ_SCHEMA = SCHEMA.set(SCHEMA.get_field_index("vector"), pa.field("vector", pa.list_(pa.float32())))
_DICTIONARY = ["topic", "key", "type", "bank_id", "actor", "session_id", "kind"]  # low-cardinality columns only
UNDECODABLE = "undecodable"  # the counts() key of records stored with type NULL
_NAME = re.compile(r"^(\d{20})-(\d{20})\.parquet$")


_KEY = re.compile(r"^events/topic=([^/]+)/partition=(\d+)/")
STALE_TEMPORARY_S = 600.0  # a file write takes seconds; a temp file this old is a killed writer's


class ArchiveFiles:
    """Parquet files under ``root/events`` (a directory or ``s3://bucket/prefix``); DuckDB (one in-memory
    connection per call) to read them."""

    def __init__(self, root: Path | str, options: S3Options | None = None) -> None:
        self.root = root if isinstance(root, str) and root.startswith("s3://") else Path(root)
        self.objects: ObjectStore = objects(self.root, options)
        self._options = options
        self._next: dict[TopicPartition, int] = {}
        self._checked: dict[tuple[str, int], str | None] = {}  # (key, size) -> why it is damaged, None: sound
        self._outdated: set[str] = set()  # checked files whose vectors are floats (a release before the codes)

    # ------------------------------------------------------------ layout and positions

    def _dir(self, topic: str, partition: int) -> str:
        return f"events/topic={topic}/partition={partition}/"

    def _parts(self, topic: str, partition: int) -> list[Part]:
        """Every data file of a topic-partition, by (first, -last); compaction leftovers included."""
        parts = []
        for key, size in self.objects.list(self._dir(topic, partition)):
            if m := _NAME.match(key.rsplit("/", 1)[-1]):
                parts.append(Part(int(m[1]), int(m[2]), key, size))
        return sorted(parts, key=lambda p: (p.first, -p.last))

    def _partitions(self) -> list[TopicPartition]:
        found = {(m[1], int(m[2])) for key, _ in self.objects.list("events/") if (m := _KEY.match(key))}
        return sorted(found)

    def position(self, topic: str, partition: int) -> int:
        """Next offset to archive for one topic-partition (cached after the first look)."""
        if (topic, partition) not in self._next:
            parts = self._parts(topic, partition)
            self._next[(topic, partition)] = max((p.last + 1 for p in parts), default=0)
        return self._next[(topic, partition)]

    def positions(self) -> dict[TopicPartition, int]:
        """Next offset per topic-partition, read from the file names."""
        self._next.clear()
        found = {tp: self.position(*tp) for tp in self._partitions()}
        return {tp: n for tp, n in found.items() if n > 0}

    # ------------------------------------------------------------ writes

    def write(
        self, rows: list[dict[str, Any]] | pa.Table, topic: str, partition: int, first_offset: int, last_offset: int
    ) -> Path | None:
        """Archive the records ``first_offset..last_offset`` in one new file; already-archived offsets are dropped."""
        table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows, schema=_READ_SCHEMA)
        table = _as_codes(table.select(SCHEMA.names)).cast(SCHEMA)
        _check_range(table, first_offset, last_offset)
        start = max(first_offset, self.position(topic, partition))
        if start > first_offset:  # redelivery: keep only what is not archived yet
            table = table.filter(pc.greater_equal(table["offset"], start))
        if start > last_offset or table.num_rows == 0:
            return None
        key = f"{self._dir(topic, partition)}{start:020d}-{last_offset:020d}.parquet"
        self.objects.put(key, _parquet(_dedupe(table)))
        self._next[(topic, partition)] = last_offset + 1
        return Path(key)

    def compact(self, topic: str, partition: int, *, target_bytes: int = 64 << 20, min_files: int = 2) -> int:
        """Merge runs of small consecutive files into one; returns how many files were removed.

        The merged file is written whole before its parts are deleted; until then both are there, and
        readers skip the parts because the merged file's range covers theirs.
        """
        live, covered = split_covered(self._parts(topic, partition))
        removed = self._unlink(covered)
        for run in small_runs(live, target_bytes):
            if len(run) < min_files or any(self._damage(p) is not None for p in run):
                continue  # a damaged file stays as it is, for verify to report and a rebuild to replace
            if len(run := tiered(run, self._outdated)) < min_files:
                continue
            merged = f"{self._dir(topic, partition)}{run[0].first:020d}-{run[-1].last:020d}.parquet"
            self.objects.put(merged, _parquet(_dedupe(pa.concat_tables(self._read(p.key) for p in run))))
            removed += self._unlink([p for p in run if p.key != merged])
        return removed

    def rewrite(self, topic: str, partition: int, edit: Callable[[pa.Table], pa.Table | None]) -> int:
        """Replace each file of a topic-partition that ``edit`` changes (it returns None for "unchanged")
        by its edited rows, under the same name; returns how many files were rewritten."""
        rewritten = 0
        for part in self._parts(topic, partition):
            edited = edit(self._read(part.key))
            if edited is not None:
                self.objects.put(part.key, _parquet(edited.select(SCHEMA.names).cast(SCHEMA)))
                rewritten += 1
        return rewritten

    def topic_partitions(self) -> list[TopicPartition]:
        return self._partitions()

    def _read(self, key: str) -> pa.Table:
        data = self.objects.get(key)
        if data is None:
            raise StoreError(f"archive file {key} vanished")
        return _as_codes(pq.read_table(pa.BufferReader(data)))

    def sweep(self, older_than_s: float = STALE_TEMPORARY_S) -> int:
        """Remove temp files that writers killed mid-write left (``kill -9``); returns how many."""
        return self.objects.sweep("events/", older_than_s)

    def _unlink(self, parts: list[Part]) -> int:
        for part in parts:
            self.objects.delete(part.key)
        return len(parts)

    def compact_all(
        self,
        *,
        target_bytes: int = 64 << 20,
        min_files: int = 2,
        topics: Sequence[str] | None = None,
        partitions: frozenset[int] | None = None,
    ) -> int:
        """``compact`` every topic-partition (of ``topics`` and ``partitions``, when given: a worker
        compacts only the partitions it writes)."""
        return sum(
            self.compact(t, p, target_bytes=target_bytes, min_files=min_files)
            for t, p in self._partitions()
            if (topics is None or t in topics) and (partitions is None or p in partitions)
        )

    # ------------------------------------------------------------ queries

    @overload
    def _query(
        self,
        select: str,
        where: Sequence[str] = (),
        params: dict[str, Any] | None = None,
        topics: Sequence[str] | None = None,
        *,
        arrow: Literal[False] = False,
        prelude: str | None = None,
    ) -> list[dict[str, Any]]: ...

    @overload
    def _query(
        self,
        select: str,
        where: Sequence[str] = (),
        params: dict[str, Any] | None = None,
        topics: Sequence[str] | None = None,
        *,
        arrow: Literal[True],
        prelude: str | None = None,
    ) -> pa.Table: ...

    def _query(
        self,
        select: str,
        where: Sequence[str] = (),
        params: dict[str, Any] | None = None,
        topics: Sequence[str] | None = None,
        *,
        arrow: bool = False,
        prelude: str | None = None,
    ) -> list[dict[str, Any]] | pa.Table:
        """Run ``WITH ev AS (<filtered, deduped archive>) <select>``: a list of dicts ([] when nothing
        is archived), or with ``arrow`` a ``pa.Table``; ``prelude`` adds named subqueries after ``ev``."""
        for attempt in range(5):
            files = self._visible_files(topics)
            if not files:
                return SCHEMA.empty_table() if arrow else []
            remote = not isinstance(self.objects, LocalObjects)
            source = (
                "archive_files" if remote else "read_parquet($files, hive_partitioning = false, union_by_name = true)"
            )
            scan = (
                f"SELECT * FROM {source} "
                f"WHERE {' AND '.join(where) or 'TRUE'} "
                'QUALIFY row_number() OVER (PARTITION BY topic, "partition", "offset") = 1'
            )
            try:
                with duckdb.connect() as con:
                    con.execute("SET TimeZone = 'UTC'")
                    if remote:
                        con.register("archive_files", self._dataset(files))
                    more = f", {prelude}" if prelude else ""  # further named subqueries over ev
                    values = {**(params or {})} | ({} if remote else {"files": files})
                    query = f"WITH ev AS ({scan}){more} {select}"
                    if arrow:
                        return con.sql(query, params=values).to_arrow_table()
                    cursor = con.execute(query, values)
                    names = [d[0] for d in cursor.description]
                    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            except (duckdb.IOException, duckdb.InvalidInputException, OSError, pa.ArrowException) as exc:
                # a file vanished under a compaction (locally an IO error, through a dataset an invalid
                # input): list the files again
                if attempt == 4:
                    raise StoreError(f"archive read failed: {exc}") from exc
        return []

    def _visible_files(self, topics: Sequence[str] | None) -> list[str]:
        """The files to read (local paths, or ``bucket/key`` paths of the S3 objects); damaged ones left out."""
        return [self._file(p.key) for p in self._live_parts(topics) if self._damage(p) is None]

    def _live_parts(self, topics: Sequence[str] | None) -> list[Part]:
        parts = []
        for topic, partition in self._partitions():
            if topics is None or topic in topics:
                parts += split_covered(self._parts(topic, partition))[0]
        return parts

    def damaged(self) -> dict[str, str]:
        """The archive's files that fail their check (key -> why), each checked whole."""
        return {p.key: why for p in self._live_parts(None) if (why := self._damage(p)) is not None}

    def _damage(self, part: Part) -> str | None:
        """Why ``part`` cannot be trusted (checked once per process: files are immutable), or None."""
        if (part.key, part.size) not in self._checked:
            why = None
            try:
                source = self._file(part.key) if isinstance(self.objects, LocalObjects) else self.objects.get(part.key)
                if source is None:
                    return None  # removed meanwhile (a compaction): not damage
                reader = pq.ParquetFile(
                    pa.BufferReader(source) if isinstance(source, bytes) else source, page_checksum_verification=True
                )
                reader.read(columns=[])  # the footer and the row groups' structure
                for group in range(reader.num_row_groups):
                    reader.read_row_group(group)  # every page, decompressed, its CRC checked
                stored = reader.schema_arrow
                if "vector" not in stored.names or stored.field("vector").type != SCHEMA.field("vector").type:
                    self._outdated.add(part.key)  # compacted whatever its size: written anew as codes
            except FileNotFoundError:
                return None
            except (OSError, pa.ArrowException, ValueError) as exc:
                why = f"{type(exc).__name__}: {exc}"
                log_.warning("archive file %s is damaged and is skipped (a rebuild rewrites it): %s", part.key, why)
            self._checked[(part.key, part.size)] = why
        return self._checked[(part.key, part.size)]

    def _file(self, key: str) -> str:
        if isinstance(self.objects, LocalObjects):
            return self.objects.local_path(key)
        assert isinstance(self.objects, S3Objects)
        return "/".join(x for x in (self.objects.bucket, self.objects.prefix, key) if x)

    def _dataset(self, files: list[str]) -> Any:
        import pyarrow.dataset as ds
        from pyarrow.fs import S3FileSystem

        o = self._options or S3Options()
        endpoint = (o.endpoint or "").removeprefix("http://").removeprefix("https://") or None
        fs = S3FileSystem(
            access_key=o.access_key_id,
            secret_key=o.secret_access_key,
            region=o.region or "us-east-1",
            endpoint_override=endpoint,
            scheme="http" if (o.endpoint or "").startswith("http://") else "https",
        )
        return ds.dataset(files, schema=_READ_SCHEMA, format="parquet", filesystem=fs)


def _as_codes(table: pa.Table) -> pa.Table:
    """``table`` with its vectors as int8 codes: float vectors (files from before the codes) are packed."""
    at = table.schema.get_field_index("vector")
    column = table.column(at)
    if not pa.types.is_floating(column.type.value_type):
        return table
    rows = column.to_pylist()
    codes = [None if v is None else vectors.codes(vectors.pack(np.asarray(v, np.float32))).tolist() for v in rows]
    return table.set_column(at, SCHEMA.field("vector"), pa.array(codes, pa.list_(pa.int8())))


def _check_range(table: pa.Table, first: int, last: int) -> None:
    if first > last:
        raise ValueError(f"empty offset range {first}..{last}")
    if table.num_rows and (pc.min(table["offset"]).as_py() < first or pc.max(table["offset"]).as_py() > last):
        raise ValueError(f"rows outside the offset range {first}..{last}")


def _parquet(table: pa.Table) -> bytes:
    """The table as one Parquet file's bytes (written whole, under its final name, by ``objects``)."""
    buffer = io.BytesIO()
    pq.write_table(table, buffer, compression="zstd", use_dictionary=_DICTIONARY, write_page_checksum=True)
    return buffer.getvalue()


def _dedupe(table: pa.Table) -> pa.Table:
    """Rows in offset order, each offset once (no copy when already so)."""
    offsets = table["offset"].to_numpy()
    if (offsets[1:] > offsets[:-1]).all():
        return table
    order = np.argsort(offsets, kind="stable")
    keep = order[np.concatenate(([True], np.diff(offsets[order]) != 0))]
    return table.take(keep)
