"""Pure memory logic: ``decide`` what happens, ``evolve`` the bank state by what happened."""

from hindsight_es.memory.decide import Prepared, decide, derive_id, plan_retraction
from hindsight_es.memory.state import BankState, MemoryInfo, evolve, fold

__all__ = ["BankState", "MemoryInfo", "Prepared", "decide", "derive_id", "evolve", "fold", "plan_retraction"]
