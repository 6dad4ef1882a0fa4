"""Memory ids as the shell gives them: whole, or a unique prefix of 8 or more characters, as ``git`` reads a
short commit id. Every command that takes memory ids resolves them here, in the command's bank, so each reads
a prefix alike and refuses alike: too short or ambiguous is a usage error (exit 2), none is not found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING
from uuid import UUID

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight

ID_HELP = "A memory id (from recall), or a unique prefix of it (8+ characters)"
PREFIX = re.compile(r"[0-9a-f][0-9a-f-]{7,35}")  # 8 or more characters of an id, as a table prints it


def ids_help(listed_by: str = "recall") -> str:
    """The help of an argument of memory ids, which ``listed_by`` prints."""
    return f"Memory ids (from {listed_by}), or unique prefixes of 8+ characters"


async def whole_id(hs: Hindsight, memory_id: str, bank: str | None) -> UUID:
    """The memory id ``memory_id`` names: itself when whole, else the one retained memory (of ``bank``, if
    given) whose id starts with it. The archive answers: drain the log first (``catch_up_if_idle``)."""
    from hindsight_es.client import memory_uuid
    from hindsight_es.errors import InvalidInputError, NotFoundError

    wanted = memory_id.strip().lower()
    if len(wanted) == 36 or not PREFIX.fullmatch(wanted):
        if len(wanted) < 8 and re.fullmatch(r"[0-9a-f-]+", wanted):
            raise InvalidInputError(f"{memory_id!r} is too short: give a memory id, or 8 or more characters of one")
        return memory_uuid(memory_id)
    found = await hs.conn.read(lambda: hs.stores().archive.memory_ids_starting(wanted, bank))
    where = f" in bank {bank!r}" if bank else ""
    if not found:
        raise NotFoundError(f"no memory id starts with {memory_id!r}{where} (recall and replay state print ids)")
    if len(found) > 1:
        raise InvalidInputError(f"{memory_id!r} starts more than one memory id{where}: give more of it")
    return UUID(found[0])


async def whole_ids(hs: Hindsight, memory_ids: Sequence[str], bank: str) -> tuple[UUID, ...]:
    """``whole_id`` of each, in the order given."""
    return tuple([await whole_id(hs, memory_id, bank) for memory_id in memory_ids])


__all__ = ["ID_HELP", "PREFIX", "ids_help", "whole_id", "whole_ids"]
