"""Small shared aliases and the constrained strings used across events and stores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

import numpy as np
from pydantic import AfterValidator, StringConstraints

TopicPartition = tuple[str, int]
Vector = np.ndarray | Sequence[float]  # a query vector: an embedder's float32 array, or plain floats
RESERVED_BANK = "__positions__"  # the stores' tracking rows use it (``stores.tracking``): no bank may


def _not_reserved(bank_id: str) -> str:
    if bank_id == RESERVED_BANK:
        raise ValueError(f"{RESERVED_BANK!r} is reserved")
    return bank_id


BankId = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[\w.:@\-]+$"), AfterValidator(_not_reserved)
]
SessionId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
TurnId = Annotated[str, StringConstraints(min_length=1, max_length=256)]
# An agent that owns private memories in a bank (never "*", which means "every agent" in filters).
AgentId = Annotated[str, StringConstraints(min_length=1, max_length=128, pattern=r"^[\w.:@\-]+$")]

Role = Literal["user", "assistant", "system", "tool"]
Source = Literal["user", "assistant", "tool", "document"]
Trust = Literal["trusted", "normal", "untrusted"]
Scope = Literal["global", "session", "task"]
# Whose word a memory is: the bank's owner ("user"), another user of a shared bank, the assistant, a
# tool, a document. Derived from the turn's authenticated principal and its relation to the bank.
Provenance = Literal["user", "other_user", "assistant", "tool", "document"]
MemoryKind = Literal["episode", "fact", "preference", "plan", "decision", "correction", "constraint", "summary"]

# Default trust of each source: what a user says beats what a tool or a retrieved document says.
DEFAULT_TRUST: dict[str, Trust] = {
    "user": "trusted",
    "assistant": "normal",
    "tool": "untrusted",
    "document": "untrusted",
}
