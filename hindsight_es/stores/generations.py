"""Generations of the projection stores: which LanceDB directory and which archive readers open.

``data_dir/current.json`` names, per store (``lance``, ``archive``), the directory that is current,
relative to the data directory. It is replaced in one ``os.replace``, so a process opening the stores
sees the old pointer or the new one, never a torn file. Without it the stores are at their first
location (``lance/``, ``archive/``). Rebuilds write new stores into ``generations/<id>/<store>``;
old ones stay on disk (to switch back to) until ``unused`` lists them for deletion (``replay gc``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from hindsight_es.errors import StoreError

STORES = ("lance", "archive")
POINTER = "current.json"
GENERATIONS = "generations"
SCRATCH = "scratch"


def current(data_dir: Path) -> dict[str, Path]:
    """Store name -> the directory readers open now."""
    pointer = data_dir / POINTER
    try:
        names = json.loads(pointer.read_text(encoding="utf-8"))["stores"]
    except FileNotFoundError:
        names = {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StoreError(f"cannot read the store pointer {pointer}: {exc}") from exc
    return {store: data_dir / names.get(store, store) for store in STORES}


def store_path(data_dir: Path, store: str) -> Path:
    return current(data_dir)[store]


def new_generation(data_dir: Path) -> tuple[str, Path]:
    """A fresh, empty generation directory: (id, path). Ids sort by creation time."""
    gen_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    root = data_dir / GENERATIONS / gen_id
    root.mkdir(parents=True)
    return gen_id, root


def generation_stores(data_dir: Path, gen_id: str) -> dict[str, Path]:
    """The stores a generation holds (store -> path); raises ``StoreError`` for an unknown id."""
    root = data_dir / GENERATIONS / gen_id
    found = {store: root / store for store in STORES if (root / store).is_dir()}
    if not found or "/" in gen_id or gen_id.startswith("."):
        raise StoreError(f"no generation {gen_id!r} in {data_dir / GENERATIONS}")
    return found


def switch(data_dir: Path, stores: Mapping[str, Path]) -> dict[str, Path]:
    """Point readers at ``stores`` (the others stay); one atomic replace of ``current.json``. Returns the old paths."""
    before = current(data_dir)
    after = {**before, **stores}
    body = {
        "stores": {s: os.path.relpath(p, data_dir) for s, p in after.items()},
        "switched_at": datetime.now(UTC).isoformat(),
        "previous": {s: os.path.relpath(p, data_dir) for s, p in before.items()},
    }
    tmp = data_dir / f".{POINTER}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(body, f, indent=2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, data_dir / POINTER)
    finally:
        tmp.unlink(missing_ok=True)
    fd = os.open(data_dir, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
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


def remove(paths: list[Path], data_dir: Path) -> None:
    """Delete store directories, then generation folders left empty."""
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
    generations = data_dir / GENERATIONS
    if generations.is_dir():
        for root in generations.iterdir():
            if root.is_dir() and not any(root.iterdir()):
                root.rmdir()


def scratch_dir(data_dir: Path) -> Path:
    path = data_dir / SCRATCH / (datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3))
    path.mkdir(parents=True)
    return path
