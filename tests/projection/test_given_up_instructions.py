"""An instruction the owner gives up is not recalled as standing: "I no longer want window seats; book aisle
seats from now on." supersedes "Always book window seats for me." (another action, so another key), and
"window or aisle seat?" is answered by the aisle one (both had stayed active, the window one first)."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_given_up_instruction_is_not_recalled(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    async with Hindsight(settings) as hs:
        turns = [
            "Always book window seats for me.",
            "We ship with FedEx.",
            "I no longer want window seats; book aisle seats from now on.",
        ]
        await hs.publish([make_turn(settings, "u", t, session_id="s", turn_id=f"t{i}") for i, t in enumerate(turns)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("u", "window or aisle seat?", limit=5)
        shown = [(h.kind, h.text) for h in hits]
        assert hits and "aisle" in hits[0].text.casefold(), shown
        assert not any(h.text.startswith("Always book window seats") for h in hits), shown
