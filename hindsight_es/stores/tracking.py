"""Tracking records: where a projection stands in the log, written in the same commit as its rows.

A projection's position per (topic, partition) is the next offset it will apply. The LanceDB tables
keep it as a row per (topic, partition) beside the data rows (``bank_id = POSITION_BANK``), written in
the same commit (a merge, or an append with a loose row keyed by offset), so a crash can never separate
a view from its position and a rebuild is the same code on an empty table. The archive keeps it in its
file names. Only ``hindsight_es.stores`` knows either layout; projections read and write ``Positions``.
"""

from __future__ import annotations

from hindsight_es.types import RESERVED_BANK, TopicPartition

POSITION_BANK = RESERVED_BANK  # reserved: ``types.BankId`` refuses it, so no bank can be read as positions
Positions = dict[TopicPartition, int]


def tracking_key(topic: str, partition: int, offset: int | None = None) -> str:
    """The key of a table's tracking row for one topic-partition; with ``offset``, of a loose one: a
    position appended beside the rows it covers (``LanceStore.commit(appended=True)``), one per commit.
    A table's position for a topic-partition is the largest offset among its rows, loose or not."""
    return f"{POSITION_BANK}/{topic}/{partition}" + ("" if offset is None else f"@{offset}")


def newest(rows: list[dict[str, int | str]]) -> Positions:
    """The positions of a table's tracking rows (``topic``, ``partition``, ``offset``): the largest
    offset per topic-partition, since offsets only grow."""
    out: Positions = {}
    for row in rows:
        at = (str(row["topic"]), int(row["partition"]))
        out[at] = max(out.get(at, 0), int(row["offset"]))
    return out
