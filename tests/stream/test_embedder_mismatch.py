"""A process started with another embedder than the store's is refused before it writes; a log that
already holds such memories (from a release without the check) still projects everything else."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.errors import ConfigError
from hindsight_es.events import MemoryRetained, decoded
from hindsight_es.extraction import RuleExtractor
from hindsight_es.log import replay
from hindsight_es.recall import recall
from hindsight_es.stores.generations import store_path
from hindsight_es.stores.lance import LanceStore
from projections.runner import catch_up
from projections.vectors import VectorsProjection
from streams.bank_actor import BankActor
from streams.partitions import load
from streams.service import catch_up_all

BANK = "ann"


async def _retained(log) -> list[MemoryRetained]:
    out = []
    async for records in replay(log, TOPIC_MEMORIES):
        out += [e for _, e in decoded(records) if isinstance(e, MemoryRetained)]
    return out


def _texts(lance_dir) -> set[str]:
    """The episodes projected: each turn's own words (typed memories state them otherwise)."""
    rows = LanceStore(lance_dir).table("memories").to_arrow().filter(pc.equal(pc.field("bank_id"), BANK))
    return set(rows.filter(pc.equal(pc.field("kind"), "episode"))["text"].to_pylist())


async def test_the_wrong_embedder_is_refused_before_it_writes_and_nothing_is_lost(tmp_path):
    settings = Settings(data_dir=tmp_path, embedder="minilm", partitions=1)
    async with Hindsight(settings) as hs:
        await hs.publish([make_turn(settings, BANK, "I live in Berlin.", session_id="s", turn_id="t1")])
        await catch_up_all(settings, hs.log, embedder=make_embedder("minilm"))
        await hs.publish([make_turn(settings, BANK, "We use PostgreSQL for billing.", session_id="s", turn_id="t2")])

        with pytest.raises(ConfigError, match=r"another model .*384-d.* use-multilingual-v3@1 \(512-d; embedder"):
            await catch_up_all(settings.model_copy(update={"embedder": "use"}), hs.log, embedder=make_embedder("use"))
        assert {e.embedder for e in await _retained(hs.log)} == {make_embedder("minilm").id}
        with pytest.raises(ConfigError, match="384-d vectors and this process's embedder use-multilingual-v3@1"):
            recall(LanceStore(store_path(settings.data_dir, "lance")), make_embedder("use"), BANK, "where do I live?")

        await catch_up_all(settings, hs.log, embedder=make_embedder("minilm"))  # the turn waited in the log
        assert [h.text for h in await hs.recall(BANK, "which database do we use?", limit=1)] == [
            "The team's database: PostgreSQL"  # the statement of the turn that waited
        ]


async def test_memories_of_another_dimension_in_the_log_are_left_out_live_and_in_a_rebuild(tmp_path):
    settings = Settings(data_dir=tmp_path, embedder="minilm", partitions=1)
    async with Hindsight(settings) as hs:
        texts = ["I live in Berlin.", "I drink tea every afternoon.", "We use PostgreSQL for billing."]
        for i, (text, embedder) in enumerate(zip(texts, ["minilm", "use", "minilm"], strict=True)):
            await hs.publish([make_turn(settings, BANK, text, session_id="s", turn_id=f"t{i}")])
            # the actor's handle() without its start-up check: what a release before the check wrote
            actor = BankActor(hs.log, RuleExtractor(), make_embedder(embedder), settings)
            await actor.partition_count()
            actor.owned[0], _ = await load(hs.log, 0, None)  # acquired without the check
            await actor.handle(await hs.log.read(TOPIC_TURNS, 0, i, i + 1, 1))
        assert {len(e.embedding()) for e in await _retained(hs.log)} == {384, 512}

        live = VectorsProjection(LanceStore(store_path(settings.data_dir, "lance")))
        await catch_up(hs.log, live)
        assert _texts(store_path(settings.data_dir, "lance")) == {texts[0], texts[2]}
        rebuilt = tmp_path / "rebuilt"
        await catch_up(hs.log, VectorsProjection(LanceStore(rebuilt)), batch_size=1)
        assert _texts(rebuilt) == _texts(store_path(settings.data_dir, "lance"))
