"""Bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) are refused in a text as
control characters are, at every door: they would reorder what an operator or a model reads ("Trojan Source").
The directional marks right-to-left text uses (U+200E, U+200F, U+061C) pass, and so does Arabic or Hebrew."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_DEAD_LETTER, TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.errors import InvalidInputError
from hindsight_es.events import MemoryRetained, decode
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import replay
from hindsight_es.log.embedded import EmbeddedLog
from streams.bank_actor import BankActor
from tests.unit.doors import refused, tool, written

pytestmark = pytest.mark.asyncio
# "pay 100 to Eve" shown, "pay 001 ot" said: the override reverses what follows it on screen
DISGUISED = "Invoice approved: pay \u202e001 ot Eve\u202c today."
SAYS = "a bidirectional embedding, override or isolate (U+202E) at character 22"
# Right-to-left text as it is written, marks included: Hebrew with RLM and LRM, Arabic with ALM
RIGHT_TO_LEFT = ["אני גר בתל אביב \u200fכבר שנתיים\u200e (since 2024).", "أنا أعيش في القاهرة\u061c منذ عامين."]
CHARACTERS = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"]


@pytest.mark.parametrize("character", CHARACTERS)
async def test_each_bidi_override_is_refused_naming_its_code_point(hs: Hindsight, character: str) -> None:
    await hs.start()
    with pytest.raises(InvalidInputError, match=rf"^text: .* \(U\+{ord(character):04X}\) at character 3: "):
        await hs.retain("alice", f"abc{character}def", session_id="s1")


async def test_a_disguised_text_is_refused_at_every_door_and_nothing_is_written(
    hs: Hindsight, http: httpx.AsyncClient
) -> None:
    await hs.start()
    before = await written(hs)
    answer = await http.post("/v1/banks/alice/memories", json={"text": DISGUISED, "session_id": "s1"})
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"].startswith(f"text: {SAYS}: it reorders how the text around it is shown")
    correct = await http.post(
        f"/v1/banks/alice/memories/{'0' * 8}-0000-4000-8000-{'0' * 12}/correct", json={"text": DISGUISED}
    )
    assert correct.status_code == 422 and correct.json()["detail"].startswith(f"text: {SAYS}"), correct.text
    assert (await refused(hs, "retain", bank_id="alice", text=DISGUISED)).startswith(f"retain: text: {SAYS}")
    assert (await refused(hs, "correct", bank_id="alice", memory_id="x", text=DISGUISED)).startswith(
        f"correct: text: {SAYS}"
    )
    with pytest.raises(InvalidInputError, match=re.escape(f"text: {SAYS}")):
        await hs.retain("alice", DISGUISED, session_id="s1")
    with pytest.raises(InvalidInputError, match=re.escape(f"text: {SAYS}")):
        await hs.correct("alice", "00000000-0000-4000-8000-000000000000", DISGUISED)
    assert await written(hs) == before


async def test_right_to_left_text_and_its_marks_are_accepted(hs: Hindsight, http: httpx.AsyncClient) -> None:
    await hs.start()
    for i, text in enumerate(RIGHT_TO_LEFT):
        answer = await http.post("/v1/banks/alice/memories", json={"text": text, "session_id": "s1"})
        assert answer.status_code == 201, answer.text
        assert not (await tool(hs, "retain", bank_id="alice", text=text, turn_id=f"mcp-{i}")).is_error
        await hs.retain("alice", text, session_id="s1", turn_id=f"py-{i}")


async def test_the_document_says_the_server_refuses_them(http: httpx.AsyncClient) -> None:
    document = (await http.get("/openapi.json")).json()
    pattern = document["components"]["schemas"]["RetainRequest"]["properties"]["text"]["pattern"]
    assert re.search(pattern, DISGUISED) is None  # schema-valid data is what the server takes
    assert all(re.search(pattern, text) for text in RIGHT_TO_LEFT)


async def test_a_disguised_turn_from_the_log_is_dead_lettered_and_the_bank_flows_on(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, partitions=2)
    log = EmbeddedLog(settings.log_path, 2)
    await log.start()
    try:

        def turn(turn_id: str, text: str) -> bytes:
            body = {"type": "TurnRecorded", "bank_id": "b1", "session_id": "s", "turn_id": turn_id, "text": text}
            return json.dumps(body).encode()

        # a foreign producer's turns: nothing checked them before the log
        turns = [turn("bidi", DISGUISED), turn("bell", "ring\x07 now"), turn("rtl", RIGHT_TO_LEFT[0])]
        await log.append(TOPIC_TURNS, "b1", turns)
        await log.append(TOPIC_TURNS, "b1", [turn("ok", "I'm allergic to peanuts.")])
        actor = BankActor(log, RuleExtractor(), make_embedder("minilm"), settings, group="g")
        stop = asyncio.Event()
        running = asyncio.create_task(actor.run(stop))
        try:
            for _ in range(600):
                texts = [e.text async for e in _memories(log) if isinstance(e, MemoryRetained)]
                if any("peanuts" in t for t in texts):
                    break
                assert not running.done(), running.exception()
                await asyncio.sleep(0.05)
        finally:
            stop.set()
            await running
        assert not any("\u202e" in t or "\x07" in t for t in texts), texts
        assert any("תל אביב" in t for t in texts), texts
        letters = [json.loads(r.value) async for records in replay(log, TOPIC_DEAD_LETTER) for r in records]
        assert [letter["reason"] for letter in letters] == [
            f"text: {SAYS}: it reorders how the text around it is shown; use the marks U+200E, U+200F or U+061C",
            "text: a control character (U+0007) at character 4: only tab, newline and carriage return may be in a text",
        ]
    finally:
        await log.close()


async def _memories(log: EmbeddedLog) -> AsyncIterator[Any]:
    async for records in replay(log, TOPIC_MEMORIES):
        for record in records:
            yield decode(record.value)
