"""The bank actor destroys an erasure's keys before it appends ``ContentErased``: once the log says the
content is erased, no key opens it, even when the erasing client died after recording its request and
before destroying anything (it records first so that a failure leaves the request, not live content)."""

from __future__ import annotations

from hindsight_es.client import Hindsight
from hindsight_es.client.inputs import build
from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.embedding import make_embedder
from hindsight_es.events import ContentErased, ErasureRequested, decoded
from hindsight_es.events.sealing import Erased
from hindsight_es.log import replay, started_log
from hindsight_es.log.keys import SqliteKeyStore
from streams.service import catch_up_all


async def test_the_actor_destroys_the_keys_of_an_erasure_no_client_finished(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm", record_recalls=False)
    embedder = make_embedder("minilm")
    async with started_log(settings) as log, Hindsight(settings, log=log, embedder=embedder) as hs:
        await hs.record_turn("alice", "My passport number is ZX9931Q.", session_id="s1", turn_id="t1")
        await hs.record_turn("alice", "I prefer green tea in the morning.", session_id="s2", turn_id="t2")
        await catch_up_all(settings, log, embedder=embedder)
        keys = log.sealer.keys  # type: ignore[attr-defined]
        units = keys.select("alice", session_id="s1")
        assert units and not any(isinstance(k, Erased) for k in keys.lookup("alice", units).values())

        # the erasing client records its request and dies before it destroys anything
        request = build(ErasureRequested, bank_id="alice", session_id="s1", units=tuple(units), reason="art. 17")
        await hs.send(request)
        await catch_up_all(settings, log, embedder=embedder)

        erased = [e for e in await memory_events(log) if isinstance(e, ContentErased)]
        assert len(erased) == 1 and erased[0].session_id == "s1"
    store = SqliteKeyStore(settings.keys_path)
    try:
        after = store.lookup("alice", units)
        assert set(after) == set(units) and all(isinstance(k, Erased) for k in after.values())
        assert {k.by for k in after.values()} == {request.actor}
        assert not any(
            isinstance(k, Erased) for k in store.lookup("alice", store.select("alice", session_id="s2")).values()
        )
    finally:
        store.close()


async def memory_events(log):
    return [e for records in [r async for r in replay(log, TOPIC_MEMORIES)] for _, e in decoded(records)]
