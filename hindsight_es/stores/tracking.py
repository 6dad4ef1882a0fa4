"""Tracking records: where a projection stands in the log, written in the same commit as its rows.

A projection's position per (topic, partition) is the next offset it will apply. The LanceDB tables
keep it as one row per (topic, partition) beside the data rows (``bank_id = POSITION_BANK``), written
in the same ``merge_insert``, so a crash can never separate a view from its position and a rebuild is
the same code on an empty table. The archive keeps it in its file names. Only ``hindsight_es.stores``
knows either layout; projections read and write ``Positions``.
"""

from __future__ import annotations

from hindsight_es.types import RESERVED_BANK, TopicPartition

POSITION_BANK = RESERVED_BANK  # reserved: ``types.BankId`` refuses it, so no bank can be read as positions
Positions = dict[TopicPartition, int]


def tracking_key(topic: str, partition: int) -> str:
    """The key of a table's tracking row for one topic-partition."""
    return f"{POSITION_BANK}/{topic}/{partition}"
