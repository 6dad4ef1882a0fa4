"""Recording served recalls off the read path: queued, appended per bank in the background, never raising;
and the JSON log lines that carry lifecycle decisions."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence
from uuid import uuid4

from hindsight_es.client.recording import RecallRecorder
from hindsight_es.config import TOPIC_COMMANDS
from hindsight_es.events import RecallServed, decode
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


def served(bank: str) -> RecallServed:
    return RecallServed(bank_id=bank, memory_ids=(uuid4(),))


async def test_recalls_are_appended_per_bank_after_the_call_returns():
    log = FakeLog()
    recorder = RecallRecorder(log, flush_s=0.01)  # type: ignore[arg-type]
    events = [served("a"), served("b"), served("a")]
    for event in events:
        recorder.record(event)
    assert log.appended == []  # record() only queues
    await asyncio.sleep(0.1)
    assert [(t, k, len(v)) for t, k, v in log.appended] == [(TOPIC_COMMANDS, "a", 2), (TOPIC_COMMANDS, "b", 1)]
    assert [decode(v) for _, _, values in log.appended for v in values] == [events[0], events[2], events[1]]


async def test_a_failing_log_drops_the_records_and_never_raises(caplog):
    recorder = RecallRecorder(FakeLog(fail=True), flush_s=0.01)  # type: ignore[arg-type]
    recorder.record(served("a"))
    with caplog.at_level(logging.WARNING, "hindsight.recording"):
        await recorder.close()
    assert recorder.dropped == 1 and recorder.pending == []
    assert "could not record 1 served recalls of bank a" in caplog.text


async def test_close_flushes_what_is_queued_and_the_queue_is_bounded():
    log = FakeLog()
    recorder = RecallRecorder(log, flush_s=60, max_pending=2)  # type: ignore[arg-type]
    for _ in range(5):
        recorder.record(served("a"))
    await recorder.close()
    assert recorder.dropped == 3 and sum(len(v) for _, _, v in log.appended) == 2


def test_json_log_lines_carry_the_extra_fields():
    record = logging.LogRecord(
        "hindsight.lifecycle", logging.INFO, __file__, 1, "bank %s: %d archived", ("alice", 3), None
    )
    record.bank, record.archived = "alice", 3
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "bank alice: 3 archived" and line["level"] == "INFO"
    assert line["bank"] == "alice" and line["archived"] == 3 and line["logger"] == "hindsight.lifecycle"
    assert line["ts"].endswith("+00:00")
