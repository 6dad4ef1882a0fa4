"""The sealer: personal fields encrypted per unit, opened while the key exists, a placeholder after."""

from __future__ import annotations

import base64
import json
import struct
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import numpy as np
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from hindsight_es.events import (
    CorrectionRequested,
    ExtractionCompleted,
    MemoryRestored,
    MemoryRetained,
    TurnRecorded,
    decode,
    encode,
    vectors,
)
from hindsight_es.events.candidates import Candidate
from hindsight_es.events.inputs import TurnExtraction
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.log import compression
from hindsight_es.log.keys import SqliteKeyStore, UnitTags
from hindsight_es.log.port import Record
from hindsight_es.log.sealed import Sealer

NOW = datetime(2026, 12, 1, tzinfo=UTC)
VECTOR = np.arange(1, 9, dtype="<f4")
TURN = TurnRecorded(
    bank_id="b", session_id="s1", turn_id="t1", text="秘密 secret 42", speaker="Ann", metadata={"k": "v"}
)


def memory(**kw: object) -> MemoryRetained:
    fields: dict[str, object] = dict(
        bank_id="b", memory_id=uuid4(), kind="fact", text="Ann's secret is 42", key="ann/secret", value="42",
        entities=("Ann",), session_id="s1", source_turn_ids=("t1",), valid_from=NOW, vector=VECTOR.tobytes(),
        embedder="e", extractor="x",
    )  # fmt: skip
    return MemoryRetained(**(fields | kw))


def opened(sealer: Sealer, value: bytes) -> object:
    return decode(sealer.open([Record("t", 0, 0, "b", value, 0)])[0].value)


def test_every_sealed_event_round_trips_and_holds_no_plaintext(tmp_path: Path) -> None:
    sealer = Sealer(SqliteKeyStore(tmp_path / "keys.sqlite3"))
    retained = memory()
    events = [
        TURN,
        retained,
        MemoryRestored(bank_id="b", memory_id=retained.memory_id, revived=retained),
        CorrectionRequested(bank_id="b", memory_id=retained.memory_id, text="Ann's secret is 43"),
        ExtractionCompleted(
            bank_id="b",
            extractor="rules/1",
            extractions=(TurnExtraction(turn=TURN, candidates=(Candidate(kind="fact", text="secret 42"),)),),
        ),
    ]
    for event in events:
        sealed = sealer.seal(encode(event))
        # "Ann" as it would show in plaintext JSON (the speaker, an entity, a text): three letters alone are
        # found in the sealed boxes' base64 by chance, now and then (a flaky test, not a leak)
        assert b"secret" not in sealed and b'"Ann"' not in sealed and b"Ann's" not in sealed
        assert VECTOR.tobytes()[:8] not in sealed
        assert opened(sealer, sealed) == event


def test_destroyed_keys_read_as_a_placeholder_and_leave_no_bytes(tmp_path: Path) -> None:
    keys = SqliteKeyStore(tmp_path / "keys.sqlite3")
    sealer = Sealer(keys)
    retained = memory()
    sealed_turn, sealed_memory = sealer.seal(encode(TURN)), sealer.seal(encode(retained))
    units = keys.select("b", session_id="s1")
    assert sorted(units) == sorted(["turn:t1", f"memory:{retained.memory_id}"])
    key_bytes = [k for k in keys.lookup("b", units).values() if isinstance(k, bytes)]
    keys.destroy("b", units, by="operator", reason="gdpr", at=NOW)
    other = Sealer(keys)  # another process: it never held the keys
    for reader in (sealer, other):
        turn = opened(reader, sealed_turn)
        assert isinstance(turn, TurnRecorded)
        assert turn.text == "[erased by operator at 2026-12-01T00:00:00+00:00: gdpr]" and turn.speaker is None
        assert is_erased_turn(turn.text, turn.metadata)
        mem = opened(reader, sealed_memory)
        assert isinstance(mem, MemoryRetained)
        assert mem.text == turn.text and mem.key is None and mem.entities == ()
        assert len(mem.vector) == len(retained.vector) and not mem.embedding().any()
    raw = (tmp_path / "keys.sqlite3").read_bytes()
    assert key_bytes and not any(k in raw for k in key_bytes)
    # a memory decided later from the erased turn is born erased: nothing sealed under a live key
    late = memory(text="Ann's secret is still 42")
    assert b"still 42" not in sealer.seal(encode(late))


def test_unsealed_records_pass_through(tmp_path: Path) -> None:
    sealer = Sealer(SqliteKeyStore(tmp_path / "keys.sqlite3"))
    old = encode(TURN)  # as an older release wrote it
    assert sealer.open([Record("t", 0, 0, "b", old, 0)])[0].value == old
    assert not is_erased_turn("[erased by x at y]", {"erased_by": "x"})


async def test_a_log_opens_only_with_its_own_keys_and_a_bare_read_decodes_as_erased(tmp_path: Path) -> None:
    """No key store outlives its log or opens another's records: the same bank and turn sealed in two
    data directories open only through their own log; read past it (a bare adapter, a foreign reader),
    every sealed record still decodes, as the placeholder, and its keys are released on close."""
    from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
    from hindsight_es.log import open_log
    from hindsight_es.log.embedded import EmbeddedLog

    written = {}
    for name in ("a", "b"):
        settings = Settings(data_dir=tmp_path / name, partitions=1)
        log = open_log(settings)
        await log.start()
        turn = TURN.model_copy(update={"text": f"secret of {name}"})
        retained = memory(text=f"memory of {name}")
        await log.append(TOPIC_TURNS, "b", [encode(turn)])
        await log.append(TOPIC_MEMORIES, "b", [encode(retained)])
        assert [decode(r.value) for r in await log.read(TOPIC_TURNS, 0, 0, 1)] == [turn]
        await log.close()
        written[name] = settings, turn, retained
        assert log.sealer.keys._con is None  # type: ignore[attr-defined]  # released with its log
    for _, (settings, turn, retained) in written.items():
        bare = EmbeddedLog(settings.log_path, 1)
        await bare.start()
        raw_turn = (await bare.read(TOPIC_TURNS, 0, 0, 1))[0].value
        raw_memory = (await bare.read(TOPIC_MEMORIES, 0, 0, 1))[0].value
        await bare.close()
        assert turn.text.encode() not in raw_turn and b"memory of" not in raw_memory
        seen = decode(raw_turn)
        assert isinstance(seen, TurnRecorded) and seen.text == "[erased]" and seen.turn_id == turn.turn_id
        mem = decode(raw_memory)
        assert isinstance(mem, MemoryRetained) and mem.text == "[erased]" and mem.quote is None
        assert mem.memory_id == retained.memory_id and not mem.embedding().any() and len(mem.vector) == 32
        reopened = open_log(settings)  # its own log opens it again, with nothing from the other directory
        await reopened.start()
        assert decode((await reopened.read(TOPIC_TURNS, 0, 0, 1))[0].value) == turn
        await reopened.close()


def test_a_sealed_record_opens_to_the_same_event_whatever_its_json_layout(tmp_path: Path) -> None:
    """The sealer's own layout is opened in its bytes, any other by parsing: the events must not differ."""
    sealer = Sealer(SqliteKeyStore(tmp_path / "keys.sqlite3"))
    retained = memory()
    for event in (TURN, retained, MemoryRestored(bank_id="b", memory_id=retained.memory_id, revived=retained)):
        sealed = sealer.seal(encode(event))
        record = json.loads(sealed)
        shuffled = {k: record[k] for k in reversed(record)}  # the envelope last
        for value in (sealed, json.dumps(shuffled, separators=(",", ":")).encode()):
            assert opened(sealer, value) == event


def test_sealed_content_is_stored_compressed_and_boxes_sealed_uncompressed_still_open(tmp_path: Path) -> None:
    """Ciphertext does not compress, so a box compresses its fields before encrypting them: a sealed
    memory takes about the bytes of an unsealed one in the (compressed) log. Boxes sealed before that
    hold their JSON as it is and open the same."""
    keys = SqliteKeyStore(tmp_path / "keys.sqlite3")
    sealer = Sealer(keys)
    rng = np.random.default_rng(7)
    events = [
        memory(text=f"Ann moved to Lisbon in {2000 + i} and works at Acme 安妮搬到了里斯本", session_id=f"s{i}",
               vector=vectors.pack(rng.standard_normal(896)))
        for i in range(50)
    ]  # fmt: skip
    plain = sum(len(compression.pack(encode(e))) for e in events)
    sealed = [sealer.seal(encode(e)) for e in events]
    assert sum(len(compression.pack(s)) for s in sealed) < 1.2 * plain
    assert all(opened(sealer, s) == e for s, e in zip(sealed, events, strict=True))
    # a box as a sealer that did not compress wrote it
    record = json.loads(encode(TURN))
    taken = {f: record.pop(f) for f in ("text", "speaker", "metadata")}
    key = keys.keys("b", {"turn:t1": UnitTags(session_id="s1")})["turn:t1"]
    assert isinstance(key, bytes)
    nonce = b"\x00" * 12
    aad = record["event_id"].encode() + struct.pack(">H", 1) + b"b"
    box = AESGCM(key).encrypt(nonce, json.dumps(taken, separators=(",", ":")).encode(), aad)
    record["sealed"] = {"unit": "turn:t1", "f": "turn", "n": base64.b64encode(nonce).decode(),
                        "c": base64.b64encode(box).decode()}  # fmt: skip
    assert opened(sealer, json.dumps(record, separators=(",", ":")).encode()) == TURN
