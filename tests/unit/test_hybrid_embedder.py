"""The bilingual embedder: one vector serving English and Chinese, weighted by the query's language."""

from __future__ import annotations

import numpy as np

from hindsight_es.embedding import make_embedder
from hindsight_es.text import is_cjk


def test_language_detection():
    assert is_cjk("我以后都用顺丰") and is_cjk("不对，我们用的是 PostgreSQL")
    assert not is_cjk("from now on use FedEx") and not is_cjk("")


def test_vectors_and_query_weights():
    hybrid = make_embedder("hybrid")
    minilm = make_embedder("minilm")
    assert hybrid.dim == 384 + 512 and "minilm" in hybrid.id and "use" in hybrid.id
    en, zh = hybrid.embed(["We moved to Paris last year", "我们去年搬到了巴黎"])
    assert np.allclose(np.linalg.norm(en), 1.0, atol=1e-5)
    assert not zh[:384].any()  # no MiniLM half for Chinese text
    q = hybrid.embed_query("我们搬到哪里了？")
    assert not q[:384].any() and np.isclose(np.linalg.norm(q), 1.0, atol=1e-5)
    q_en = hybrid.embed_query("where did we move?")
    assert q_en[:384].any() and q_en[384:].any()
    assert minilm.embed_query("x").shape == (384,)


def test_cross_lingual_and_english_ranking():
    hybrid = make_embedder("hybrid")
    docs = hybrid.embed(["我们去年搬到了巴黎", "我喜欢吃火锅", "We moved to Paris last year", "I enjoy hot pot"])
    zh_scores = docs @ hybrid.embed_query("我们搬家到哪个城市了？")
    assert zh_scores[0] > zh_scores[1]
    en_scores = docs @ hybrid.embed_query("Which city did we move to?")
    assert en_scores[2] > en_scores[3]
