"""The LanceDB tables' schemas, their row keys, and their tracking rows (``stores.tracking``)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from hindsight_es.stores.tracking import POSITION_BANK, Positions, tracking_key

KEYS = {"memories": "memory_id", "turns": "turn_key"}  # each table's row key


# Vectors in float16: half the bytes of float32, and far finer than the int8 codes events carry them in
# (``events.vectors``), so recall ranks the same. Tables written by older releases keep float32
# (``LanceStore`` writes into them as they are).
VECTOR_VALUE = pa.float16()


def memory_schema(dim: int) -> pa.Schema:
    ts = pa.timestamp("us", tz="UTC")
    return pa.schema(
        [
            ("memory_id", pa.string()),
            ("bank_id", pa.string()),
            ("status", pa.string()),
            ("kind", pa.string()),
            ("text", pa.string()),
            ("search_text", pa.string()),
            ("text_ngram", pa.string()),
            ("key", pa.string()),
            ("value", pa.string()),
            ("entities", pa.list_(pa.string())),
            ("importance", pa.float32()),
            ("confidence", pa.float32()),
            ("scope", pa.string()),
            ("session_id", pa.string()),
            ("speaker", pa.string()),
            ("source", pa.string()),
            ("trust", pa.string()),
            ("actor", pa.string()),
            ("source_turn_ids", pa.list_(pa.string())),
            ("valid_from", ts),
            ("valid_to", ts),
            ("supersedes", pa.string()),
            ("superseded_by", pa.string()),
            ("embedder", pa.string()),
            ("extractor", pa.string()),
            ("vector", pa.list_(VECTOR_VALUE, dim)),
            ("topic", pa.string()),
            ("partition", pa.int32()),
            ("offset", pa.int64()),
            ("owner", pa.string()),  # added after the first release: older tables gain it in ``_ensure``
            ("script", pa.string()),  # "cjk" | "latin" (of the text); added later: null on older rows
            # Provenance and disputes (memory.trust, memory.disputes); added later: null on older rows, whose
            # provenance is their source's
            ("provenance", pa.string()),
            ("confirmed", pa.bool_()),
            ("disputes", pa.string()),
            ("disputed_by", pa.list_(pa.string())),
            ("quote", pa.string()),  # the words a typed memory's statement was drawn from; added later
            # What recall shows of the row, derived from its columns on every write (``stores.cards``);
            # added later: null on rows not written since
            ("card", pa.string()),
        ]
    )


TURN_SCHEMA = pa.schema(
    [
        ("turn_key", pa.string()),
        ("bank_id", pa.string()),
        ("session_id", pa.string()),
        ("turn_id", pa.string()),
        ("role", pa.string()),
        ("speaker", pa.string()),
        ("source", pa.string()),
        ("text", pa.string()),
        ("occurred_at", pa.timestamp("us", tz="UTC")),
        ("topic", pa.string()),
        ("partition", pa.int32()),
        ("offset", pa.int64()),
    ]
)


def tracking_table(schema: pa.Schema, key: str, positions: Positions) -> pa.Table:
    """The tracking rows of ``positions`` in a table's schema (a zero vector where the table has one)."""
    rows: list[dict[str, Any]] = []
    for (topic, partition), offset in sorted(positions.items()):
        row: dict[str, Any] = {
            key: tracking_key(topic, partition),
            "bank_id": POSITION_BANK,
            "topic": topic,
            "partition": partition,
            "offset": offset,
        }
        if "vector" in schema.names:  # the memories table: columns its indexes need set
            row |= {
                "status": "position",
                "kind": "position",
                "text": "",
                "search_text": "",
                "text_ngram": "",
                "entities": [],
                "source_turn_ids": [],
                "vector": [0.0] * schema.field("vector").type.list_size,
            }
        rows.append(row)
    return pa.Table.from_pylist(rows, schema=schema)
