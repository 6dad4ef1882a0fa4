"""Offline embedders: shapes, normalization, batching order, semantics, factory, no network."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest

from hindsight_es.embedding import EMBEDDERS, Embedder, MiniLMEmbedder, USEEmbedder, make_embedder
from hindsight_es.embedding import minilm
from hindsight_es.errors import ConfigError


def _no_network(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("an embedder tried to open a network connection")


def _loaded(embedder: MiniLMEmbedder | USEEmbedder) -> Iterator[Embedder]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", _no_network)
        embedder.load()
        embedder.embed(["warm up"])
    yield embedder


@pytest.fixture(scope="module")
def minilm_embedder() -> Iterator[Embedder]:
    yield from _loaded(MiniLMEmbedder(batch_size=4))


@pytest.fixture(scope="module")
def use_embedder() -> Iterator[Embedder]:
    yield from _loaded(USEEmbedder(batch_size=4))


@pytest.fixture(params=["minilm", "use"])
def embedder(request: pytest.FixtureRequest) -> Embedder:
    return request.getfixturevalue(f"{request.param}_embedder")


def _cos(e: Embedder, a: str, b: str) -> float:
    va, vb = e.embed([a, b])
    return float(va @ vb)


TEXTS = [
    "Caroline went to the LGBTQ support group on 7 May.",
    "",
    "Melanie painted a sunrise over the lake last year, and she is proud of it. " * 3,
    "ok",
    "I'm swamped with the kids & work. What's up with you?",
    "Ünïcödé façade — naïve café",
    "我昨天去超市买了苹果。",
]


def test_shape_dtype_and_unit_rows(embedder: Embedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dim)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input(embedder: Embedder) -> None:
    for empty in ([], ()):
        vectors = embedder.embed(empty)
        assert vectors.shape == (0, embedder.dim)
        assert vectors.dtype == np.float32


def test_deterministic_and_order_preserving(embedder: Embedder) -> None:
    """Batches (size 4 here) are formed out of order; each row must still match its text."""
    once, again = embedder.embed(TEXTS), embedder.embed(TEXTS)
    np.testing.assert_array_equal(once, again)
    alone = np.vstack([embedder.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(once, alone, atol=1e-4)


def test_single_string_is_refused(embedder: Embedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed("not a list")  # type: ignore[arg-type]


def test_minilm_english_semantics(minilm_embedder: Embedder) -> None:
    base = "The cat is sleeping on the sofa."
    paraphrase = _cos(minilm_embedder, base, "A kitten naps on the couch.")
    unrelated = _cos(minilm_embedder, base, "Quarterly revenue grew by twelve percent.")
    assert paraphrase > unrelated + 0.3


def test_use_chinese_and_cross_lingual_semantics(use_embedder: Embedder) -> None:
    base = "我喜欢在周末去公园跑步。"  # I like running in the park at weekends.
    paraphrase = _cos(use_embedder, base, "周末我常去公园慢跑。")
    unrelated = _cos(use_embedder, base, "公司第三季度的收入增长了百分之十二。")
    assert paraphrase > unrelated + 0.2
    english = _cos(use_embedder, base, "I like to go jogging in the park on weekends.")
    english_unrelated = _cos(use_embedder, base, "The company's third-quarter revenue rose twelve percent.")
    assert english > english_unrelated + 0.2


def test_ids_and_dims() -> None:
    assert (MiniLMEmbedder.id, MiniLMEmbedder.dim) == ("minilm-l6-v2-int8@1", 384)
    assert (USEEmbedder.id, USEEmbedder.dim) == ("use-multilingual-v3@1", 512)


def test_make_embedder_caches_per_name() -> None:
    assert set(EMBEDDERS) == {"minilm", "use", "hybrid"}
    first = make_embedder("minilm")
    assert first is make_embedder("minilm")
    assert isinstance(first, MiniLMEmbedder) and isinstance(first, Embedder)
    assert isinstance(make_embedder("use"), USEEmbedder)


def test_make_embedder_unknown_name() -> None:
    with pytest.raises(ValueError, match="minilm, use") as info:
        make_embedder("bert")
    assert isinstance(info.value, ConfigError)


def test_onnx_checksum_mismatch_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm, "ONNX_SHA256", "0" * 64)
    with pytest.raises(ConfigError, match="sha256"):
        minilm.onnx_path()


def test_pack_by_length_respects_both_caps() -> None:
    lengths = np.array([300, 5, 40, 6, 100, 7, 8, 120, 9, 600])
    packed = list(minilm.pack_by_length(lengths, max_items=3, token_budget=256))
    assert sorted(np.concatenate(packed).tolist()) == list(range(len(lengths)))
    for batch in packed:
        assert len(batch) <= 3
        assert len(batch) == 1 or len(batch) * lengths[batch].max() <= 256
    assert [lengths[b].tolist() for b in packed] == [[5, 6, 7], [8, 9, 40], [100, 120], [300], [600]]
