"""Derived ids: an event or memory id that is a function of the input that caused it, so a
redelivered input yields the same ids."""

from __future__ import annotations

from uuid import NAMESPACE_URL, UUID, uuid5

_NAMESPACE = uuid5(NAMESPACE_URL, "https://hindsight.local/ids")


def derive_id(cause: UUID, suffix: str) -> UUID:
    return uuid5(_NAMESPACE, f"{cause}/{suffix}")


def memory_id(cause: UUID, index: int) -> UUID:
    """The id of the ``index``-th memory an input (a turn, a correction) retains."""
    return derive_id(cause, f"memory/{index}")
