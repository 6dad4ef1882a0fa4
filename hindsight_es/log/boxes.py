"""A sealed box's cipher: a unit's fields as JSON, compressed, then encrypted with AES-GCM.

Fields are compressed before they are encrypted (``compression.pack``) because ciphertext does not
compress, so the log's own compression could not shrink sealed content (``bench storage --turns 1000``
with boxes of plain JSON: 2,714 B a memory on disk, 1,979 unsealed; compressed first, 2,182). A box of
plain JSON, as sealers wrote them before, opens as it is: ``unpack`` returns uncompressed bytes unchanged.
Compressing before encrypting reveals a box's compressed length where its plain length was revealed
before; a box holds one unit's fields, so nothing another party chooses is compressed beside a secret
it does not own.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import zlib
from binascii import a2b_base64
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from hindsight_es.log import compression

__all__ = ["close", "open_box"]


def close(key: bytes, fields: dict[str, Any], aad: bytes) -> tuple[str, str]:
    """``fields`` sealed under ``key``: the nonce and the ciphertext, base64."""
    nonce = os.urandom(12)
    plain = json.dumps(fields, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    sealed = AESGCM(key).encrypt(nonce, compression.pack(plain), aad)
    return _b64(nonce), _b64(sealed)


def open_box(key: bytes, nonce: str | bytes, sealed: str | bytes, aad: bytes) -> bytes | None:
    """The fields' JSON a box holds; None where it does not open (tampered, foreign key, bad encoding)."""
    try:
        # ``a2b_base64`` is what ``base64.b64decode`` calls (not validating): the same bytes, without its
        # Python wrapper (two per box, and every record of a rebuild holds a box)
        return compression.unpack(AESGCM(key).decrypt(a2b_base64(nonce), a2b_base64(sealed), aad))
    except (InvalidTag, ValueError, binascii.Error, zlib.error, KeyError, IndexError):
        return None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
