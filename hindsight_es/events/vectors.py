"""How an event carries an embedding: int8 codes with one float32 scale per vector.

``pack`` is the only encoder and ``unpack`` the only decoder of ``MemoryRetained.vector`` (schema 3
on): ``scale`` (float32, little-endian) followed by one signed byte per dimension, ``x ≈ scale * q``
with ``q = round(x / scale)`` and ``scale = max|x| / 127``, so the largest component keeps its value
(to float32 rounding) and every other one is within ``scale / 2``. A 896-d vector is 900 bytes
instead of 3,584. Cosine is unchanged by the scale, so the archive keeps the codes alone (``codes``).
Sealing wraps these bytes as they are; nothing else in the tree knows the layout.

Schema 1 and 2 events carried float32 little-endian bytes; ``from_float32`` turns those into this
encoding (the upcaster), ``pack_float32``/``unpack_float32`` write and read them (tests of old logs).
"""

from __future__ import annotations

import numpy as np

_SCALE = np.dtype("<f4")
_HEADER = _SCALE.itemsize


def pack(vector: np.ndarray) -> bytes:
    """A float vector -> its compact bytes (see the module)."""
    values = np.asarray(vector, dtype=np.float32).reshape(-1)
    top = float(np.max(np.abs(values))) if values.size else 0.0
    if not np.isfinite(top):
        raise ValueError("a vector to store has a NaN or infinite component")
    scale = np.float32(top / 127.0)
    codes = np.zeros(values.shape, np.int8) if scale == 0 else np.rint(values / scale).clip(-127, 127).astype(np.int8)
    return scale.astype(_SCALE).tobytes() + codes.tobytes()


def unpack(data: bytes) -> np.ndarray:
    """Compact bytes -> the float32 vector they stand for (a new, writable array)."""
    if len(data) < _HEADER:
        raise ValueError(f"a packed vector has at least {_HEADER} bytes, not {len(data)}")
    scale = np.frombuffer(data, _SCALE, count=1)
    out: np.ndarray = np.frombuffer(data, np.int8, offset=_HEADER).astype(np.float32) * scale
    return out


def unpack_many(packed: list[bytes], dim: int) -> np.ndarray:
    """Many vectors of ``dim`` dimensions at once: an (n, dim) float32 array, row i equal to ``unpack(packed[i])``
    (the same float32 product), without a numpy call per vector."""
    raw = np.frombuffer(b"".join(packed), np.uint8).reshape(len(packed), _HEADER + dim)
    scales = raw[:, :_HEADER].copy().view(_SCALE)
    out: np.ndarray = raw[:, _HEADER:].view(np.int8).astype(np.float32) * scales
    return out


def dim(data: bytes) -> int:
    """How many dimensions packed bytes hold."""
    return max(len(data) - _HEADER, 0)


def codes(data: bytes) -> np.ndarray:
    """The int8 codes alone: the vector's direction (what a cosine sees), without its scale."""
    return np.frombuffer(data, np.int8, offset=_HEADER)


def pack_float32(vector: np.ndarray) -> bytes:
    """The schema 1-2 encoding: float32 little-endian, 4 bytes per dimension."""
    return np.asarray(vector, dtype="<f4").reshape(-1).tobytes()


def unpack_float32(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype="<f4").copy()


def from_float32(data: bytes) -> bytes:
    """Schema 1-2 vector bytes -> this encoding."""
    if len(data) % 4:
        raise ValueError(f"a float32 vector's bytes are a multiple of 4, not {len(data)}")
    return pack(unpack_float32(data))
