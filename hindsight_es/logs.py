"""Logging set-up: text lines, or one JSON object per line (``Settings.log_format = "json"``).

A JSON line has ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``pid``, ``message`` and every ``extra`` field the
call passed (``log_.info("...", extra={"bank": "alice", "archived": 12})``), so lifecycle decisions,
janitor ticks and failures can be filtered by bank and counted by a log pipeline.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from hindsight_es.config import Settings

_RECORD_FIELDS = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}
NOISY = ("aiokafka", "httpx", "httpx2", "lance", "mcp")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,  # `up` and its readers write to one stream
            "message": record.getMessage(),
        }
        line.update({k: v for k, v in vars(record).items() if k not in _RECORD_FIELDS and not k.startswith("_")})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(settings: Settings) -> None:
    """Log to stderr at ``settings.log_level`` in ``settings.log_format``; quiet the chatty libraries."""
    handler = logging.StreamHandler(sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        # the pid: `up` and its readers (``HINDSIGHT_READERS``, one per core by default) share this stream
        handler.setFormatter(logging.Formatter("%(asctime)s [%(process)d] %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=settings.log_level.upper(), handlers=[handler])  # no-op if already set up
    logging.captureWarnings(True)  # a library's warning is a log line too (JSON in JSON mode)
    for noisy in NOISY:
        logging.getLogger(noisy).setLevel(logging.WARNING)
