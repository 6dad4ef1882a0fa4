"""What a replay's reads rely on, kept as it was when made cheaper: records built without the dataclass's
``__init__``, boxes' base64 decoded without ``base64.b64decode``'s wrapper, erasures found by two ``in``
tests."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import os
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from hindsight_es.events import ContentErased, ErasureRequested, encode
from hindsight_es.log import boxes, compression
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.log.port import Record, record
from hindsight_es.log.sealed import Sealer
from tests.unit.test_sealed import TURN, memory


@pytest.mark.parametrize("key", [None, "b", "ünï"])
def test_a_record_built_without_init_is_the_record(key: str | None) -> None:
    made, reference = record("t", 3, 2**40, key, b"\xff{}", -1), Record("t", 3, 2**40, key, b"\xff{}", -1)
    assert made == reference and hash(made) == hash(reference) and repr(made) == repr(reference)
    assert dataclasses.astuple(made) == dataclasses.astuple(reference)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.value = b""  # type: ignore[misc]


def _reference_open(key: bytes, nonce: str | bytes, sealed: str | bytes, aad: bytes) -> bytes | None:
    """``boxes.open_box`` as it was, through ``base64.b64decode``."""
    try:
        return compression.unpack(AESGCM(key).decrypt(base64.b64decode(nonce), base64.b64decode(sealed), aad))
    except (InvalidTag, ValueError, binascii.Error):
        return None


def test_a_box_opens_as_through_b64decode() -> None:
    key, aad = AESGCM.generate_key(128), b"event\x00\x01b"
    nonce, sealed = boxes.close(key, {"text": "秘密 secret"}, aad)
    cases: list[tuple[str | bytes, str | bytes]] = [
        (nonce, sealed),
        (nonce.encode(), sealed.encode()),
        (nonce, sealed[:-4]),  # truncated: does not open
        (nonce, sealed.replace("A", "é", 1) if "A" in sealed else "é" + sealed),  # not ASCII
        (nonce, "*" + sealed),  # a character outside the alphabet: skipped by both (not validating)
        (nonce, sealed + "="),
        (base64.b64encode(os.urandom(12)).decode(), sealed),  # another nonce: the tag fails
    ]
    for n, c in cases:
        assert boxes.open_box(key, n, c, aad) == _reference_open(key, n, c, aad)
    assert boxes.open_box(key, nonce, sealed, aad) == b'{"text":"\xe7\xa7\x98\xe5\xaf\x86 secret"}'


def test_an_erasure_read_drops_its_banks_cached_keys(tmp_path: Path) -> None:
    sealer = Sealer(SqliteKeyStore(tmp_path / "keys.sqlite3"))
    values = [sealer.seal(encode(TURN)), sealer.seal(encode(memory(bank_id="c")))]
    sealer.open([Record("t", 0, i, None, v, 0) for i, v in enumerate(values)])
    assert {bank for bank, _ in sealer._cache} == {"b", "c"}
    for erasure in (
        ContentErased(bank_id="b", turn_ids=("t1",)),
        ErasureRequested(bank_id="b", turn_id="t1", units=("turn:t1",)),
    ):
        sealer.open([Record("t", 0, i, None, v, 0) for i, v in enumerate(values)])
        assert {bank for bank, _ in sealer._cache} == {"b", "c"}
        sealer.open([Record("t", 0, 9, None, encode(erasure), 0)])
        assert {bank for bank, _ in sealer._cache} == {"c"}
