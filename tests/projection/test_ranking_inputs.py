"""A ranking is a function of the bank's active memories and the query: recalls counted, compactions and a
warm row cache do not move it. The tour saw the demo's "which carrier do we ship with?" put 顺丰 (relevance
0.20) above FedEx (0.94) after a few runs on one data directory: the janitor had archived six faded
episodes (dated March and April), so the bank's memories went from 17 to 11, each relevance moved with
``n`` (``recall.relevance``), and 顺丰's 0.17 passed ``search.CROSS_MIN_RELEVANCE``, which lets it vote in
the other-script list. Restoring the six gives back the first ranking, to the digit."""

from __future__ import annotations

from importlib.resources import files

from hindsight_es.app.cli.jsonl import read_turns
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.events import RetentionPolicy
from streams.service import catch_up_all

QUERY = "which carrier do we ship with?"


async def _ranking(hs: Hindsight) -> list[tuple[str, float, float]]:
    return [(h.memory_id, h.score, h.relevance) for h in await hs.recall("demo", QUERY, limit=5, min_relevance=0)]


async def test_recalls_counted_leave_the_ranking_and_archiving_moves_it_only_while_archived(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    sample = files("hindsight_es.assets").joinpath("samples/demo.jsonl").read_bytes().splitlines()
    async with Hindsight(settings) as hs:
        await hs.publish(read_turns(settings, sample, bank="demo")[0])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        first = await _ranking(hs)
        assert "FedEx" in (await hs.memory("demo", first[0][0])).text
        for _ in range(5):  # recalled, counted (RecallsTallied), projected: the recall counts change, not the ranking
            await hs.recall("demo", QUERY)
            await hs.reader.recorder.flush()
            await catch_up_all(settings, hs.log, embedder=hs.embedder)
            assert await _ranking(hs) == first
        await hs.writer.janitor_tick("demo", RetentionPolicy())
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        archived = [r["memory_id"] for r in hs.conn.archive().cold_memories("demo")]
        assert archived, "the sample's turns are months old: their episodes fade"
        assert await _ranking(hs) != first  # fewer memories: every relevance moves with n
        for memory_id in archived:
            await hs.restore("demo", memory_id, wait=False)  # no service runs: catch_up_all decides it
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert await _ranking(hs) == first
