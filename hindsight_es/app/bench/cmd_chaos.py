"""``bench chaos``: faults injected into real processes, and what they cost.

1. **Kills.** Turns with supersession chains over many banks are published in waves by ``hindsight-es
   publish`` processes while the service runs (``up`` on the embedded log; one ``worker`` per
   ``--broker``); during every wave the service is killed (-9) and restarted, and every other wave the
   publisher too, then published again (turn event ids derive from the turn, so a re-publish is a
   no-op). The memory events are then compared with one in-process actor's over the same inputs: lost,
   duplicated, not in the reference, banks that differ; then ``replay verify`` on the result.
2. **Cross-bank probes.** Tokens scoped to one bank each call the HTTP API and MCP on another bank's
   name (recall, context, stats, memories, history): any answer with content is a leak.
3. **Fuzzed calls.** MCP tools called with arguments drawn from hostile values (wrong types, unknown
   arguments, 100k-character and NUL-bearing strings, out-of-range times, deep nesting; the SDK's client
   cannot send a lone surrogate, ``tests/e2e/test_http_fuzz.py`` and the publish tests do):
   a server that dies or a call that does not answer within 15 s counts; a tool error is the right answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from hindsight_es.app.bench.cmd_mcp import _argv, _free_port
from hindsight_es.app.bench.cmd_scale import chain_inputs, compare_decisions, decisions, reference_decisions, waves
from hindsight_es.app.cli.common import console, run_async, settings_from, to_stderr
from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError
from hindsight_es.events import TurnRecorded
from hindsight_es.log import started_log

CALL_TIMEOUT_S = 15.0
DEEP = 200  # nesting of the deep argument: past any sane schema, below the JSON parsers' own limits
HOSTILE: list[Any] = [
    "",
    "x" * 100_000,
    "nul\x00byte",
    "'; DROP TABLE memories; --",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "2026-03-01T10:00:00",  # no zone
    None,
    True,
    -1,
    2**63,
    1.5,
    [],
    {},
    ["*"],
]


class Service:
    """One service process (``up``, ``worker`` or ``serve``) on a data directory: started, killed, stopped."""

    def __init__(self, settings: Settings, role: str, env: dict[str, str]) -> None:
        self.settings, self.role, self.env = settings, role, env
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        # beside the data directory, in the run's one directory (printed at the start, kept for a post-mortem)
        self.errors = Path(tempfile.mkstemp(prefix=f"{role}-", suffix=".log", dir=settings.data_dir.parent)[1])

    def start(self) -> None:
        self.port = _free_port()
        env = {**os.environ, **self.env, "HINDSIGHT_MCP_PORT": str(self.port), "HINDSIGHT_MCP_HOST": "127.0.0.1"}
        with open(self.errors, "ab") as err:
            self.proc = subprocess.Popen(
                _argv(self.settings, self.role), env=env, stdin=subprocess.DEVNULL, stdout=err, stderr=err
            )

    async def listening(self, within_s: float = 120) -> str:
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            if not self.alive():
                raise HindsightError(f"`hindsight-es {self.role}` exited: see {self.errors}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return f"http://127.0.0.1:{self.port}"
            except OSError:
                await asyncio.sleep(0.2)
        raise HindsightError(f"`hindsight-es {self.role}` did not listen within {within_s:.0f} s")

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()

    def tracebacks(self) -> int:
        return self.errors.read_text(errors="replace").count("Traceback (most recent call last)")


def _write_wave(path: Path, turns: list[TurnRecorded]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for t in turns:
            out.write(
                json.dumps(
                    {
                        "bank_id": t.bank_id,
                        "session_id": t.session_id,
                        "turn_id": t.turn_id,
                        "text": t.text,
                        "occurred_at": t.occurred_at.isoformat(),
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )


def _publisher(settings: Settings, path: Path) -> subprocess.Popen[bytes]:
    """``hindsight-es publish PATH`` as a process of its own (so it can be killed mid-file)."""
    return subprocess.Popen(_argv(settings, "publish", str(path)), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def _kills(settings: Settings, turns: int, kills: int, banks: int, rng: random.Random) -> dict[str, Any]:
    inputs = chain_inputs(settings, turns, banks, int(time.time()))
    expected = await reference_decisions(settings, inputs)
    role = "worker" if settings.broker else "up"
    service = Service(settings, role, {"HINDSIGHT_LOG_LEVEL": "WARNING", "HINDSIGHT_JANITOR_ENABLED": "false"})
    parts = waves(inputs, kills + 1)
    root = Path(tempfile.mkdtemp(prefix="waves-", dir=settings.data_dir.parent))
    service_kills = publisher_kills = 0
    service.start()
    try:
        for k, wave in enumerate(parts):
            path = root / f"wave-{k}.jsonl"
            _write_wave(path, wave)
            publisher = _publisher(settings, path)
            if k % 2 == 1:  # killed mid-wave, then the whole wave again
                await asyncio.sleep(rng.uniform(1.0, 3.0))
                if publisher.poll() is None:
                    publisher.send_signal(signal.SIGKILL)
                    publisher_kills += 1
                publisher.wait()
                publisher = _publisher(settings, path)
            if k < kills:
                await asyncio.sleep(rng.uniform(2.0, 6.0))
                service.kill()
                service_kills += 1
                console.print(f"  wave {k + 1}/{len(parts)}: service killed (-9), restarting", highlight=False)
                service.start()
            if await asyncio.to_thread(publisher.wait) != 0:
                raise HindsightError(f"`hindsight-es publish {path}` failed")
        async with started_log(settings) as log:
            deadline = time.monotonic() + max(300, turns / 5)
            while True:
                found = await decisions(log, set(expected))
                done = all(len(found.get(b, [])) >= len(v) for b, v in expected.items())
                if done or time.monotonic() > deadline:
                    break
                await asyncio.sleep(3)
            await asyncio.sleep(3)  # anything decided twice shows up now
            found = await decisions(log, set(expected))
    finally:
        service.stop()
    counts = compare_decisions(inputs, expected, found, show=False)
    verify = subprocess.run(_argv(settings, "replay", "verify"), capture_output=True, text=True)
    tail = (verify.stdout.strip().splitlines() or [verify.stderr.strip()])[-1:]
    return {
        "banks": sorted({t.bank_id for t in inputs}),
        "service": role,
        "turns": len(inputs),
        "service_kills": service_kills,
        "publisher_kills": publisher_kills,
        **counts,
        "verify_ok": verify.returncode == 0,
        "verify": tail[0] if tail else "",
        "tracebacks": service.tracebacks(),
    }


async def _probes(url: str, tokens: dict[str, str], count: int, rng: random.Random) -> dict[str, Any]:
    """Each token calls another bank's name; an answer with content is a leak."""
    import httpx2

    banks = list(tokens.values())
    leaks = refused = 0
    other_status: Counter[int] = Counter()
    async with httpx2.AsyncClient(base_url=url, timeout=CALL_TIMEOUT_S) as http:
        for _ in range(count):
            token, own = rng.choice(list(tokens.items()))
            other = rng.choice([b for b in banks if b != own])
            auth = {"Authorization": f"Bearer {token}"}
            method, path, body = rng.choice(
                [
                    ("POST", f"/v1/banks/{other}/recall", {"query": "where do I live?"}),
                    ("POST", f"/v1/banks/{other}/context", {"text": "shipping", "session_id": "s0"}),
                    ("GET", f"/v1/banks/{other}/stats", None),
                    ("GET", f"/v1/banks/{other}/memories", None),
                    ("GET", f"/v1/banks/{other}/sessions", None),
                ]
            )
            answer = await http.request(method, path, json=body, headers=auth)
            refused += answer.status_code in (401, 403, 404)
            leaks += answer.is_success
            if not answer.is_success and answer.status_code not in (401, 403, 404):
                other_status[answer.status_code] += 1
            listed = await http.get("/v1/banks", headers=auth)
            leaks += f'"{other}"' in listed.text
    return {"probes": count, "refused": refused, "leaks": leaks, "other": dict(other_status)}


def _fuzzed(schema: dict[str, Any], banks: list[str], rng: random.Random) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    args: dict[str, Any] = {}
    for name in props:
        if name not in required and rng.random() < 0.4:
            continue
        if name in ("bank_id", "bank") and rng.random() < 0.6:
            args[name] = rng.choice(banks)  # a real bank, so the call reaches past the bank check
        else:
            args[name] = rng.choice(HOSTILE)
    if rng.random() < 0.2:
        args[f"unexpected_{rng.randrange(100)}"] = 1
    if rng.random() < 0.05:
        deep: Any = "x"
        for _ in range(DEEP):
            deep = {"a": deep}
        args[rng.choice(list(props) or ["deep"])] = deep
    return args


async def _fuzz(url: str, token: str, banks: list[str], calls: int, rng: random.Random, up: Service) -> dict[str, int]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    tool_errors = failures = hangs = 0
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT_S) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http), cache=None) as client,
    ):
        tools = (await client.list_tools()).tools
        for _ in range(calls):
            tool = rng.choice(tools)
            args = _fuzzed(tool.input_schema, banks, rng)
            try:
                result = await asyncio.wait_for(client.call_tool(tool.name, args), CALL_TIMEOUT_S)
                tool_errors += bool(result.is_error)
            except TimeoutError:
                hangs += 1
            except Exception:  # a protocol-level failure: the server answered no tool result
                failures += 1
            if not up.alive():
                break
    return {"calls": calls, "tool_errors": tool_errors, "failures": failures, "hangs": hangs}


def chaos(
    ctx: typer.Context,
    turns: Annotated[int, typer.Option(min=100, help="Turns published through the kills")] = 3000,
    kills: Annotated[int, typer.Option(min=0, help="Service kills (-9), one per wave of turns")] = 5,
    banks: Annotated[int, typer.Option(min=4, help="Banks the turns go to")] = 40,
    probes: Annotated[int, typer.Option(min=0, help="Cross-bank probes")] = 300,
    fuzz: Annotated[int, typer.Option(min=0, help="Fuzzed MCP calls")] = 500,
    seed: Annotated[int, typer.Option(help="Seed of the kill times, probes and fuzzed values")] = 17,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON (progress on stderr)")] = False,
) -> None:
    """Kills (-9) of the service and the publisher during ingest, cross-bank probes, fuzzed MCP calls:
    lost / duplicated / verify / leaks / crashes (on the embedded log, or the broker given)."""
    if as_json:
        to_stderr()
    base = settings_from(ctx)
    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-chaos-"))
    settings = base.model_copy(update={"data_dir": root / "data"})
    if settings.broker and settings.stores_uri is None:  # the workers, the gateway and verify share them
        os.environ["HINDSIGHT_STORES_URI"] = str(root / "stores")
        settings = settings.model_copy(update={"stores_uri": os.environ["HINDSIGHT_STORES_URI"]})
    rng = random.Random(seed)

    async def go() -> dict[str, Any]:
        console.print(f"kills: {turns} turns over {banks} banks, {kills} service kills, data in {root}")
        figures: dict[str, Any] = {"kills": await _kills(settings, turns, kills, banks, rng)}
        real = figures["kills"].pop("banks")[:4]
        tokens = {f"chaos-token-{i}-{os.urandom(6).hex()}": bank for i, bank in enumerate(real)}
        operator = f"chaos-operator-{os.urandom(6).hex()}"
        scoped = {t: [b] for t, b in tokens.items()} | {operator: "*"}
        role = "serve" if settings.broker else "up"
        gateway = Service(
            settings, role, {"HINDSIGHT_MCP_TOKENS": json.dumps(scoped), "HINDSIGHT_LOG_LEVEL": "WARNING"}
        )
        gateway.start()
        try:
            url = await gateway.listening()
            console.print(f"probes: {probes} cross-bank calls; fuzz: {fuzz} MCP calls, against `{role}`")
            figures["probes"] = await _probes(url, tokens, probes, rng)
            figures["fuzz"] = await _fuzz(url, operator, real, fuzz, rng, gateway)
            figures["fuzz"]["server_alive"] = gateway.alive()
            with contextlib.suppress(OSError):
                import httpx2

                async with httpx2.AsyncClient(timeout=CALL_TIMEOUT_S) as http:
                    figures["fuzz"]["healthz"] = (await http.get(f"{url}/healthz")).status_code
        finally:
            gateway.stop()
        figures["fuzz"]["tracebacks"] = gateway.tracebacks()
        return figures

    figures = run_async(go)
    if as_json:
        print(json.dumps(figures))
        return
    k, p, f = figures["kills"], figures["probes"], figures["fuzz"]
    console.print(
        f"kills ({k['service']}): {k['turns']:,} turns, {k['service_kills']} service and {k['publisher_kills']} "
        f"publisher kills (-9): [bold]lost {k['lost']}, duplicated {k['duplicated']}, not in the reference "
        f"{k['extra']}, banks that differ {k['differing_banks']}[/bold]; replay verify "
        f"{'OK' if k['verify_ok'] else 'FAILED'} ({k['verify']}); tracebacks {k['tracebacks']}"
    )
    console.print(
        f"probes: {p['probes']} cross-bank calls: refused {p['refused']}, [bold]leaks {p['leaks']}[/bold], "
        f"other answers {p['other'] or 'none'}"
    )
    console.print(
        f"fuzz: {f['calls']} MCP calls: tool errors {f['tool_errors']}, [bold]protocol failures {f['failures']}, "
        f"hangs {f['hangs']}, server alive {f['server_alive']}[/bold], /healthz {f.get('healthz', '-')}, "
        f"tracebacks {f['tracebacks']}"
    )
