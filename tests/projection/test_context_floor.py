"""The relevance floor of a context block is decided on the memories the block shows. The tour's case
(``examples/agent_loop.py``): "I take my coffee with oat milk, no sugar." then "How do I take my coffee?" in
the same session, in a bank that also holds two FedEx preferences. The coffee episode (relevance 0.99)
held the answer above the floor, then was left out because the recent turns show that turn verbatim, and
the long-term section held only the FedEx memories (0.11 and 0.04): noise, in the prompt."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all

QUESTION = "How do I take my coffee?"


async def _bank(settings: Settings, hs: Hindsight) -> None:
    said = [
        ("shipping", "o1", "Always ship with FedEx, never UPS."),
        ("shipping", "o2", "I prefer FedEx Ground for heavy boxes."),
        ("chat", "c1", "I take my coffee with oat milk, no sugar."),
    ]
    await hs.publish([make_turn(settings, "alice", text, session_id=s, turn_id=t) for s, t, text in said])
    await catch_up_all(settings, hs.log, embedder=hs.embedder)


async def test_no_long_term_memory_when_only_the_recent_turns_answer(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        await _bank(settings, hs)
        hits = await hs.recall("alice", QUESTION, min_relevance=0)
        assert hits[0].text.startswith("I take my coffee") and hits[0].relevance >= settings.min_relevance
        assert all(h.relevance < settings.min_relevance for h in hits[1:]), [(h.text, h.relevance) for h in hits]
        block = await hs.context("alice", "chat", QUESTION)
        assert block.memory_ids == [] and "FedEx" not in block.text, block.text
        assert "I take my coffee with oat milk" in block.text  # as a recent turn
        # the question itself, retained before the block is asked for (its episode is the current message)
        await hs.publish([make_turn(settings, "alice", QUESTION, session_id="chat", turn_id="c2")])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        again = await hs.context("alice", "chat", QUESTION)
        assert again.memory_ids == [] and "FedEx" not in again.text, again.text


async def test_a_shown_memory_at_the_floor_keeps_the_rest_of_the_answer(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        await _bank(settings, hs)
        block = await hs.context("alice", "another day", QUESTION)  # the coffee turn is not a recent turn here
        hits = await hs.recall("alice", QUESTION)
        assert block.memory_ids == [h.memory_id for h in hits] and len(hits) == 3, block.text
        assert block.text.index("oat milk") < block.text.index("FedEx")
