"""The client processes of ``bench recall --concurrency`` (``cmd_load``): ``python -m`` this module.

A module of its own, importing the HTTP client and nothing else (not the CLI, the stores or the models),
so that N of them start in seconds on a busy machine and their CPU in the timed window is the calls'.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import sys
import time
from typing import Annotated, Any

import typer

from hindsight_es.errors import HindsightError
from hindsight_es.remote import AsyncHindsightClient

WORDS = [
    "status",
    "update",
    "quarterly",
    "report",
    "release",
    "notes",
    "budget",
    "onboarding",
    "design",
    "review",
    "migration",
    "plan",
    "customer",
    "survey",
    "security",
    "audit",
    "team",
    "offsite",
]


ERRORS_SHOWN = 3  # distinct error messages a client reports, so a run with errors says what they were


def queries(n: int, seed: int) -> list[str]:
    """``n`` queries over the synthetic bank's vocabulary, plus one English and one Chinese question."""
    rng = random.Random(seed)
    asks = [" ".join(rng.choices(WORDS, k=rng.randint(2, 6))) for _ in range(n)]
    return asks + ["what did we decide about the budget last month?", "上周的安全审计怎么样？"]


Url = Annotated[str, typer.Option()]
Token = Annotated[str, typer.Option()]
Bank = Annotated[str, typer.Option()]
Seconds = Annotated[float, typer.Option()]


def _await_start() -> None:
    """Tell ``run_load`` this process is ready, then sleep until the start time it sends back on stdin."""
    print("ready", flush=True)
    start = float(sys.stdin.readline())
    time.sleep(max(0.0, start - time.time()))


def recall_client(url: Url, token: Token, bank: Bank, seconds: Seconds, seed: int = 0) -> None:
    """One client: recalls in a closed loop; latencies as JSON."""
    asks = queries(200, seed)

    async def go() -> dict[str, Any]:
        times: list[float] = []
        errors = 0
        said: dict[str, None] = {}  # the errors' messages, each once, in order
        async with AsyncHindsightClient(url, token, retries=0, timeout_s=60) as api:
            await asyncio.to_thread(_await_start)
            end = time.time() + seconds
            for n in range(sys.maxsize):
                if time.time() >= end:
                    break
                t0 = time.perf_counter()
                try:
                    await api.recall(bank, asks[n % len(asks)], limit=10)
                except HindsightError as exc:
                    errors += 1
                    said.setdefault(str(exc)[:300], None)
                    continue
                if time.time() <= end:  # a call that ends after the run is not counted
                    times.append((time.perf_counter() - t0) * 1000)
        return {"ms": times, "errors": errors, "said": list(said)[:ERRORS_SHOWN]}

    print(json.dumps(asyncio.run(go())))


def recall_ingest(url: Url, token: Token, bank: Bank, seconds: Seconds, rate: Annotated[float, typer.Option()]) -> None:
    """Retain ``rate`` turns per second on a fixed schedule, each a statement no earlier run made: a layout
    is reused across runs, and a turn it already holds is a restatement (``MemoryReinforced``, an update of
    an old row) rather than a new memory, which would measure another write path each time."""
    run = secrets.token_hex(4)
    rng = random.Random(run)

    async def go() -> dict[str, Any]:
        times: list[float] = []
        errors = 0
        said: dict[str, None] = {}  # the errors' messages, each once, in order
        async with AsyncHindsightClient(url, token, retries=0, timeout_s=60) as api:

            async def one(n: int) -> None:
                nonlocal errors
                text = f"{' '.join(rng.choices(WORDS, k=8))} (ingest {run} #{n})"
                t0 = time.perf_counter()
                try:
                    await api.retain(bank, text, session_id=f"ingest-{run}-{n // 20}")
                except HindsightError as exc:
                    errors += 1
                    said.setdefault(str(exc)[:300], None)
                    return
                times.append((time.perf_counter() - t0) * 1000)

            await asyncio.to_thread(_await_start)
            t_start = time.time()
            pending = []
            for n in range(int(seconds * rate)):
                await asyncio.sleep(max(0.0, t_start + n / rate - time.time()))
                pending.append(asyncio.create_task(one(n)))
            await asyncio.gather(*pending)
        return {"retained": len(times), "errors": errors, "ms": times, "said": list(said)[:ERRORS_SHOWN]}

    print(json.dumps(asyncio.run(go())))


app = typer.Typer(add_completion=False)
app.command("recall")(recall_client)
app.command("ingest")(recall_ingest)

if __name__ == "__main__":
    app()
