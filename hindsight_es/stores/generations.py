"""Generations of the projection stores: which LanceDB directory and which archive readers open.

``<root>/current.json`` names, per store (``lance``, ``archive``), the directory that is current,
relative to the stores' root (the data directory, or ``HINDSIGHT_STORES_URI``). It is replaced whole
(locally one ``os.replace``; on S3 one PUT, atomic per object), so a process opening the stores sees
the old pointer or the new one, never a torn file. Without it the stores are at their first location
(``lance/``, ``archive/``). Rebuilds write new stores into ``generations/<id>/<store>``; old ones stay
(to switch back to) until ``unused`` lists them for deletion (``replay gc``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hindsight_es.errors import StoreError
from hindsight_es.stores.objects import S3Options, is_remote, join, objects

STORES = ("lance", "archive")
POINTER = "current.json"
GENERATIONS = "generations"
SCRATCH = "scratch"


Root = Path | str  # a directory, or s3://bucket/prefix


def current(data_dir: Root, options: S3Options | None = None) -> dict[str, Any]:
    """Store name -> the directory (``Path``, or an ``s3://`` URI) readers open now."""
    try:
        data = objects(data_dir, options).get(POINTER)
        names = json.loads(data)["stores"] if data is not None else {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"cannot read the store pointer {join(data_dir, POINTER)}: {exc}") from exc
    return {store: join(data_dir, names.get(store, store)) for store in STORES}


def store_path(data_dir: Path, store: str) -> Path:
    found: Path = current(data_dir)[store]
    return found


def new_generation(data_dir: Root) -> tuple[str, Any]:
    """A fresh, empty generation directory: (id, path or URI). Ids sort by creation time."""
    gen_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    root = join(data_dir, GENERATIONS, gen_id)
    if isinstance(root, Path):
        root.mkdir(parents=True)
    return gen_id, root


def generation_stores(data_dir: Root, gen_id: str, options: S3Options | None = None) -> dict[str, Any]:
    """The stores a generation holds (store -> path); raises ``StoreError`` for an unknown id."""
    root = join(data_dir, GENERATIONS, gen_id)
    if isinstance(root, Path):
        held = {store for store in STORES if (root / store).is_dir()}
    else:
        prefix = f"{GENERATIONS}/{gen_id}/"
        held = {key[len(prefix) :].split("/", 1)[0] for key, _ in objects(data_dir, options).list(prefix)}
    found = {store: join(root, store) for store in STORES if store in held}
    if not found or "/" in gen_id or gen_id.startswith("."):
        raise StoreError(f"no generation {gen_id!r} in {join(data_dir, GENERATIONS)}")
    return found


def named(data_dir: Root, stores: Mapping[str, Any]) -> str:
    """The generation ``stores`` (as ``current`` gives them) belong to, for a log line: its id, or
    ``initial`` for the first location; each store's when they differ (a one-projection rebuild)."""
    names = {}
    for store, path in sorted(stores.items()):
        parts = _relative(path, data_dir).split("/")
        names[store] = parts[1] if len(parts) == 3 and parts[0] == GENERATIONS else "initial"
    if len(set(names.values())) == 1:
        return f"generation {next(iter(names.values()))}"
    return ", ".join(f"{store} in generation {name}" for store, name in names.items())


def _relative(path: Any, data_dir: Root) -> str:
    if is_remote(data_dir):
        return str(path).removeprefix(str(data_dir).rstrip("/") + "/")
    return os.path.relpath(path, data_dir)


def switch(data_dir: Root, stores: Mapping[str, Any], options: S3Options | None = None) -> dict[str, Any]:
    """Point readers at ``stores`` (the others stay); one whole replace of ``current.json``. Returns the old paths."""
    before = current(data_dir, options)
    after = {**before, **stores}
    body = {
        "stores": {s: _relative(p, data_dir) for s, p in after.items()},
        "switched_at": datetime.now(UTC).isoformat(),
        "previous": {s: _relative(p, data_dir) for s, p in before.items()},
    }
    objects(data_dir, options).put(POINTER, json.dumps(body, indent=2).encode("utf-8"))
    return before


def unused(data_dir: Path) -> list[Path]:
    """Store directories no reader is pointed at (old generations, the first location once replaced),
    and scratch left by an interrupted verify."""
    live = set(current(data_dir).values())
    candidates = [data_dir / store for store in STORES]
    generations = data_dir / GENERATIONS
    if generations.is_dir():
        candidates += [root / store for root in sorted(generations.iterdir()) for store in STORES]
    out = [p for p in candidates if p.is_dir() and p not in live]
    if (data_dir / SCRATCH).is_dir():
        out += sorted((data_dir / SCRATCH).iterdir())
    return out


def unused_remote(root: str, options: S3Options | None = None) -> list[tuple[str, int, int]]:
    """``unused`` on object storage: (URI, objects, bytes) of each store prefix no reader is pointed at."""
    live = {str(p).rstrip("/") for p in current(root, options).values()}
    sizes: dict[str, tuple[int, int]] = {}
    store = objects(root, options)
    for prefix in (*STORES, GENERATIONS):
        for key, size in store.list(prefix + "/"):
            parts = key.split("/")
            top = parts[:1] if parts[0] in STORES else parts[:3] if len(parts) > 3 and parts[2] in STORES else []
            if top:
                uri = str(join(root, *top))
                n, b = sizes.get(uri, (0, 0))
                sizes[uri] = (n + 1, b + size)
    return [(uri, n, b) for uri, (n, b) in sorted(sizes.items()) if uri not in live]


def remove(paths: list[Path], data_dir: Path) -> None:
    """Delete store directories, then generation folders left empty."""
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
    generations = data_dir / GENERATIONS
    if generations.is_dir():
        for root in generations.iterdir():
            if root.is_dir() and not any(root.iterdir()):
                root.rmdir()


def scratch_dir(data_dir: Path, *, read_only: bool = False) -> Path:
    """A new directory for a verify's rebuild: under the data directory (``gc`` removes one an interrupted
    verify left), or, when the data directory is ``read_only``, under the system's temporary directory."""
    if read_only:
        return Path(tempfile.mkdtemp(prefix="hindsight-verify-"))
    path = data_dir / SCRATCH / (datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3))
    path.mkdir(parents=True)
    return path
