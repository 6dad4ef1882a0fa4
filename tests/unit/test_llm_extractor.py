"""The LLM extractor against a real local HTTP server speaking the OpenAI chat-completions protocol."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from uuid import uuid4

import pytest

from hindsight_es.config import Settings
from hindsight_es.errors import ExtractionError
from hindsight_es.events import TurnRecorded
from hindsight_es.extraction.llm import LLMExtractor
from hindsight_es.extraction.prompts import PROMPT_VERSION, SYSTEM, Neighbor
from tests.fake_openai import Reply, memories

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def settings(fake, **kw) -> Settings:
    base = {
        "llm_base_url": fake.url,
        "llm_model": "fake-7b",
        "llm_timeout_s": 2.0,
        "llm_max_retries": 1,
        "llm_retry_backoff_s": 0.0,
    }
    return Settings(data_dir="/tmp/unused", **(base | kw))


def turns(*texts: str) -> list[TurnRecorded]:
    return [
        TurnRecorded(bank_id="b", session_id="s", turn_id=f"t{i}", text=t, speaker="Alice", occurred_at=T0)
        for i, t in enumerate(texts, 1)
    ]


async def test_good_answer_becomes_candidates_per_turn_with_keys_times_and_judgement(fake_llm):
    old = uuid4()
    fake_llm.then(
        memories(
            {
                "turn": 2,
                "kind": "fact",
                "text": "Alice lives in Berlin.",
                "subject": "user",
                "attribute": "Location",
                "value": "Berlin",
                "entities": ["Berlin"],
                "importance": 0.7,
                "confidence": 0.9,
                "relation": "updates",
                "target": "m1",
                "reason": "moved",
            },
            {
                "turn": 2,
                "kind": "plan",
                "text": "Alice flies to Tokyo next week.",
                "entities": ["Tokyo", " "],
                "valid_from": "2026-05-08",
                "valid_to": "2026-05-15T00:00:00Z",
            },
        )
    )
    llm = LLMExtractor(settings(fake_llm, llm_api_key="sk-test-key"))
    try:
        result = await llm.extract(
            turns("hi!", "I moved to Berlin; flying to Tokyo next week."),
            [Neighbor(old, "fact", "Alice lives in Paris.", "user/location", "paris")],
        )
    finally:
        await llm.aclose()
    assert result.candidates[0] == []
    fact, plan = result.candidates[1]
    assert (fact.key, fact.value, fact.entities) == ("user/location", "berlin", ("Berlin",))
    assert fact.judgement is not None and fact.judgement.memory_id == old and fact.judgement.relation == "updates"
    assert fact.judgement.model == "fake-7b"
    assert plan.key is None and plan.valid_from == datetime(2026, 5, 8, tzinfo=UTC) and plan.entities == ("Tokyo",)
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.calls) == (120, 30, 1)
    assert llm.id == f"llm:fake-7b/{PROMPT_VERSION}"
    request = fake_llm.requests[0]
    assert request["model"] == "fake-7b" and request["response_format"] == {"type": "json_object"}
    assert (
        request["messages"][0]["content"] == SYSTEM
        and "[m1] fact user/location = paris" in request["messages"][1]["content"]
    )
    assert "[2] 2026-05-01 09:00 UTC · user Alice (source user): I moved to Berlin" in request["messages"][1]["content"]
    assert fake_llm.headers[0]["Authorization"] == "Bearer sk-test-key"


async def test_nothing_worth_remembering_is_a_valid_answer(fake_llm):
    fake_llm.then(Reply('{"memories": []}'))
    llm = LLMExtractor(settings(fake_llm))
    result = await llm.extract(turns("ok thanks", "好的"))
    await llm.aclose()
    assert result.candidates == [[], []]


async def test_fenced_json_and_thinking_are_accepted(fake_llm):
    answer = {
        "memories": [
            {
                "turn": 1,
                "kind": "preference",
                "text": "用户喜欢喝绿茶。",
                "subject": "user",
                "attribute": "drink",
                "value": "绿茶",
            }
        ]
    }
    fake_llm.then(Reply("<think>用户说喜欢绿茶</think>\n```json\n" + json.dumps(answer, ensure_ascii=False) + "\n```"))
    llm = LLMExtractor(settings(fake_llm))
    result = await llm.extract(turns("我喜欢喝绿茶"))
    await llm.aclose()
    assert [(c.key, c.value) for c in result.candidates[0]] == [("user/drink", "绿茶")]


@pytest.mark.parametrize(
    "reply, kind",
    [
        (Reply('{"memories": [{"turn": 1, "kind": "fact", "text": "unterminated'), "invalid_json"),
        (Reply('{"memories": [{"turn": 1, "kind": "fact"'), "invalid_json"),
        (Reply('{"memories": [{"turn": 1, "kind": "fact", "text": "x"}]}', finish_reason="length"), "truncated"),
        (Reply('{"memories": [{"turn": 1, "kind": "banana", "text": "x"}]}'), "off_schema"),
        (Reply('{"items": []}'), "off_schema"),
        (Reply('{"memories": [{"turn": 7, "kind": "fact", "text": "x"}]}'), "off_schema"),
        (Reply(None, refusal="I can't help with that."), "refused"),
        (Reply("I'm sorry, but I can't assist with that request."), "refused"),
        (Reply("抱歉，我无法处理这个请求。"), "refused"),
        (Reply(""), "empty"),
        (Reply(body=b"<html>gateway</html>"), "invalid_json"),
        (Reply(status=400), "http"),
    ],
    ids=[
        "malformed",
        "cut-json",
        "truncated",
        "bad-kind",
        "wrong-root",
        "bad-turn",
        "refusal-field",
        "refusal-en",
        "refusal-zh",
        "empty",
        "not-json-body",
        "http-400",
    ],
)
async def test_bad_answers_raise_extraction_errors_without_retrying(fake_llm, reply, kind):
    fake_llm.then(reply)
    llm = LLMExtractor(settings(fake_llm, llm_max_retries=3))
    with pytest.raises(ExtractionError) as caught:
        await llm.extract(turns("I live in Berlin."))
    await llm.aclose()
    assert caught.value.kind == kind
    assert len(fake_llm.requests) == 1  # a bad answer is not retried (a retry would cost the same and fail the same)


async def test_slow_server_times_out_after_retries(fake_llm):
    fake_llm.then(Reply(delay_s=1.5), Reply(delay_s=1.5))
    llm = LLMExtractor(settings(fake_llm, llm_timeout_s=0.3, llm_max_retries=1))
    with pytest.raises(ExtractionError) as caught:
        await llm.extract(turns("I live in Berlin."))
    await llm.aclose()
    assert caught.value.kind == "timeout" and caught.value.calls == 2


async def test_server_errors_are_retried_with_backoff_then_succeed(fake_llm):
    fake_llm.then(
        Reply(status=503), Reply(status=429), memories({"turn": 1, "kind": "fact", "text": "Alice lives in Berlin."})
    )
    llm = LLMExtractor(settings(fake_llm, llm_max_retries=2, llm_retry_backoff_s=0.01))
    result = await llm.extract(turns("I live in Berlin."))
    await llm.aclose()
    assert result.usage.calls == 3 and len(result.candidates[0]) == 1


async def test_unreachable_server_is_unavailable():
    unused = Settings(data_dir="/tmp/unused", llm_base_url="http://127.0.0.1:9/v1", llm_model="m", llm_max_retries=0)
    llm = LLMExtractor(unused)
    with pytest.raises(ExtractionError) as caught:
        await llm.extract(turns("x"))
    await llm.aclose()
    assert caught.value.kind == "unavailable"
