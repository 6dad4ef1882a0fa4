"""The vector encoding events carry: int8 codes with a scale, its error bound, and what it refuses."""

from __future__ import annotations

import numpy as np
import pytest

from hindsight_es.events import vectors


def unit_vectors(n: int, dim: int, seed: int = 1) -> np.ndarray:
    found = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


def test_a_vector_is_a_byte_per_dimension_and_its_scale():
    assert len(vectors.pack(np.ones(896, np.float32))) == 900
    assert vectors.dim(vectors.pack(np.ones(896, np.float32))) == 896


def test_each_component_is_within_half_a_step_and_cosine_barely_moves():
    for vector in unit_vectors(200, 896):
        packed = vectors.pack(vector)
        step = float(np.max(np.abs(vector))) / 127
        decoded = vectors.unpack(packed)
        assert np.max(np.abs(decoded - vector)) <= step / 2 + 1e-6
        assert float(decoded @ vector / np.linalg.norm(decoded)) > 0.9999


def test_packing_what_was_unpacked_gives_the_same_codes():
    for vector in unit_vectors(50, 64, seed=2):
        packed = vectors.pack(vector)
        assert np.array_equal(vectors.codes(vectors.pack(vectors.unpack(packed))), vectors.codes(packed))


def test_cosine_order_of_the_codes_is_the_order_of_the_vectors():
    """The archive searches the codes alone: their cosine is the decoded vectors' cosine."""
    memories, query = unit_vectors(100, 128, seed=4), unit_vectors(1, 128, seed=5)[0]
    codes = np.stack([vectors.codes(vectors.pack(v)).astype(np.float32) for v in memories])
    decoded = np.stack([vectors.unpack(vectors.pack(v)) for v in memories])
    cos = lambda m: (m @ query) / np.linalg.norm(m, axis=1)  # noqa: E731
    assert np.allclose(cos(codes), cos(decoded), atol=1e-6)


def test_zero_and_non_finite_vectors():
    assert np.array_equal(vectors.unpack(vectors.pack(np.zeros(8, np.float32))), np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="NaN or infinite"):
        vectors.pack(np.array([1.0, np.nan], np.float32))
    with pytest.raises(ValueError, match="multiple of 4"):
        vectors.from_float32(b"\x00" * 6)


def test_old_float32_bytes_pack_as_the_floats_do():
    vector = unit_vectors(1, 40, seed=6)[0]
    assert vectors.from_float32(vectors.pack_float32(vector)) == vectors.pack(vector)
    assert np.array_equal(vectors.unpack_float32(vectors.pack_float32(vector)), vector)
