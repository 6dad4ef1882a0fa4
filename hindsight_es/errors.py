"""Error hierarchy of the kernel; the gateway and CLI convert these at their edges.

HindsightError
 ├── ConfigError            bad settings or unknown names
 │    └── ReadOnlyError     a write to a data directory this process may only read (a backup, a read-only mount)
 ├── InvalidInputError      a request or record that cannot be accepted (text too long, bad UTF-8, …)
 │    ├── DecodeError       bytes that are not a known, valid event
 │    └── ConflictError     a valid request the memory's current state refuses (forget a forgotten one, …)
 ├── LogError               the event log cannot be reached or refused an operation
 │    ├── LogUnavailableError
 │    └── LogFullError      the log's storage is full (disk, or HINDSIGHT_LOG_MAX_BYTES): writes wait
 ├── StoreError             a projection store failed
 ├── NotFoundError          an unknown bank, memory or session
 │    └── ErasedError       a memory whose content was erased: no store holds it, its history stays
 ├── AccessDeniedError      a caller asked for a bank its credentials do not cover
 └── ExtractionError        the LLM extractor gave no usable answer (time-out, bad JSON, refusal, …)
"""

from __future__ import annotations


class HindsightError(Exception):
    """Base of every error hindsight raises on purpose."""


class ConfigError(HindsightError):
    pass


class ReadOnlyError(ConfigError):
    """A write asked of a data directory this process may only read: the commands that read still answer."""

    def __init__(self, directory: object, what: str) -> None:
        super().__init__(
            f"the data directory {directory} is read-only (a backup, or a mount without write permission): "
            f"cannot {what}"
        )


class InvalidInputError(HindsightError):
    pass


class DecodeError(InvalidInputError):
    pass


class ConflictError(InvalidInputError):
    pass


class LogError(HindsightError):
    pass


class LogUnavailableError(LogError):
    pass


class LogFullError(LogError):
    pass


class StoreError(HindsightError):
    pass


class NotFoundError(HindsightError):
    pass


class ErasedError(NotFoundError):
    pass


class AccessDeniedError(HindsightError):
    pass


class ExtractionError(HindsightError):
    """``kind``: timeout | unavailable | http | empty | invalid_json | truncated | off_schema | refused."""

    def __init__(self, kind: str, message: str, *, calls: int = 0) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.calls = calls
