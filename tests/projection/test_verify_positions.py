"""``replay verify`` rebuilds each table to where it stands. The turns table also follows the memories topic and
commits its position there only with rows of its own, so after a supersession it can stand behind the memories
table on that topic; one position map for both rebuilt the memories table short of the supersession and
reported a mismatch on a store that was right (found through the README's tour: a `local` session, then
`replay verify`)."""

from __future__ import annotations

from hindsight_es.app.local import local
from hindsight_es.config import TOPIC_MEMORIES, Settings
from hindsight_es.log import started_log
from hindsight_es.stores import generations
from hindsight_es.stores.lance import LanceStore
from projections.replay import verify


async def test_verify_passes_when_the_turns_table_stands_behind_on_the_memories_topic(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    for text in ["we moved to Paris", "we moved to Lisbon"]:  # as the README's Python example, run twice
        async with local(settings) as hs:
            await hs.retain("alice", text, session_id="s1", wait=True)
    # A forget has no row in the turns table, so after it that table stands behind whatever the timing of the
    # supersession (which it can apply in one batch with the turn it has a row for, on a loaded machine)
    async with local(settings) as hs:
        hit = (await hs.recall("alice", "where do we live?", limit=1))[0]
        await hs.forget("alice", hit.memory_id, reason="test", wait=True)
    lance = LanceStore(generations.current(settings.data_dir)["lance"])
    memories = lance.positions("memories")[(TOPIC_MEMORIES, 0)]
    turns = lance.positions("turns")[(TOPIC_MEMORIES, 0)]
    assert turns < memories  # the case: the two tables stand apart on one topic
    async with started_log(settings) as log:
        verdict = await verify(settings, log)
    assert verdict.difference is None, verdict.difference
    assert any(c.table == "memories" and c.rows and c.ok for c in verdict.checks)
