"""A query that names a fuzzy time ranks the memory of that time first among memories alike in every
other way: the same trip, told on different dates. Real pipeline (embedded log, rule extractor, MiniLM,
bank actor, LanceDB); the query's "now" is fixed, as the turns' dates are."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.log.embedded import EmbeddedLog
from streams.service import catch_up_all

NOW = datetime(2024, 12, 2, 12, tzinfo=UTC)
HIKES = {  # told on the day
    "m": ("We hiked up to the ridge trail today.", datetime(2024, 3, 16, 18, tzinfo=UTC)),
    "j": ("We hiked up to the ridge trail again today.", datetime(2024, 6, 2, 18, tzinfo=UTC)),
    "a": ("Another hike up to the ridge trail today.", datetime(2024, 8, 15, 18, tzinfo=UTC)),
    "o": ("We did the ridge trail hike today.", datetime(2024, 10, 27, 18, tzinfo=UTC)),
}


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture
async def hs(tmp_path: Path, embedder):
    settings = Settings(data_dir=tmp_path / "data", partitions=1)
    log = EmbeddedLog(settings.log_path, settings.partitions)
    await log.start()
    client = Hindsight(settings, log=log, embedder=embedder)
    for turn, (text, at) in HIKES.items():
        await client.record_turn("alice", text, session_id=f"s-{turn}", turn_id=turn, occurred_at=at)
    await catch_up_all(settings, log, embedder=embedder)
    yield client
    await client.close()
    await log.close()


@pytest.mark.parametrize(
    "query, expected",
    [
        ("When did we hike the ridge trail in mid-August?", "a"),
        ("the ridge trail hike towards the end of last summer", "a"),
        ("our ridge trail hike at the start of the spring", "m"),
        ("ridge trail hike since October", "o"),
        ("ridge trail hike before April", "m"),
        ("今年六月初爬山", "j"),
    ],
)
async def test_the_memory_of_the_time_named_comes_first(hs, query, expected):
    hits = await hs.recall("alice", query, limit=4, now=NOW, min_relevance=0.0)
    assert hits and hits[0].text == HIKES[expected][0], [h.text for h in hits]
