"""Dead letters: a record that cannot be decided on goes to ``hindsight.deadletter`` with the reason."""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Awaitable, Callable, Sequence

from hindsight_es.config import TOPIC_DEAD_LETTER
from hindsight_es.log import EventLog, Record

log_ = logging.getLogger("hindsight.deadletter")


async def dead_letter(
    log: EventLog,
    record: Record,
    reason: str,
    *,
    publish: Callable[[str, str, Sequence[bytes]], Awaitable[list[int]]] | None = None,
) -> None:
    log_.warning("dead letter %s/%d@%d: %s", record.topic, record.partition, record.offset, reason)
    body = {
        "topic": record.topic,
        "partition": record.partition,
        "offset": record.offset,
        "key": record.key,
        "reason": reason,
        "value_b64": base64.b64encode(record.value).decode("ascii"),
    }
    await (publish or log.append)(TOPIC_DEAD_LETTER, record.key or "unknown", [json.dumps(body).encode("utf-8")])
