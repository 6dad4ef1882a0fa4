"""LanceDB alone: the floor of hindsight's stack. One table, MiniLM vectors, LanceDB's own hybrid query
(a vector search and a full-text search, fused by its RRF reranker), prefiltered on the bank.

Indexes follow hindsight's policy so the floor is like for like: a full-text index with the simple
tokenizer, stemming and stop words (hindsight's English index; hindsight adds an n-gram index for
Chinese, which one LanceDB hybrid query cannot use beside it), a bitmap on the bank, and an IVF_SQ
vector index of 256-row partitions once the table has 5,000 rows, probed 32 partitions deep.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pyarrow as pa

from benchmarks.peers.embedder import DIM, shared
from benchmarks.peers.systems.base import Item, System

VECTOR_INDEX_ROWS = 5_000
PARTITION_ROWS = 256
NPROBES = 32
SCHEMA = pa.schema(
    [
        pa.field("id", pa.string()),
        pa.field("bank", pa.string()),
        pa.field("text", pa.string()),
        pa.field("vector", pa.list_(pa.float32(), DIM)),
    ]
)


class LanceSystem(System):
    name = "lancedb"

    async def start(self) -> None:
        import lancedb

        self.embedder = shared()
        self.db = lancedb.connect(str(self.data_dir / "lancedb"))
        self.table: Any = None
        self.indexed = False

    async def ingest(self, bank: str, items: list[Item]) -> None:
        texts = [i.plain_text for i in items]
        vectors = await asyncio.to_thread(self.embedder.embed, texts)
        batch = pa.Table.from_pydict(
            {
                "id": [i.id for i in items],
                "bank": [bank] * len(items),
                "text": texts,
                "vector": list(vectors),
            },
            schema=SCHEMA,
        )

        def add() -> None:
            if self.table is None:
                self.table = self.db.create_table("memories", batch, exist_ok=False)
            else:
                self.table.add(batch)

        await asyncio.to_thread(add)

    async def finish(self) -> None:
        from lancedb.index import FTS, Bitmap, IvfSq

        def build() -> None:
            table = self.table
            names = {i.name for i in table.list_indices()}
            if "text_idx" not in names:
                table.create_index("text", config=FTS(base_tokenizer="simple", stem=True, remove_stop_words=True))
            if "bank_idx" not in names:
                table.create_index("bank", config=Bitmap())
            if "vector_idx" not in names and table.count_rows() >= VECTOR_INDEX_ROWS:
                table.create_index("vector", config=IvfSq(distance_type="cosine", target_partition_size=PARTITION_ROWS))
            table.optimize()  # folds rows added since into every index
            self.indexed = "vector_idx" in {i.name for i in table.list_indices()}

        await asyncio.to_thread(build)

    async def query(self, bank: str, question: str, k: int) -> list[str]:
        from lancedb.rerankers import RRFReranker

        vector = (await asyncio.to_thread(self.embedder.embed, [question]))[0]

        def search() -> list[str]:
            q = (
                self.table.search(query_type="hybrid")
                .vector(vector)
                .text(question)
                .where(f"bank = '{bank.replace(chr(39), chr(39) * 2)}'", prefilter=True)
                .limit(k)
                .rerank(RRFReranker())
                .select(["id"])
                .distance_type("cosine")
            )
            if self.indexed:
                q = q.nprobes(NPROBES)
            return [r["id"] for r in q.to_list()]

        return await asyncio.to_thread(search)

    def config_notes(self) -> list[str]:
        return [
            "MiniLM int8 (vendored), one text at a time on a 2-thread pool",
            "LanceDB hybrid query: vector + FTS (simple tokenizer, English stemming; no Chinese tokens), RRF k=60",
            f"IVF_SQ from {VECTOR_INDEX_ROWS:,} rows, {PARTITION_ROWS}-row partitions, nprobes {NPROBES}; exact below",
        ]
