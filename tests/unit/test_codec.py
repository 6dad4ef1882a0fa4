"""Codec: every event type round-trips; old schema versions are upcast; bad bytes name their problem."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from uuid import uuid4

import numpy as np
import pytest
from pydantic import ValidationError

from hindsight_es.errors import DecodeError
from hindsight_es.events import EVENT_TYPES, codec, decode, encode, vectors
from hindsight_es.events import models as m
from hindsight_es.extraction.schema import Candidate, Judgement

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
ID = uuid4()

SAMPLES = [
    m.TurnRecorded(bank_id="b", session_id="s", turn_id="t", text="我以后都用顺丰", metadata={"lang": "zh"}),
    m.ForgetRequested(bank_id="b", memory_ids=(ID,), reason="asked"),
    m.CorrectionRequested(bank_id="b", memory_id=ID, text="PostgreSQL"),
    m.RetractionRequested(bank_id="b", session_id="s", since=NOW),
    m.RestoreRequested(bank_id="b", memory_ids=(ID,)),
    m.MemoryRetained(
        bank_id="b",
        memory_id=ID,
        kind="preference",
        text="use FedEx",
        key="user/shipping_carrier",
        value="fedex",
        valid_from=NOW,
        vector=np.arange(4, dtype=np.float32),
        embedder="e",
        extractor="x",
    ),
    m.MemorySuperseded(bank_id="b", memory_id=ID, superseded_by=uuid4(), valid_to=NOW),
    m.MemoryForgotten(bank_id="b", memory_id=ID),
    m.MemoryArchived(bank_id="b", memory_id=ID),
    m.MemoryRestored(bank_id="b", memory_id=ID),
    m.MemoryQuarantined(bank_id="b", memory_id=ID, reason="instruction-like"),
    m.MemoryReleased(bank_id="b", memory_id=ID),
    m.MemoryDisputed(bank_id="b", memory_id=ID, disputes=uuid4(), reason="contradicts", open_disputes=(ID,)),
    m.DisputeResolved(bank_id="b", memory_id=ID, disputes=uuid4(), outcome="accepted"),
    m.BankOwnersSet(bank_id="b", owners=("mcp:token-ab12cd34",), previous=("user",)),
    m.ErasureRequested(bank_id="b", session_id="s", units=("turn:t", f"memory:{ID}"), reason="gdpr", actor="operator"),
    m.ContentErased(bank_id="b", memory_ids=(ID,), turn_ids=("t",), session_id="s", erased_by="operator", reason="x"),
    m.SetOwnersRequested(bank_id="b", owners=("mcp:token-ab12cd34",), actor="operator"),
    m.DisputeResolutionRequested(bank_id="b", memory_ids=(ID,), outcome="reject", operator=True),
    m.SourceRetracted(bank_id="b", turn_ids=("t",), retracted_memory_ids=(ID,), restored_memory_ids=()),
    m.ExtractionFailed(bank_id="b", turn_id="t", extractor="llm", error="timeout"),
    m.CommandIgnored(bank_id="b", command="ForgetRequested", reason="nothing to forget"),
    m.ReleaseRequested(bank_id="b", memory_ids=(ID,), reason="reviewed"),
    m.RejectRequested(bank_id="b", memory_ids=(ID,), reason="prompt injection"),
    m.ExtractionCompleted(
        bank_id="b",
        extractor="llm:m/extract-v1",
        model="m",
        prompt_version="extract-v1",
        usage=m.TokenUsage(prompt_tokens=120, completion_tokens=30, calls=1),
        latency_ms=800,
        extractions=(
            m.TurnExtraction(
                turn=m.TurnRecorded(bank_id="b", session_id="s", turn_id="t", text="我下周去东京", occurred_at=NOW),
                candidates=(
                    Candidate(
                        kind="plan",
                        text="下周去东京",
                        entities=("东京",),
                        valid_from=NOW,
                        judgement=Judgement(relation="updates", memory_id=ID, reason="new city", model="m"),
                    ),
                ),
            ),
        ),
    ),
    m.MemoryReinforced(bank_id="b", memory_id=ID, evidence_turn_ids=("t1", "t2"), confidence=0.85, reason="restated"),
    # the forgetting lifecycle: ticks, session ends, promotions, served recalls
    m.JanitorTick(bank_id="b", policy=m.RetentionPolicy(threshold=0.2, capacity=1000), reason="capacity"),
    m.SessionEnded(bank_id="b", session_id="s"),
    m.PromoteRequested(bank_id="b", memory_ids=(ID,), scope="global"),
    m.RecallServed(bank_id="b", memory_ids=(ID,), restore_ids=(ID,), agent="planner"),
    m.MemoriesRecalled(bank_id="b", memory_ids=(ID,)),
    m.RecallsTallied(
        bank_id="b", since=NOW, recalls=3, uses=(m.RecallUse(memory_id=ID, count=3, last_at=NOW),), restore_ids=(ID,)
    ),
    m.RecallsCounted(bank_id="b", uses=(m.RecallUse(memory_id=ID, count=3, last_at=NOW),)),
    m.MemoryPromoted(bank_id="b", memory_id=ID, scope="global"),
    m.MemoryRestored(
        bank_id="b",
        memory_id=ID,
        supersedes=uuid4(),
        revived=m.MemoryRetained(
            bank_id="b",
            memory_id=ID,
            kind="fact",
            text="x",
            owner="planner",
            scope="session",
            valid_from=NOW,
            vector=np.ones(4, dtype=np.float32),
            embedder="e",
            extractor="x",
        ),
    ),
]


def test_samples_cover_the_catalogue():
    assert {type(e) for e in SAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: e.type)
def test_round_trip(event):
    assert decode(encode(event)) == event


def test_vectors_survive_to_within_their_encoding():
    event = SAMPLES[5]
    again = decode(encode(event))
    assert again.vector == event.vector  # the packed bytes, exactly
    assert np.allclose(again.embedding(), np.arange(4, dtype=np.float32), atol=3 / 127 / 2 + 1e-7)
    assert abs(again.embedding()[3] - 3.0) < 1e-6  # the largest component keeps its value


def old_record(event: m.MemoryRetained, vector: np.ndarray, version: int = 2) -> bytes:
    """``event`` as a version 1-2 writer wrote it: the vector as float32 bytes."""
    record = json.loads(encode(event))
    record |= {"schema_version": version, "vector": base64.b64encode(vector.astype("<f4").tobytes()).decode()}
    if version == 1:
        del record["provenance"], record["confirmed"], record["quote"]
    return json.dumps(record).encode()


@pytest.mark.parametrize("version", [1, 2])
def test_old_float32_vectors_are_upcast_to_the_packed_encoding(version):
    vector = np.random.default_rng(5).normal(size=32).astype(np.float32)
    event = SAMPLES[5].model_copy(update={"vector": vectors.pack(vector)})
    old = decode(old_record(event, vector, version))
    assert old == event and old.schema_version == 3
    assert old.vector == vectors.pack(vector)  # the float32 the old event carried, packed as a new one is


def test_an_old_restore_upcasts_the_memory_it_revives():
    vector = np.linspace(-1, 1, 16, dtype=np.float32)
    restored = SAMPLES[-1]
    revived = restored.revived.model_copy(update={"vector": vectors.pack(vector)})
    record = json.loads(encode(restored.model_copy(update={"revived": revived})))
    record |= {"schema_version": 1, "revived": json.loads(old_record(revived, vector))}
    old = decode(json.dumps(record).encode())
    assert old.schema_version == 2 and old.revived == revived
    assert np.allclose(old.revived.embedding(), vector, atol=1 / 127)


def test_events_are_frozen_and_strict():
    with pytest.raises(ValidationError, match="frozen"):
        SAMPLES[0].text = "changed"  # type: ignore[misc]
    with pytest.raises(DecodeError, match="surprise: Extra inputs"):
        decode(encode(SAMPLES[1]).replace(b'"reason"', b'"surprise":1,"reason"'))


def test_times_are_utc():
    from datetime import timedelta, timezone

    event = m.TurnRecorded(
        bank_id="b",
        session_id="s",
        turn_id="t",
        text="x",
        occurred_at=datetime(2026, 1, 1, 8, tzinfo=timezone(timedelta(hours=8))),
    )
    assert event.occurred_at == datetime(2026, 1, 1, 0, tzinfo=UTC) and event.occurred_at.tzinfo == UTC


def test_upcaster_runs_for_old_versions(monkeypatch):
    monkeypatch.setattr(codec, "UPCASTERS", {})

    @codec.register_upcaster("ForgetRequested", 0)
    def rename(record):  # a hypothetical v0 called the field "why"
        return {**{k: v for k, v in record.items() if k != "why"}, "reason": record["why"], "schema_version": 1}

    raw = b'{"type": "ForgetRequested", "schema_version": 0, "bank_id": "b", "why": "old"}'
    assert decode(raw).reason == "old"


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{nope", "not JSON"),
        (b"[1]", "not a JSON object"),
        (b'{"type": "Nope", "bank_id": "b"}', "invalid Nope"),
        (b'{"type": "TurnRecorded", "bank_id": "b"}', "invalid TurnRecorded"),
        (b'{"type": "ForgetRequested", "bank_id": "has space"}', "bank_id"),
    ],
)
def test_bad_records_name_the_problem(raw, reason):
    with pytest.raises(DecodeError, match=reason):
        decode(raw)


def test_a_vector_reads_the_same_from_json_and_from_python():
    """JSON is decoded by pydantic-core (``val_json_bytes``), Python values by ``_decode_vector``: the
    same bytes either way, and a bad one is an error naming the vector either way."""
    event = SAMPLES[5]
    record = json.loads(encode(event))
    from_json = decode(encode(event))
    from_python = m.MemoryRetained.model_validate(record)  # base64 text through the Python path
    assert from_json.vector == from_python.vector == event.vector
    assert m.MemoryRetained.model_validate(record | {"vector": event.vector}).vector == event.vector
    for bad in ("not base64!", "QUJD-_", 7):
        with pytest.raises(DecodeError, match="vector"):
            decode(json.dumps(record | {"vector": bad}).encode())
