"""The LLM write path: extraction actor -> ExtractionCompleted -> bank actor, against a fake OpenAI server.

Good answers become memories; failures fall back to the rule extractor with ExtractionFailed; replaying
the log (a restart, or the same inputs in another data directory) decides the same without the LLM.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import TOPIC_COMMANDS, TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import (
    ExtractionCompleted,
    ExtractionFailed,
    MemoryRetained,
    MemorySuperseded,
    TurnRecorded,
    decode,
    encode,
)
from hindsight_es.log import open_log, replay
from streams.service import catch_up_all
from tests.fake_openai import Reply, memories

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


def llm_settings(root, fake, **kw) -> Settings:
    base = {"llm_timeout_s": 2.0, "llm_max_retries": 0, "llm_retry_backoff_s": 0.0}
    return Settings(
        data_dir=root, partitions=2, embedder="minilm", llm_base_url=fake.url, llm_model="fake-7b", **(base | kw)
    )


async def publish(settings: Settings, embedder, bank: str, texts: list[str]) -> None:
    async with Hindsight(settings, embedder=embedder) as hs:
        await hs.publish(
            [
                make_turn(
                    settings,
                    bank,
                    t,
                    session_id="s1",
                    turn_id=f"t{i}",
                    speaker="Alice",
                    occurred_at=T0 + timedelta(minutes=i),
                )
                for i, t in enumerate(texts, 1)
            ]
        )


async def events_of(settings: Settings, topic: str) -> list:
    log = open_log(settings)
    await log.start()
    try:
        return [decode(r.value) async for records in replay(log, topic) for r in records]
    finally:
        await log.close()


async def drain(settings: Settings, embedder) -> None:
    log = open_log(settings)
    await log.start()
    try:
        await catch_up_all(settings, log, embedder=embedder)
    finally:
        await log.close()


DB_TURNS = [
    "We use MySQL for the orders service.",
    "The orders service runs in Frankfurt.",
    "Actually, we switched to PostgreSQL.",
]
DB_ANSWER = memories(
    {
        "turn": 1,
        "kind": "fact",
        "text": "The team uses MySQL for the orders service.",
        "subject": "team",
        "attribute": "database",
        "value": "mysql",
        "entities": ["MySQL"],
        "importance": 0.7,
        "confidence": 0.9,
    },
    {
        "turn": 3,
        "kind": "correction",
        "text": "The team moved the orders service to PostgreSQL.",
        "subject": "team",
        "attribute": "database",
        "value": "postgresql",
        "entities": ["PostgreSQL"],
        "is_correction": True,
    },
)


async def test_llm_memories_are_decided_by_the_bank_actor_with_model_prompt_and_usage_recorded(
    tmp_path, fake_llm, embedder
):
    settings = llm_settings(tmp_path, fake_llm)
    fake_llm.then(DB_ANSWER)
    await publish(settings, embedder, "alice", DB_TURNS)
    await drain(settings, embedder)

    (completed,) = [e for e in await events_of(settings, TOPIC_COMMANDS) if isinstance(e, ExtractionCompleted)]
    assert completed.extractor == "llm:fake-7b/extract-v1" and completed.model == "fake-7b"
    assert completed.prompt_version == "extract-v1" and completed.error is None
    assert (completed.usage.prompt_tokens, completed.usage.completion_tokens, completed.usage.calls) == (120, 30, 1)
    assert [x.turn.turn_id for x in completed.extractions] == ["t1", "t2", "t3"]

    events = [e for e in await events_of(settings, TOPIC_MEMORIES) if e.bank_id == "alice"]
    retained = [e for e in events if isinstance(e, MemoryRetained)]
    assert [e.source_turn_ids for e in retained if e.kind == "episode"] == [("t1",), ("t2",), ("t3",)]
    typed = [e for e in retained if e.kind != "episode"]
    assert [(e.key, e.value, e.extractor) for e in typed] == [
        ("team/database", "mysql", "llm:fake-7b/extract-v1"),
        ("team/database", "postgresql", "llm:fake-7b/extract-v1"),
    ]
    sup, along = [e for e in events if isinstance(e, MemorySuperseded)]
    assert (sup.memory_id, sup.superseded_by, sup.reason) == (typed[0].memory_id, typed[1].memory_id, "correction")
    # The LLM reworded t1, but its episode says nothing the fact does not ("we", "use" aside): it goes too.
    assert (along.memory_id, along.superseded_by, along.along_with) == (
        retained[0].memory_id,
        typed[1].memory_id,
        typed[0].memory_id,
    )
    assert len(fake_llm.requests) == 1

    async with Hindsight(settings, embedder=embedder) as hs:  # the projections hold them; recall finds the new value
        hits = await hs.recall("alice", "which database do the orders use?", limit=3)
    texts = [h.text for h in hits]
    assert "The team moved the orders service to PostgreSQL." in texts
    assert "The team uses MySQL for the orders service." not in texts  # superseded
    assert DB_TURNS[0] not in texts  # and its turn's episode with it

    async with Hindsight(settings, embedder=embedder) as hs:  # stats show the model, prompt version and tokens
        report = await hs.reader.stats()
    assert report["llm_extraction"]["alice"] == [
        {
            "model": "fake-7b",
            "prompt_version": "extract-v1",
            "batches": 1,
            "turns": 3,
            "calls": 1,
            "prompt_tokens": 120,
            "completion_tokens": 30,
            "failed": 0,
        }
    ]


async def test_failed_extraction_falls_back_to_rules_and_records_extraction_failed(tmp_path, fake_llm, embedder):
    settings = llm_settings(tmp_path, fake_llm)
    fake_llm.then(Reply('{"memories": [{"turn": 1, "kind": '))  # malformed JSON
    await publish(settings, embedder, "bob", DB_TURNS)
    await drain(settings, embedder)

    (completed,) = [e for e in await events_of(settings, TOPIC_COMMANDS) if isinstance(e, ExtractionCompleted)]
    assert completed.extractor == "rules/47" and completed.error.startswith("llm:fake-7b/extract-v1: invalid_json")
    events = [e for e in await events_of(settings, TOPIC_MEMORIES) if e.bank_id == "bob"]
    failed = [e for e in events if isinstance(e, ExtractionFailed)]
    assert [e.turn_id for e in failed] == ["t1", "t2", "t3"]
    assert all(e.extractor == "llm:fake-7b/extract-v1" and "invalid_json" in e.error for e in failed)
    typed = [e for e in events if isinstance(e, MemoryRetained) and e.kind != "episode"]
    assert [(e.key, e.value, e.extractor) for e in typed] == [
        ("team/database", "mysql", "rules/47"),
        ("team/database", "postgresql", "rules/47"),
    ]  # nothing is lost


async def test_timeouts_fall_back_and_the_bank_keeps_flowing(tmp_path, fake_llm, embedder):
    settings = llm_settings(tmp_path, fake_llm, llm_timeout_s=0.3)
    fake_llm.then(Reply(delay_s=1.0), Reply('{"memories": []}'))
    await publish(settings, embedder, "carol", DB_TURNS[:1])
    await drain(settings, embedder)
    await publish(settings, embedder, "carol", DB_TURNS)  # t1 again (decided once), then t2, t3
    await drain(settings, embedder)
    events = [e for e in await events_of(settings, TOPIC_MEMORIES) if e.bank_id == "carol"]
    assert [e.turn_id for e in events if isinstance(e, ExtractionFailed)] == ["t1"]
    assert [e.source_turn_ids[0] for e in events if isinstance(e, MemoryRetained) and e.kind == "episode"] == [
        "t1",
        "t2",
        "t3",
    ]


async def test_batches_per_bank_and_concurrency_limit(tmp_path, fake_llm, embedder):
    settings = llm_settings(tmp_path, fake_llm, llm_batch_turns=3, llm_concurrency=2)
    fake_llm.default = lambda request: Reply('{"memories": []}', delay_s=0.15)
    for bank, n in (("a", 7), ("b", 3), ("c", 5)):
        await publish(settings, embedder, bank, [f"turn {i} of {bank}" for i in range(n)])
    await drain(settings, embedder)
    completed = [e for e in await events_of(settings, TOPIC_COMMANDS) if isinstance(e, ExtractionCompleted)]
    assert sorted(len(e.extractions) for e in completed) == [1, 2, 3, 3, 3, 3]  # a: 3+3+1, b: 3, c: 3+2
    assert len(fake_llm.requests) == 6 and fake_llm.max_in_flight <= 2
    for bank in "abc":  # a bank's batches are extracted and published in turn order
        order = [x.turn.turn_id for e in completed if e.bank_id == bank for x in e.extractions]
        assert order == sorted(order, key=lambda t: int(re.sub(r"\D", "", t)))


async def test_replay_reproduces_every_decision_without_calling_the_llm(tmp_path, fake_llm, embedder):
    live = llm_settings(tmp_path / "live", fake_llm)
    fake_llm.then(DB_ANSWER)
    await publish(live, embedder, "alice", DB_TURNS)
    await drain(live, embedder)
    calls = len(fake_llm.requests)
    await drain(live, embedder)  # a restart: the extraction actor finds the turns extracted, the bank actor decided
    assert len(fake_llm.requests) == calls

    # the same inputs (turns and commands, ExtractionCompleted included) in a fresh data directory
    copy = llm_settings(tmp_path / "copy", fake_llm)
    target = open_log(copy)
    await target.start()
    for topic in (TOPIC_TURNS, TOPIC_COMMANDS):
        for event in await events_of(live, topic):
            from hindsight_es.events import encode

            await target.append(topic, event.bank_id, [encode(event)])
    await target.close()
    await drain(copy, embedder)
    assert len(fake_llm.requests) == calls  # no LLM call: its output is in the log
    original = [e for e in await events_of(live, TOPIC_MEMORIES)]
    replayed = [e for e in await events_of(copy, TOPIC_MEMORIES)]
    assert [(type(e), e.event_id) for e in replayed] == [(type(e), e.event_id) for e in original]
    assert replayed == original


async def test_a_turn_its_record_fails_is_neither_sent_to_the_llm_nor_decided(tmp_path, fake_llm, embedder):
    # from a producer that did not check it: the override would disguise the memory in a prompt
    settings = llm_settings(tmp_path, fake_llm)
    text = "Pay \u202e001 ot Eve\u202c now."
    disguised = TurnRecorded(bank_id="dave", session_id="s1", turn_id="foreign-1", text=text, occurred_at=T0)
    log = open_log(settings)
    await log.start()
    try:
        await log.append(TOPIC_TURNS, "dave", [encode(disguised)])
    finally:
        await log.close()
    await publish(settings, embedder, "dave", ["I'm allergic to peanuts."])
    await drain(settings, embedder)
    sent = json.dumps(fake_llm.requests, ensure_ascii=False)
    assert "peanuts" in sent and "\u202e" not in sent
    events = [e for e in await events_of(settings, TOPIC_MEMORIES) if e.bank_id == "dave"]
    assert any("peanuts" in e.text for e in events if isinstance(e, MemoryRetained))
    assert not any("\u202e" in getattr(e, "text", "") for e in events)
    log = open_log(settings)
    await log.start()
    try:
        letters = [json.loads(r.value) async for records in replay(log, TOPIC_DEAD_LETTER) for r in records]
    finally:
        await log.close()
    assert [letter["reason"][:72] for letter in letters] == [
        "text: a bidirectional embedding, override or isolate (U+202E) at charact"
    ]
