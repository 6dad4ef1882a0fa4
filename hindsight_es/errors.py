"""Error hierarchy of the kernel; the gateway and CLI convert these at their edges.

HindsightError
 ├── ConfigError            bad settings or unknown names
 ├── InvalidInputError      a request or record that cannot be accepted (text too long, bad UTF-8, …)
 │    └── DecodeError       bytes that are not a known, valid event
 ├── LogError               the event log cannot be reached or refused an operation
 │    └── LogUnavailableError
 ├── StoreError             a projection store failed
 └── NotFoundError          an unknown bank, memory or session
"""

from __future__ import annotations


class HindsightError(Exception):
    """Base of every error hindsight raises on purpose."""


class ConfigError(HindsightError):
    pass


class InvalidInputError(HindsightError):
    pass


class DecodeError(InvalidInputError):
    pass


class LogError(HindsightError):
    pass


class LogUnavailableError(LogError):
    pass


class StoreError(HindsightError):
    pass


class NotFoundError(HindsightError):
    pass
