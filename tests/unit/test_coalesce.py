"""Concurrent query embeddings run as batches, each caller getting its own text's vector."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from hindsight_es.embedding.coalesce import Coalesced
from hindsight_es.embedding.use import USEEmbedder


class Gated:
    """An embed function that holds its first call until released, so later callers must queue."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.batches: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        if len(self.batches) == 1:
            self.started.set()
            assert self.release.wait(10)
        if any(t == "boom" for t in texts):
            raise RuntimeError("model failed")
        return np.array([[float(len(t)), float(ord(t[0]))] for t in texts], dtype=np.float32)


def test_callers_arriving_during_a_call_share_the_next_one() -> None:
    fn = Gated()
    coalesced = Coalesced(fn, max_batch=8)
    texts = ["first", *[f"q{i:02d}" for i in range(12)]]
    with ThreadPoolExecutor(len(texts)) as pool:
        first = pool.submit(coalesced, texts[0])
        assert fn.started.wait(10)
        rest = [pool.submit(coalesced, t) for t in texts[1:]]
        while len(coalesced._queue) < 12:  # every later caller is queued behind the held call
            threading.Event().wait(0.005)
        fn.release.set()
        results = [first.result(10), *(f.result(10) for f in rest)]
    for text, vector in zip(texts, results, strict=True):
        assert vector.tolist() == [float(len(text)), float(ord(text[0]))]
    assert fn.batches[0] == ["first"]
    assert [len(b) for b in fn.batches[1:]] == [8, 4]  # queued texts in order, at most max_batch a call
    assert sorted(t for b in fn.batches for t in b) == sorted(texts)


def test_an_idle_caller_runs_alone_at_once() -> None:
    calls: list[list[str]] = []

    def embed(texts: Sequence[str]) -> np.ndarray:
        calls.append(list(texts))
        return np.ones((len(texts), 3), dtype=np.float32)

    coalesced = Coalesced(embed)
    assert coalesced("a").shape == (3,)
    assert coalesced("b").shape == (3,)
    assert calls == [["a"], ["b"]]


def test_a_failed_call_fails_each_of_its_callers_and_not_the_next() -> None:
    fn = Gated()
    coalesced = Coalesced(fn)
    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(coalesced, "first")
        assert fn.started.wait(10)
        doomed = [pool.submit(coalesced, t) for t in ("boom", "beside")]
        while len(coalesced._queue) < 2:
            threading.Event().wait(0.005)
        fn.release.set()
        assert first.result(10).tolist() == [5.0, float(ord("f"))]
        for future in doomed:
            with pytest.raises(RuntimeError, match="model failed"):
                future.result(10)
    assert coalesced("after").tolist() == [5.0, float(ord("a"))]


def test_use_queries_embedded_together_match_each_alone() -> None:
    use = USEEmbedder()
    texts = ["Where did I grow up?", "我住在哪个城市？", "What did Melanie paint recently?", "hi"] * 4
    alone = np.stack([use.embed([t])[0] for t in texts])
    with ThreadPoolExecutor(8) as pool:
        together = np.stack(list(pool.map(use.embed_query, texts)))
    assert np.abs(together - alone).max() < 1e-5
    assert use._queries.texts == len(texts)
