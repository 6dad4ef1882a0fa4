"""A document or a tool's output in a session is material, not a party to the conversation: the user's next
message is not indexed with its words. It was: after a pasted notice about an office move, "I prefer window
seats on flights." was found by "where is the office moving?" at relevance 0.81, above the floor, and an
untrusted text could choose which of the user's memories a query surfaces. Replies between the user and the
assistant keep their context."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_document_gives_no_context_and_a_conversation_still_does(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = [
            ("doc", "The office moves to 12 Harbour Street in March. Parking is in the basement.", "document"),
            ("doc", "I prefer window seats on flights.", "user"),
            ("chat", "How do you usually unwind after work?", "assistant"),
            ("chat", "Running clears my head.", "user"),
        ]
        await hs.publish(
            [
                make_turn(settings, "b", text, session_id=session, turn_id=f"t{i}", source=source)
                for i, (session, text, source) in enumerate(turns)
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("b", "where is the office moving?", limit=5, min_relevance=0)
        relevance = {h.text: h.relevance for h in hits}
        assert hits[0].text.startswith("The office moves"), relevance
        seats = [r for text, r in relevance.items() if "window seats" in text]
        assert seats and max(seats) < settings.min_relevance, relevance  # 0.81 when the notice was its context
        unwind = await hs.recall("b", "what helps me unwind?", limit=5, min_relevance=0)
        assert any("Running" in h.text for h in unwind[:2]), [(h.text, h.relevance) for h in unwind]
