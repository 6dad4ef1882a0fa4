"""An instruction the owner gives up is not recalled as standing: "I no longer want window seats; book aisle
seats from now on." supersedes "Always book window seats for me." (another action, so another key), and
"window or aisle seat?" is answered by the aisle one (both had stayed active, the window one first)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


@asynccontextmanager
async def said(tmp_path, *turns: str) -> AsyncIterator[Hindsight]:
    """Bank "u" with ``turns`` said in one session (turn ids t0, t1, …), decided and projected."""
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    async with Hindsight(settings) as hs:
        await hs.publish([make_turn(settings, "u", t, session_id="s", turn_id=f"t{i}") for i, t in enumerate(turns)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        yield hs


async def test_a_given_up_instruction_is_not_recalled(tmp_path) -> None:
    turns = (
        "Always book window seats for me.",
        "We ship with FedEx.",
        "I no longer want window seats; book aisle seats from now on.",
    )
    async with said(tmp_path, *turns) as hs:
        hits = await hs.recall("u", "window or aisle seat?", limit=5)
        shown = [(h.kind, h.text) for h in hits]
        assert hits and "aisle" in hits[0].text.casefold(), shown
        assert not any(h.text.startswith("Always book window seats") for h in hits), shown


async def test_a_value_ended_with_no_new_one_is_not_recalled_as_current(tmp_path) -> None:
    """ "I don't want window seats anymore." names nothing new: its episode supersedes the instruction, whose
    history says which words ended it; "我已经戒咖啡了" does the same to a drink said in English."""
    turns = (
        "Always book window seats for me.",
        "I drink coffee every morning.",
        "I don't want window seats anymore.",
        "我已经戒咖啡了。",
    )
    async with said(tmp_path, *turns) as hs:
        for query in ("which seat should you book?", "what do I drink in the morning?"):
            hits = await hs.recall("u", query, limit=5)
            shown = [(h.kind, h.text) for h in hits]
            assert not any(h.kind != "episode" and h.source_turn_ids[0] in ("t0", "t1") for h in hits), shown
        old = await hs.recall("u", "window seats", limit=5, statuses=["superseded"])
        window = next(h for h in old if h.text.startswith("Always book window seats"))
        lineage = await hs.history("u", window.memory_id)
        assert "I don't want window seats anymore." in str(lineage), lineage
