"""A whole bank's erasures are handled together, not one scan of everything per erasure: their outcomes are
read in one pass over the bank's memory partition, their keys destroyed in one write of the key store (a
destroy that finds every key destroyed changes nothing), and a session's units are selected without reading
the whole bank. 400 sessions: 25-36 s before, 7-8 s after (docs/operations.md)."""

from __future__ import annotations

import time
from pathlib import Path
from uuid import uuid4

from hindsight_es.client.outcome import Outcomes, memory_partition_end
from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.events import MemoryForgotten, encode
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.log.keys import Destruction, SqliteKeyStore, UnitTags


class CountingLog(EmbeddedLog):
    reads = 0

    async def read(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        CountingLog.reads += 1
        return await super().read(*args, **kwargs)


async def test_the_outcomes_of_inputs_recorded_together_are_read_in_one_pass(tmp_path: Path) -> None:
    log = CountingLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        partition, start = await memory_partition_end(log, "b")
        causes = [uuid4() for _ in range(50)]
        events = [MemoryForgotten(bank_id="b", causation_id=c, memory_id=uuid4()) for c in causes]
        await log.append(TOPIC_MEMORIES, "b", [encode(e) for e in events])
        asked: list[int] = []

        async def projected(part: int, last: int) -> bool:
            asked.append(last)
            return True

        outcomes = Outcomes(log, partition, start, projected)
        CountingLog.reads = 0
        done = [await outcomes.of(c, time.monotonic() + 10) for c in causes]
        assert [o.events[0].event_id for o in done] == [e.event_id for e in events]
        assert all(o.ready for o in done)
        assert CountingLog.reads == 1  # one read of the partition for all 50 (was one each, from the start)
        assert len(asked) == 1  # the projections hold everything read: the later ones are not asked again
    finally:
        await log.close()


def test_keys_destroyed_together_carry_each_erasures_tombstone_and_a_repeat_changes_nothing(tmp_path: Path) -> None:
    keys = SqliteKeyStore(tmp_path / "keys.sqlite3")
    try:
        units = {f"turn:s{s}-t{t}": UnitTags(f"s{s}", (f"s{s}-t{t}",)) for s in range(3) for t in range(2)}
        keys.keys("b", units)
        before = keys.generation()
        tombs = keys.destroy_all(
            [Destruction("b", (f"turn:s{s}-t0", f"turn:s{s}-t1"), "operator", f"reason {s}") for s in range(3)]
        )
        assert [t.reason for t in tombs] == ["reason 0", "reason 1", "reason 2"]
        found = keys.lookup("b", units)
        assert {u: k.reason for u, k in found.items()} == {u: f"reason {u[6]}" for u in units}  # type: ignore[union-attr]
        assert keys.generation() == before + 1  # one write for the batch
        keys.destroy("b", ["turn:s0-t0"], by="actor", reason="again")  # the actor's shred after the client's
        assert keys.generation() == before + 1
        assert keys.lookup("b", ["turn:s0-t0"])["turn:s0-t0"].reason == "reason 0"  # type: ignore[union-attr]
    finally:
        keys.close()


def test_a_sessions_units_are_its_own_and_those_drawn_from_its_turns(tmp_path: Path) -> None:
    keys = SqliteKeyStore(tmp_path / "keys.sqlite3")
    try:
        keys.keys(
            "b",
            {
                "turn:a-1": UnitTags("a", ("a-1",)),
                "turn:a-10": UnitTags("a", ("a-10",)),
                "memory:m1": UnitTags("a", ("a-1",)),
                "memory:m2": UnitTags(None, ("a-10", "b-1")),  # drawn from a's turn, keyed outside a session
                "memory:m3": UnitTags(None, ("a-100",)),  # a turn id that holds a-10 as a prefix: not a's
                "turn:b-1": UnitTags("b", ("b-1",)),
            },
        )
        assert keys.select("b", session_id="a") == ["memory:m1", "memory:m2", "turn:a-1", "turn:a-10"]
        assert keys.select("b", session_id="b") == ["memory:m2", "turn:b-1"]
        keys.destroy("b", ["memory:m2"], by="o", reason="r")
        assert keys.select("b", session_id="b") == ["turn:b-1"]
    finally:
        keys.close()
