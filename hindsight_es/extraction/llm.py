"""LLM extractor over the OpenAI-compatible chat-completions API (OpenAI, DeepSeek, Qwen, Ollama, vLLM,
a llama.cpp server): one request per batch of a bank's turns, the answer validated by pydantic.

``extract`` returns candidates per turn, or raises ``ExtractionError`` naming what went wrong: a
time-out or an unreachable server (after retries with jittered exponential back-off), an HTTP error,
an empty, truncated, refused, non-JSON or off-schema answer. The caller (the extraction actor) then
falls back to the rule extractor. Nothing here is deterministic, so its output is recorded in the log
(``ExtractionCompleted``) and replays never call it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
    wait_none,
    wait_random,
)

from hindsight_es.errors import ExtractionError
from hindsight_es.events import TokenUsage, TurnRecorded
from hindsight_es.extraction.prompts import PROMPT_VERSION, Neighbor, render
from hindsight_es.extraction.schema import Candidate, Judgement, LLMExtraction, LLMMemory
from hindsight_es.text import first_error

if TYPE_CHECKING:
    import httpx  # at run time only where a client is made: 0.1-0.2 s of every start otherwise

_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.I)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)  # reasoning models (DeepSeek-R1, Qwen3) think aloud first
_REFUSAL = re.compile(
    r"^\s*(?:i'?m sorry|i am sorry|sorry,|i can(?:no|')t|i cannot|i won'?t|as an ai|抱歉|对不起|我不能|我无法)", re.I
)
_SLUG = re.compile(r"[^\w:.\-]+")


@dataclass(frozen=True, slots=True)
class LLMResult:
    candidates: list[list[Candidate]]  # per turn, in the order given
    usage: TokenUsage
    latency_ms: int


class _Transient(Exception):
    """Worth another try: a time-out, a connection failure, HTTP 429 or 5xx."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class LLMExtractor:
    """Chat-completions client for one model; ``id`` is what memories record as their extractor."""

    def __init__(self, settings: Any, *, transport: httpx.AsyncBaseTransport | None = None) -> None:
        if not settings.llm_base_url or not settings.llm_model:
            raise ValueError("the LLM extractor needs llm_base_url and llm_model")
        self.settings = settings
        self.model: str = settings.llm_model
        self.prompt_version = PROMPT_VERSION
        self.id = f"llm:{self.model}/{PROMPT_VERSION}"
        import httpx

        headers = {"Authorization": f"Bearer {settings.llm_api_key}"} if settings.llm_api_key else {}
        self._url = settings.llm_base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.AsyncClient(timeout=settings.llm_timeout_s, headers=headers, transport=transport)

    async def aclose(self) -> None:
        await self._client.aclose()

    async def extract(self, turns: Sequence[TurnRecorded], existing: Sequence[Neighbor] = ()) -> LLMResult:
        started = time.perf_counter()
        body: dict[str, Any] = {"model": self.model, "messages": render(turns, existing), "temperature": 0}
        if self.settings.llm_json_mode:
            body["response_format"] = {"type": "json_object"}
        data, calls = await self._post(body)
        answer = _answer(data, calls)
        usage = data.get("usage") or {}
        by_turn = self._candidates(answer, len(turns), existing, calls)
        return LLMResult(
            by_turn,
            TokenUsage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
                calls=calls,
            ),
            int((time.perf_counter() - started) * 1000),
        )

    async def _post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        s = self.settings
        backoff = s.llm_retry_backoff_s
        wait = (
            wait_exponential(multiplier=backoff, max=backoff * 16) + wait_random(0, backoff)
            if backoff > 0
            else wait_none()
        )
        calls = 0
        try:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(s.llm_max_retries + 1),
                wait=wait,
                retry=retry_if_exception_type(_Transient),
                reraise=True,
            ):
                with attempt:
                    calls += 1
                    return await self._request(body, calls), calls
        except _Transient as exc:
            raise ExtractionError(exc.kind, f"{exc} (after {calls} attempts)", calls=calls) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    async def _request(self, body: dict[str, Any], calls: int) -> dict[str, Any]:
        import httpx

        try:
            response = await self._client.post(self._url, json=body)
        except httpx.TimeoutException as exc:
            raise _Transient("timeout", f"no answer within {self.settings.llm_timeout_s:g}s") from exc
        except httpx.TransportError as exc:
            raise _Transient("unavailable", f"cannot reach {self._url}: {type(exc).__name__}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise _Transient("http", f"HTTP {response.status_code}")
        if response.status_code >= 400:
            raise ExtractionError("http", f"HTTP {response.status_code}: {response.text[:200]}", calls=calls)
        try:
            data = response.json()
        except ValueError as exc:
            raise ExtractionError("invalid_json", "the response body is not JSON", calls=calls) from exc
        if not isinstance(data, dict):
            raise ExtractionError("off_schema", "the response is not a chat completion", calls=calls)
        return data

    def _candidates(
        self, answer: LLMExtraction, n_turns: int, existing: Sequence[Neighbor], calls: int
    ) -> list[list[Candidate]]:
        out: list[list[Candidate]] = [[] for _ in range(n_turns)]
        targets = {f"m{i}": n.memory_id for i, n in enumerate(existing, 1)}
        for memory in answer.memories:
            if memory.turn > n_turns:
                raise ExtractionError("off_schema", f"a memory cites turn {memory.turn} of {n_turns}", calls=calls)
            out[memory.turn - 1].append(self._candidate(memory, targets))
        return out

    def _candidate(self, m: LLMMemory, targets: dict[str, Any]) -> Candidate:
        key = f"{_slug(m.subject)}/{_slug(m.attribute)}" if m.subject and m.attribute else None
        target = targets.get((m.target or "").strip().lower())
        judgement = (
            Judgement(relation=m.relation, memory_id=target, reason=m.reason, model=self.model)
            if m.relation != "new" and target is not None
            else None
        )
        kind = "correction" if m.is_correction and m.kind == "fact" else m.kind
        return Candidate(
            kind=kind,
            text=m.text.strip(),
            key=key,
            value=" ".join(m.value.split()).lower() if m.value else None,
            entities=tuple(dict.fromkeys(e.strip() for e in m.entities if e.strip())),
            importance=m.importance,
            confidence=m.confidence,
            is_correction=m.is_correction,
            valid_from=m.valid_from,
            valid_to=m.valid_to,
            judgement=judgement,
        )


def _answer(data: dict[str, Any], calls: int) -> LLMExtraction:
    """The validated answer of a chat completion, or the ``ExtractionError`` that says why there is none."""
    try:
        choice = data["choices"][0]
        message = choice.get("message") or {}
    except (KeyError, IndexError, TypeError, AttributeError) as exc:
        raise ExtractionError("off_schema", "no choices in the completion", calls=calls) from exc
    finish = choice.get("finish_reason")
    content = message.get("content") or ""
    if message.get("refusal"):
        raise ExtractionError("refused", str(message["refusal"])[:200], calls=calls)
    if finish == "content_filter":
        raise ExtractionError("refused", "stopped by the content filter", calls=calls)
    if finish == "length":
        raise ExtractionError("truncated", "the answer hit the token limit", calls=calls)
    text = _FENCE.sub("", _THINK.sub("", content)).strip()
    if not text:
        raise ExtractionError("empty", "the answer is empty", calls=calls)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        kind = "refused" if _REFUSAL.match(text) else "invalid_json"
        raise ExtractionError(kind, f"{exc.msg} in {text[:80]!r}", calls=calls) from exc
    try:
        return LLMExtraction.model_validate(raw)
    except ValidationError as exc:
        raise ExtractionError("off_schema", first_error(exc), calls=calls) from exc


def _slug(value: str | None) -> str:
    return _SLUG.sub("_", (value or "").strip().lower()).strip("_")
