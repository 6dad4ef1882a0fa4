"""One system behind HTTP, in its own process: the same thin server (Starlette on uvicorn) for every
adapter, so every system pays the same transport.

    POST /ingest  {"conversation_id": bank, "turns": [...], "more": false}  -> {"ok": true}
    POST /query   {"conversation_id": bank, "question": "...", "k": 20}     -> {"dia_ids": [...]}
    GET  /stats                                                              -> {"pids": [...], "disk_bytes": n}

These are the request bodies of ``locomo_retrieval.py --http`` (which never sends ``more``: each of its
ingests is made searchable before the reply). The peers' driver sends ``"more": true`` on every chunk
but the last, so index builds and pipeline drains happen once.

    python -m benchmarks.peers.server --system mem0-pgvector --data DIR --port P [--option k=v ...]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from benchmarks.peers.systems.base import System, items_from_body

ADAPTERS = {  # system name -> "module:Class"
    "hindsight": "benchmarks.peers.systems.hindsight:HindsightSystem",
    "hindsight-minilm": "benchmarks.peers.systems.hindsight:HindsightSystem",
    "lancedb": "benchmarks.peers.systems.lance:LanceSystem",
    "mem0-pgvector": "benchmarks.peers.systems.mem0_peer:Mem0System",
    "mem0-qdrant": "benchmarks.peers.systems.mem0_peer:Mem0System",
    "vectorize": "benchmarks.peers.systems.vectorize:VectorizeSystem",
}


def make_system(name: str, data_dir: Path, options: dict[str, Any]) -> System:
    module, cls = ADAPTERS[name].split(":")
    system: System = getattr(importlib.import_module(module), cls)(data_dir, {"system": name, **options})
    return system


def build_app(system: System) -> Starlette:
    ingest_lock = asyncio.Lock()

    async def ingest(request: Request) -> JSONResponse:
        body = await request.json()
        async with ingest_lock:
            t0 = time.perf_counter()
            await system.ingest(str(body["conversation_id"]), items_from_body(body))
            if not body.get("more"):
                await system.finish()
        return JSONResponse({"ok": True, "seconds": time.perf_counter() - t0})

    async def query(request: Request) -> JSONResponse:
        body = await request.json()
        ids = await system.query(str(body["conversation_id"]), str(body["question"]), int(body.get("k", 20)))
        return JSONResponse({"dia_ids": ids})

    async def stats(request: Request) -> JSONResponse:
        disk = await asyncio.to_thread(system.disk_bytes)
        endpoint = getattr(system, "endpoint", None)
        return JSONResponse(
            {
                "pids": system.pids(),
                "disk_bytes": disk,
                "notes": system.config_notes(),
                "endpoint": endpoint() if endpoint else None,
                "details": await system.details(),
            }
        )

    routes = [
        Route("/ingest", ingest, methods=["POST"]),
        Route("/query", query, methods=["POST"]),
        Route("/stats", stats, methods=["GET"]),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        try:
            await system.start()
        except BaseException:
            await system.close()  # a helper process started before the failure is stopped
            raise
        print("READY", flush=True)
        yield
        await system.close()

    return Starlette(routes=routes, lifespan=lifespan)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--system", required=True, choices=sorted(ADAPTERS))
    ap.add_argument("--data", required=True, type=Path)
    ap.add_argument("--port", required=True, type=int)
    ap.add_argument("--options", default="{}", help="JSON object of adapter options")
    a = ap.parse_args(argv)
    logging.basicConfig(level=os.environ.get("PEERS_LOG", "WARNING"), stream=sys.stderr)
    a.data.mkdir(parents=True, exist_ok=True)
    system = make_system(a.system, a.data, json.loads(a.options))
    # One worker process, one event loop: sync adapters run their calls on its thread pool.
    uvicorn.run(build_app(system), host="127.0.0.1", port=a.port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main()
