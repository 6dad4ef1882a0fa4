"""What decides or projects never acts on content sealed under another key store: the actor and the
projections stop with ``MissingKeyError`` (naming the key store) and commit nothing, where reading it as
erased would have decided on a blank for good. A read-only view still reads it as erased."""

from __future__ import annotations

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import decoded
from hindsight_es.events.sealing import placeholder_text
from hindsight_es.log import replay, started_log
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.log.keys import SqliteKeyStore
from hindsight_es.log.sealed import MissingKeyError, SealedLog, Sealer
from streams.service import catch_up_all


async def memory_events(log) -> list:
    return [e for records in [r async for r in replay(log, TOPIC_MEMORIES)] for _, e in decoded(records)]


async def test_a_process_with_other_keys_decides_nothing_and_commits_nothing(tmp_path):
    writers = Settings(data_dir=tmp_path / "a", partitions=1, embedder="minilm", record_recalls=False)
    embedder = make_embedder("minilm")
    async with started_log(writers) as log, Hindsight(writers, log=log, embedder=embedder) as hs:
        await hs.record_turn("split-1", "From now on we use FedEx for shipping.", session_id="s1", turn_id="t1")

    # the same log, read with a key store of its own (another data directory's keys.sqlite3)
    other = Settings(data_dir=tmp_path / "b", partitions=1, embedder="minilm", record_recalls=False)
    inner = EmbeddedLog(writers.log_path, 1)
    strange = SealedLog(inner, Sealer(SqliteKeyStore(other.keys_path)))
    await strange.start()
    try:
        with pytest.raises(MissingKeyError, match=r"turn:t1 of bank split-1 in SqliteKeyStore\(.*/b/keys.sqlite3"):
            await catch_up_all(other, strange, embedder=embedder)
        assert await memory_events(inner) == []  # no decision on the blank
        # a read-only view still reads it, as erased
        (record,) = await strange.read(TOPIC_TURNS, 0, 0, 1)
        assert placeholder_text(None) in record.value.decode()
    finally:
        await strange.close()

    # nothing was committed: with the writers' keys, the turn is decided from where it was
    async with started_log(writers) as log:
        await catch_up_all(writers, log, embedder=embedder)
        retained = [e for e in await memory_events(log) if e.type == "MemoryRetained"]
        assert any("FedEx" in e.text for e in retained), retained


async def test_a_rebuild_with_other_keys_stops_and_switches_nothing(tmp_path):
    """A rebuild writes the generation readers are switched to: with another key store it must not fill one
    with blanks (every memory "[erased]") but stop, naming the key store, and leave the current one."""
    from hindsight_es.stores import generations
    from projections.replay import rebuild

    writers = Settings(data_dir=tmp_path / "a", partitions=1, embedder="minilm", record_recalls=False)
    embedder = make_embedder("minilm")
    async with started_log(writers) as log, Hindsight(writers, log=log, embedder=embedder) as hs:
        await hs.record_turn("alice", "From now on we use FedEx for shipping.", session_id="s1", turn_id="t1")
        await catch_up_all(writers, log, embedder=embedder)
    before = generations.current(writers.data_dir)
    other = Settings(data_dir=tmp_path / "b", partitions=1, embedder="minilm", record_recalls=False)
    strange = SealedLog(EmbeddedLog(writers.log_path, 1), Sealer(SqliteKeyStore(other.keys_path)))
    await strange.start()
    try:
        with pytest.raises(MissingKeyError, match=r"of bank alice in SqliteKeyStore\(.*/b/keys.sqlite3"):
            await rebuild(writers, strange)
    finally:
        await strange.close()
    assert generations.current(writers.data_dir) == before
