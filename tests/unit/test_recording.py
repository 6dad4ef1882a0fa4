"""Recording served recalls off the read path: summed per bank, one bounded event per interval, never raising;
and the JSON log lines that carry lifecycle decisions."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from uuid import uuid4

from hindsight_es.client.recording import RecallRecorder
from hindsight_es.config import TOPIC_COMMANDS
from hindsight_es.events import RecallsTallied, decode
from hindsight_es.events.inputs import MAX_TALLIED
from hindsight_es.logs import JsonFormatter


class FakeLog:
    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.appended: list[tuple[str, str, list[bytes]]] = []

    async def append(self, topic: str, key: str, values: Sequence[bytes]) -> list[int]:
        if self.fail:
            raise ConnectionError("log down")
        self.appended.append((topic, key, list(values)))
        return list(range(len(values)))


async def test_recalls_are_summed_per_bank_and_appended_once_per_interval():
    log = FakeLog()
    recorder = RecallRecorder(log, flush_s=0.05)  # type: ignore[arg-type]
    tea, jazz, lake = uuid4(), uuid4(), uuid4()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(300):  # 300 recalls within the interval
        recorder.served("a", [tea, jazz] if i % 3 else [tea], at=t0 + timedelta(seconds=i))
    recorder.served("b", [lake], [lake], at=t0)
    assert log.appended == []  # served() only counts
    await asyncio.sleep(0.3)
    assert [(t, k, len(v)) for t, k, v in log.appended] == [(TOPIC_COMMANDS, "a", 1), (TOPIC_COMMANDS, "b", 1)]
    a, b = (decode(v) for _, _, values in log.appended for v in values)
    assert isinstance(a, RecallsTallied) and isinstance(b, RecallsTallied)
    assert a.recalls == 300 and a.since == t0 and a.dropped == 0
    assert [(u.memory_id, u.count, u.last_at) for u in a.uses] == [
        (tea, 300, t0 + timedelta(seconds=299)),
        (jazz, 200, t0 + timedelta(seconds=299)),
    ]
    assert b.restore_ids == (lake,) and b.uses[0].count == 1
    recorder.served("a", [tea])
    await recorder.close()
    assert len(log.appended) == 3  # the next interval's recall, flushed on close


async def test_an_event_is_bounded_whatever_the_recall_rate_and_says_what_it_left_out():
    log = FakeLog()
    recorder = RecallRecorder(log, flush_s=60, max_memories=MAX_TALLIED + 100)  # type: ignore[arg-type]
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    hot = [uuid4() for _ in range(10)]
    for i in range(2000):  # every recall serves the ten hot memories and ten seen once
        recorder.served("a", hot + [uuid4() for _ in range(10)], at=t0 + timedelta(milliseconds=i))
    await recorder.close()
    (values,) = [v for _, _, v in log.appended]
    (event,) = [decode(v) for v in values]
    assert isinstance(event, RecallsTallied) and len(event.uses) == MAX_TALLIED and event.recalls == 2000
    assert [u.memory_id for u in event.uses[:10]] == sorted(hot, key=lambda m: str(m)) and event.uses[0].count == 2000
    # memories past max_memories were not counted; of those counted, the least recalled were left out
    # (the 100 counted beyond the cap, and 600 of the 19,410 never counted: that count is bounded too)
    assert event.dropped == 100 + (MAX_TALLIED + 100) and recorder.dropped == event.dropped
    assert len(values[0]) < 64 * 1024  # bytes: bounded by the cap (~104 B a memory), not by the 2000 recalls


async def test_a_failing_log_drops_the_tally_and_never_raises(caplog):
    recorder = RecallRecorder(FakeLog(fail=True), flush_s=0.01)  # type: ignore[arg-type]
    recorder.served("a", [uuid4()])
    with caplog.at_level(logging.WARNING, "hindsight.recording"):
        await recorder.close()
    assert recorder.dropped == 1 and recorder.tallies == {}
    assert "could not record the recalls of bank a (1 memory)" in caplog.text  # not "1 memories"


def test_json_log_lines_carry_the_extra_fields():
    record = logging.LogRecord(
        "hindsight.lifecycle", logging.INFO, __file__, 1, "bank %s: %d archived", ("alice", 3), None
    )
    record.bank, record.archived = "alice", 3
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "bank alice: 3 archived" and line["level"] == "INFO"
    assert line["bank"] == "alice" and line["archived"] == 3 and line["logger"] == "hindsight.lifecycle"
    assert line["ts"].endswith("+00:00") and line["pid"] == os.getpid()


def test_an_operator_sees_erasures_rollbacks_and_the_guard_in_the_lifecycle_log(caplog) -> None:
    """A tour found only archive, forget and restore lines: an erase, a rollback or a quarantine left no trace."""
    from types import SimpleNamespace
    from uuid import uuid4

    from streams.metrics import observe

    cause = uuid4()
    decided = ["ContentErased", "SourceRetracted", "MemoryQuarantined", "MemoryQuarantined", "DisputeResolved"]
    events = [SimpleNamespace(type=t, causation_id=cause) for t in [*decided, "MemoryRetained"]]
    with caplog.at_level(logging.INFO, logger="hindsight.lifecycle"):
        observe("bob", events)  # type: ignore[arg-type]
    (record,) = caplog.records
    assert record.getMessage() == "bank bob: 1 dispute resolved, 1 erased, 2 quarantined, 1 rollback"
    assert (record.erased, record.quarantined, record.rollbacks, record.disputes_resolved) == (1, 2, 1, 1)


def test_the_lifecycle_log_says_one_command_and_many_commands(caplog) -> None:
    """Found by an operator: a forget that changed nothing logged "bank alice: 1 commands ignored"."""
    from types import SimpleNamespace
    from uuid import uuid4

    from streams.metrics import observe

    with caplog.at_level(logging.INFO, logger="hindsight.lifecycle"):
        for n in (1, 2):
            observe("alice", [SimpleNamespace(type="CommandIgnored", causation_id=uuid4())] * n)  # type: ignore[list-item]
    assert [r.getMessage() for r in caplog.records] == [
        "bank alice: 1 command ignored",
        "bank alice: 2 commands ignored",
    ]
    assert [r.commands_ignored for r in caplog.records] == [1, 2]  # the JSON log's field keeps its name
