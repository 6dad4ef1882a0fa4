"""``bench mcp``: recall latency through the gateway: MCP (the SDK's client, over HTTP and stdio) beside the
HTTP API (the remote Python client, ``POST /v1/banks/{bank}/recall``).

Builds a bank from synthetic turns through the pipeline, then times the same recall calls over
streamable HTTP MCP and the HTTP API against one ``hindsight-es up``, and over stdio against
``hindsight-es mcp`` (real subprocesses on the data directory), and each transport's own round trip
(``tools/list``; ``GET /v1/banks``). The kernel's recall alone is ``bench recall``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

import typer

from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError
from hindsight_es.stores.filters import MemoryFilter

QUERIES = [
    "where did I move?",
    "which database do we use?",
    "我对什么过敏？",
    "favorite color",
    "painting by the lake",
    "下周去哪里出差？",
    "what language should replies be in?",
    "billing service",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


async def timed(calls: int, fn: Callable[[str], Awaitable[Any]]) -> list[float]:
    rng = random.Random(3)
    for query in QUERIES:  # warm-up: model load, caches, connections
        await fn(query)
    out = []
    for _ in range(calls):
        query = rng.choice(QUERIES)
        t0 = time.perf_counter()
        await fn(query)
        out.append((time.perf_counter() - t0) * 1000)
    return out


async def timed_pair(
    calls: int, first: Callable[[str], Awaitable[Any]], second: Callable[[str], Awaitable[Any]]
) -> tuple[list[float], list[float]]:
    """``timed`` for two servers called in turn with the same queries, so both see the same machine."""
    rng = random.Random(3)
    out: tuple[list[float], list[float]] = ([], [])
    for query in QUERIES:
        await first(query)
        await second(query)
    for _ in range(calls):
        query = rng.choice(QUERIES)
        for fn, times in ((first, out[0]), (second, out[1])):
            t0 = time.perf_counter()
            await fn(query)
            times.append((time.perf_counter() - t0) * 1000)
    return out


def _argv(settings: Settings, *args: str) -> list[str]:
    argv = [
        sys.executable,
        "-m",
        "hindsight_es.app.cli.main",
        "--data-dir",
        str(settings.data_dir),
        "--embedder",
        settings.embedder,
    ]
    return argv + (["--broker", settings.broker] if settings.broker else []) + list(args)


@contextlib.asynccontextmanager
async def _up(settings: Settings, port: int, token: str, role: str = "up", listen_s: float = 60) -> AsyncIterator[str]:
    """``hindsight-es up`` (or another gateway ``role``: ``serve``) with MCP over HTTP on ``port``; yields
    the URL once it answers (within ``listen_s``)."""
    async with serving(settings, port, token, role, listen_s) as (url, _):
        yield url


@contextlib.asynccontextmanager
async def serving(
    settings: Settings, port: int, token: str, role: str = "up", listen_s: float = 60
) -> AsyncIterator[tuple[str, subprocess.Popen[bytes]]]:
    """``_up`` that also yields the server's process (for its CPU accounting)."""
    env = {
        **os.environ,
        "HINDSIGHT_MCP_PORT": str(port),
        "HINDSIGHT_MCP_HOST": "127.0.0.1",
        "HINDSIGHT_MCP_TOKENS": f'{{"{token}": "*"}}',
        "HINDSIGHT_LOG_LEVEL": "WARNING",
        "HINDSIGHT_REQUEST_TIMEOUT_S": "120",  # the first call loads the models: on a busy machine that is slow
    }
    proc = subprocess.Popen(_argv(settings, role), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + listen_s
        while True:
            if proc.poll() is not None:
                raise HindsightError(f"`hindsight-es {role}` exited with {proc.returncode}")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if time.monotonic() > deadline:
                raise HindsightError(f"`hindsight-es {role}` did not listen within {listen_s:g} s")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _over_mcp(client_cm: Any, bank: str, calls: int) -> tuple[list[float], list[float]]:
    """(recall latencies, tools/list latencies: the transport's own round trip) over one connection."""
    async with client_cm as client:

        async def one(query: str) -> None:
            result = await client.call_tool("recall", {"bank": bank, "query": query, "limit": 10})
            if result.is_error:
                raise HindsightError(f"recall over MCP failed: {result.content}")

        return await timed(calls, one), await timed(calls, lambda _: client.list_tools())


def mcp(
    ctx: typer.Context,
    turns: Annotated[int, typer.Option(min=10)] = 1000,
    queries: Annotated[int, typer.Option(min=10)] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON (progress on stderr)")] = False,
) -> None:
    """Recall latency p50/p95 over MCP (streamable HTTP and stdio) and the HTTP API, against real server processes."""
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.streamable_http import streamable_http_client

    from hindsight_es.app.bench.synthetic import synthetic_turns
    from hindsight_es.remote import AsyncHindsightClient
    from streams.service import ServiceLock, catch_up_all

    if as_json:
        to_stderr()
    settings = settings_from(ctx)
    bank = f"bench-mcp-{turns}"

    async def go() -> None:
        lock = ServiceLock(settings)
        if not lock.acquire():
            lock.release()
            raise HindsightError(
                f"a service is running on {settings.data_dir}: stop it first (the bench starts its own)"
            )
        try:
            async with Hindsight(settings) as hs:
                await hs.publish(synthetic_turns(settings, bank, turns))
                await catch_up_all(settings, hs.log, embedder=hs.embedder)
                n = hs.stores().lance.count("memories", MemoryFilter(bank, statuses=None))
        finally:
            lock.release()
        results: dict[str, list[float]] = {}
        pings: dict[str, list[float]] = {}
        token = secrets.token_urlsafe(24)
        async with (
            _up(settings, _free_port(), token) as url,
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http,
        ):
            http_client = Client(streamable_http_client(url, http_client=http), cache=None)
            results["MCP streamable HTTP (up)"], pings["MCP HTTP"] = await _over_mcp(http_client, bank, queries)
            async with (
                AsyncHindsightClient(url.removesuffix("/mcp"), token, retries=0) as api,
                _up(settings, _free_port(), token, role="serve") as replica_url,
                AsyncHindsightClient(replica_url.removesuffix("/mcp"), token, retries=0) as replica,
            ):
                # up and a serve replica on the same data, called in turn, so both see the same machine
                results["HTTP API /v1 (up)"], results["HTTP API /v1 (serve)"] = await timed_pair(
                    queries, lambda q: api.recall(bank, q, limit=10), lambda q: replica.recall(bank, q, limit=10)
                )
                pings["HTTP API"] = await timed(queries, lambda _: api.banks())
        argv = _argv(settings, "mcp")
        stdio = StdioServerParameters(
            command=argv[0],
            args=argv[1:],
            env={**os.environ, "HINDSIGHT_LOG_LEVEL": "WARNING", "HINDSIGHT_REQUEST_TIMEOUT_S": "120"},
        )
        results["MCP stdio (mcp)"], pings["stdio"] = await _over_mcp(Client(stdio, cache=None), bank, queries)
        if as_json:
            figures = {name: {"p50_ms": percentile(t, 50), "p95_ms": percentile(t, 95)} for name, t in results.items()}
            trips = {name: {"p50_ms": percentile(t, 50), "p95_ms": percentile(t, 95)} for name, t in pings.items()}
            print(json.dumps({"memories": n, "calls": queries, "recall": figures, "round_trip": trips}))
            return
        console.print(f"recall over {n:,} memories (bank {bank!r}), {queries} calls each, limit 10:")
        for name, times in results.items():
            console.print(f"  {name:<28} p50 {percentile(times, 50):6.1f} ms   p95 {percentile(times, 95):6.1f} ms")
        up_p95, serve_p95 = (percentile(results[f"HTTP API /v1 ({r})"], 95) for r in ("up", "serve"))
        console.print(f"  a serve replica's p95 is {serve_p95 / up_p95:.2f}x up's (same data, calls in turn)")
        console.print(
            "transport round trip (tools/list; GET /v1/banks): "
            + ", ".join(
                f"{name} p50 {percentile(t, 50):.1f} ms / p95 {percentile(t, 95):.1f} ms" for name, t in pings.items()
            )
        )

    run_async(go)
