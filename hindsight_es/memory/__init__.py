"""Pure memory logic: ``decide`` what happens, ``evolve`` the bank state by what happened."""

from hindsight_es.memory.commands import plan_retraction
from hindsight_es.memory.decide import decide
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import Prepared
from hindsight_es.memory.state import BankState, MemoryInfo, evolve, fold

__all__ = ["BankState", "MemoryInfo", "Prepared", "decide", "derive_id", "evolve", "fold", "plan_retraction"]
