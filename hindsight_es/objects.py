"""Objects under a root: a local directory or an S3 prefix, with the only atomicity both give.

IO only, below the log and the stores (the log's data keys, the stores' tables and files). A ``put``
replaces an object whole (locally: temp file, fsync, rename; on S3 a PUT is atomic per object),
``put_new`` writes only if the key is absent (locally ``O_EXCL`` through a hard link; on S3 a
conditional PUT, ``If-None-Match: *``). Nothing here renames on S3: an object is written once under its
final key. Keys are ``/``-separated paths relative to the root.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

from prometheus_client import Counter

from hindsight_es.config import Settings
from hindsight_es.errors import ConfigError, StoreError

# Requests are what an object store bills and what its servers spend CPU on: an operator reads the
# deployment's rate per turn here (LanceDB's own requests, made by its Rust client, are not counted).
OBJECT_REQUESTS = Counter(
    "hindsight_object_requests", "Requests this process made to the S3 object store (not LanceDB's)", ["operation"]
)
_TEMPORARY = re.compile(r"^\..+\.[0-9a-f]{32}\.tmp$")  # LocalObjects' temp names: .<name>.<uuid hex>.tmp


@dataclass(frozen=True, slots=True)
class S3Options:
    """Where an S3-compatible endpoint is and how to sign requests (``Settings.s3_*``)."""

    endpoint: str | None = None
    region: str | None = None
    access_key_id: str | None = None
    secret_access_key: str | None = None
    allow_http: bool = False

    def lance(self) -> dict[str, str]:
        """LanceDB's ``storage_options``."""
        out = {
            "endpoint": self.endpoint,
            "region": self.region,
            "access_key_id": self.access_key_id,
            "secret_access_key": self.secret_access_key,
        }
        options = {k: v for k, v in out.items() if v}
        if self.allow_http:
            options["allow_http"] = "true"
        return options


def s3_options(settings: Settings) -> S3Options:
    return S3Options(
        endpoint=settings.s3_endpoint,
        region=settings.s3_region,
        access_key_id=settings.s3_access_key_id,
        secret_access_key=settings.s3_secret_access_key,
        allow_http=settings.s3_allow_http,
    )


class ObjectStore(Protocol):
    uri: str

    def put(self, key: str, data: bytes) -> None: ...

    def put_new(self, key: str, data: bytes) -> bool:
        """Write only if ``key`` is absent; False when it exists (nothing written)."""

    def get(self, key: str) -> bytes | None: ...

    def list(self, prefix: str) -> list[tuple[str, int]]:
        """(key, size in bytes) of every object under ``prefix`` (recursively), sorted by key."""

    def delete(self, key: str) -> None: ...

    def sweep(self, prefix: str, older_than_s: float) -> int:
        """Remove what interrupted writes left under ``prefix`` (older than ``older_than_s``); returns how many."""


def is_remote(uri: str | Path) -> bool:
    return str(uri).startswith("s3://")


def join(uri: str | Path, *parts: str) -> str | Path:
    """``uri`` with path parts appended (a ``Path`` stays a ``Path``)."""
    if isinstance(uri, Path):
        return uri.joinpath(*parts)
    return "/".join([uri.rstrip("/"), *parts])


class LocalObjects:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.uri = str(self.root)

    def _path(self, key: str) -> Path:
        return self.root / key

    def put(self, key: str, data: bytes) -> None:
        self._install(key, data, os.replace)

    def put_new(self, key: str, data: bytes) -> bool:
        try:
            self._install(key, data, os.link)  # link fails if the key exists: the local conditional put
        except FileExistsError:
            return False
        return True

    def _install(self, key: str, data: bytes, install: Callable[[Path, Path], None]) -> None:
        """Write ``data`` to a temporary file beside the key, durably, then ``install`` it at the key."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            install(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        _fsync_dir(path.parent)

    def get(self, key: str) -> bytes | None:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            return None

    def list(self, prefix: str) -> list[tuple[str, int]]:
        base = self._path(prefix)
        folder = base if base.is_dir() else base.parent
        if not folder.is_dir():
            return []
        out = []
        for dirpath, _, files in os.walk(folder):
            for name in files:
                if name.startswith("."):
                    continue
                path = Path(dirpath, name)
                key = path.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    try:
                        out.append((key, path.stat().st_size))
                    except FileNotFoundError:  # removed meanwhile (a compaction)
                        continue
        return sorted(out)

    def local_path(self, key: str) -> str:
        """Where a key is on disk (readers such as DuckDB open local files directly)."""
        return str(self._path(key))

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def sweep(self, prefix: str, older_than_s: float) -> int:
        """Remove the temporary files (``.<name>.<uuid hex>.tmp``) of writes killed before their rename.
        Only old ones: a younger one may be a live writer's, in another process, about to be renamed."""
        folder = self._path(prefix)
        if not folder.is_dir():
            return 0
        cutoff, removed = time.time() - older_than_s, 0
        for dirpath, _, files in os.walk(folder):
            for name in files:
                if _TEMPORARY.match(name):
                    path = Path(dirpath, name)
                    with contextlib.suppress(FileNotFoundError):
                        if path.stat().st_mtime < cutoff:
                            path.unlink()
                            removed += 1
        return removed


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class S3Objects:
    """Objects under ``s3://bucket/prefix`` through obstore (conditional puts, no renames)."""

    def __init__(self, uri: str, options: S3Options) -> None:
        from obstore.store import S3Store

        parsed = urlparse(uri)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise ConfigError(f"{uri!r} is not an s3://bucket/prefix URI")
        self.uri = uri.rstrip("/")
        self.bucket, self.prefix = parsed.netloc, parsed.path.strip("/")
        config: dict[str, Any] = {
            k: v
            for k, v in {
                "endpoint": options.endpoint,
                "region": options.region,
                "access_key_id": options.access_key_id,
                "secret_access_key": options.secret_access_key,
            }.items()
            if v
        }
        self._store = S3Store(self.bucket, prefix=self.prefix or None, allow_http=options.allow_http, **config)

    def _call(self, operation: str, key: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        OBJECT_REQUESTS.labels(operation).inc()
        try:
            return fn(self._store, *args, **kwargs)
        except FileNotFoundError:
            raise
        except Exception as exc:  # obstore raises its own error classes per failure kind
            if type(exc).__name__ in ("NotFoundError",):
                raise FileNotFoundError(str(exc)) from exc
            if type(exc).__name__ in ("AlreadyExistsError", "PreconditionError"):
                raise FileExistsError(str(exc)) from exc
            raise StoreError(f"{operation} {key} on {self.uri}: {type(exc).__name__}: {exc}") from exc

    def put(self, key: str, data: bytes) -> None:
        import obstore

        self._call("put", key, obstore.put, key, data)

    def put_new(self, key: str, data: bytes) -> bool:
        import obstore

        try:
            self._call("put-if-absent", key, obstore.put, key, data, mode="create")
        except FileExistsError:
            return False
        return True

    def get(self, key: str) -> bytes | None:
        import obstore

        try:
            return bytes(self._call("get", key, obstore.get, key).bytes())
        except FileNotFoundError:
            return None

    def list(self, prefix: str) -> list[tuple[str, int]]:
        import obstore

        found = self._call("list", prefix, lambda s: obstore.list(s, prefix).collect())
        return sorted((str(m["path"]), int(m["size"])) for m in found)

    def sweep(self, prefix: str, older_than_s: float) -> int:
        return 0  # one PUT per object: an interrupted write leaves nothing

    def delete(self, key: str) -> None:
        import obstore

        try:
            self._call("delete", key, obstore.delete, key)
        except FileNotFoundError:
            return


def objects(uri: str | Path, options: S3Options | None = None) -> ObjectStore:
    """The object store at ``uri``: a local directory, or ``s3://bucket/prefix``."""
    if is_remote(uri):
        return _s3(str(uri).rstrip("/"), options or S3Options())
    return LocalObjects(Path(uri))


@functools.lru_cache(maxsize=64)
def _s3(uri: str, options: S3Options) -> S3Objects:
    # One client per (location, credentials): building one costs more than the small reads the
    # pointers and layouts make on every batch. obstore's clients are safe to share between threads.
    return S3Objects(uri, options)
