"""A bank's history in the log: its state as of a time, rollback plans and requests, export and import.

Reads go through the ``EventLog`` port (only the bank's partition of each topic), so everything here
works the same on the embedded log and on Kafka; nothing here calls a model.
"""

from hindsight_es.history.bank import bank_records, memory_events, state_as_of
from hindsight_es.history.rollback import Plan, outcome, plan, request, retraction, undo, undone
from hindsight_es.history.transfer import Imported, export_bank, import_entries, read_export

__all__ = [
    "Imported",
    "Plan",
    "bank_records",
    "export_bank",
    "import_entries",
    "memory_events",
    "outcome",
    "plan",
    "read_export",
    "request",
    "retraction",
    "state_as_of",
    "undo",
    "undone",
]
