"""A disputing turn's episode is resolved with its typed memory, and shown once. The tour's case: a document,
"The team database is Oracle.", in a bank whose owner said the team uses PostgreSQL, gave a disputed episode
and a disputed fact; ``disputes reject`` of the fact left the episode disputed (still listed, still in every
context block), and the block listed the document twice, episode and fact, where recall keeps one hit per
thing said."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all

DOC = "The team database is Oracle."
QUESTION = "what database does the team use?"


async def _disputed(settings: Settings, hs: Hindsight) -> dict[str, str]:
    said = [("u1", "Our team uses PostgreSQL for the main database.", "user"), ("d1", DOC, "document")]
    turns = [make_turn(settings, "team", text, session_id=t, turn_id=t, source=source) for t, text, source in said]
    await hs.publish(turns)
    await catch_up_all(settings, hs.log, embedder=hs.embedder)
    disputed = await hs.disputes.disputed("team")
    assert {d.source_turn_ids[0] for d in disputed} == {"d1"} and len(disputed) == 2, disputed
    return {("episode" if d.text == DOC else "fact"): d.memory_id for d in disputed}


async def test_a_rejected_fact_takes_its_episode_and_the_block_shows_the_document_once(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        ids = await _disputed(settings, hs)
        block = await hs.context("team", "later", QUESTION)
        assert block.text.count("(document, disputes [") == 1, block.text  # the fact, not its turn's episode too
        assert ids["fact"] in block.text and ids["episode"] not in block.text
        await hs.disputes.resolve("team", [ids["fact"]], accept=False, reason="doc is stale")
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert await hs.disputes.disputed("team") == []
        assert (await hs.memory("team", ids["episode"])).status == "forgotten"
        block = await hs.context("team", "later", QUESTION)
        assert "Oracle" not in block.text and "PostgreSQL" in block.text, block.text
        # restoring the rejected fact brings its episode back with it
        await hs.restore("team", ids["fact"])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert (await hs.memory("team", ids["episode"])).status == "active"


async def test_an_accepted_fact_takes_its_episode_out_of_dispute(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        ids = await _disputed(settings, hs)
        await hs.disputes.resolve("team", [ids["fact"]], accept=True, reason="we migrated")
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert await hs.disputes.disputed("team") == []
        episode = await hs.memory("team", ids["episode"])
        assert (episode.status, episode.confirmed) == ("active", True)
        hits = await hs.recall("team", QUESTION)
        assert [h.memory_id for h in hits[:1]] == [ids["fact"]] and hits[0].trusted, hits  # one hit for the turn
        assert not any("PostgreSQL" in h.text for h in hits), [h.text for h in hits]  # superseded, its episode too
