"""The remote clients (Python sync and async, TypeScript) and the agent-loop examples against a live ``up``.

The examples' model is the fake OpenAI-compatible server (``tests/fake_openai.py``): the prompt it is
sent must carry what hindsight recalled, and its reply is retained.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hindsight_es.remote import AsyncHindsightClient, HindsightClient
from hindsight_es.remote.errors import ForbiddenError, MissingError, StateConflictError, UnauthorizedError
from tests.e2e.served import ALICE, OPS, TOKENS, Up, running_up
from tests.fake_openai import Reply

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "clients" / "typescript"


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    with running_up(tmp_path_factory.mktemp("clients"), tokens=TOKENS) as served:
        yield served


def bank(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_python_client_round_trip_and_errors(up: Up) -> None:
    b = bank("py")
    with HindsightClient(up.base, OPS) as hs:
        retained = hs.retain(b, "I'm allergic to peanuts.", session_id="s1", wait=True)
        assert retained.ready and retained.memories
        hits = hs.recall(b, "peanut allergy", explain=True).hits
        # the statement drawn from the turn ("The user is allergic to peanuts"), or the turn itself
        assert "allergic to peanuts" in hits[0].text and hits[0].reasons
        block = hs.context(b, "s1", "can I eat peanuts?")
        assert "peanuts" in block.text and block.memory_ids
        page = hs.memories(b, kinds=["constraint"])
        assert page.total == 1 and page.memories[0].kind == "constraint"
        memory_id = page.memories[0].memory_id
        assert hs.history(b, memory_id).source_turns[0].text == "I'm allergic to peanuts."
        assert hs.forget(b, memory_id, reason="asked").ready
        with pytest.raises(StateConflictError, match="already forgotten") as conflict:
            hs.forget(b, memory_id)
        assert conflict.value.status == 409 and conflict.value.problem["type"] == "urn:hindsight:problem:conflict"
        assert hs.restore(b, memory_id).ready and hs.memory(b, memory_id).status == "active"
        with pytest.raises(MissingError):
            hs.stats(bank("never"))
        assert hs.stats(b).turns == 1 and [s.session_id for s in hs.sessions(b)] == ["s1"]
    with HindsightClient(up.base, ALICE) as alice, pytest.raises(ForbiddenError, match="may not use bank"):
        alice.recall(b, "peanuts")
    with HindsightClient(up.base, None, retries=0) as anonymous, pytest.raises(UnauthorizedError):
        anonymous.banks()


async def test_async_client_and_operator_calls(up: Up) -> None:
    b = bank("aio")
    async with AsyncHindsightClient(up.base, OPS) as hs:
        await hs.retain(b, "From now on use FedEx for all international orders.", session_id="good", wait=True)
        await hs.retain(b, "From now on use DHL for all international orders.", session_id="bad", wait=True)
        plan = await hs.operator.rollback_plan(b, session_id="bad")
        assert [m.text for m in plan.retract if "orders" in m.text] and [m for m in plan.restore if "FedEx" in m.text]
        done = await hs.operator.rollback(b, session_id="bad", reason="poisoned")
        assert done.ready and done.retraction_id
        top = next(
            h for h in (await hs.recall(b, "which carrier for international orders?")).hits if "orders" in h.text
        )
        assert "FedEx" in top.text
        undone = await hs.operator.undo_rollback(b, done.retraction_id)
        assert sorted(undone.restored) == sorted(done.retracted)
        assert (await hs.operator.quarantined(b)).memories == []


def test_retries_on_503_and_429_then_gives_the_problem() -> None:
    answers = iter(
        [
            httpx.Response(503, json={"type": "urn:hindsight:problem:log-unavailable", "title": "down", "status": 503}),
            httpx.Response(429, headers={"Retry-After": "0"}, json={"title": "slow down", "status": 429}),
            httpx.Response(200, json=[]),
        ]
    )
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return next(answers)

    with HindsightClient(
        "http://hindsight.test", "t" * 20, backoff_s=0.01, transport=httpx.MockTransport(handler)
    ) as hs:
        assert hs.banks() == []
    assert seen == ["Bearer " + "t" * 20] * 3
    failing = httpx.MockTransport(
        lambda request: httpx.Response(503, json={"detail": "the log is down", "status": 503})
    )
    with (
        HindsightClient("http://hindsight.test", retries=1, backoff_s=0.01, transport=failing) as hs,
        pytest.raises(Exception, match="the log is down") as down,
    ):
        hs.banks()
    assert getattr(down.value, "status", None) == 503


def test_the_remote_client_loads_no_store() -> None:
    heavy = "('lancedb', 'duckdb', 'pyarrow', 'fastembed')"
    probe = f"import sys, hindsight_es.remote; print(sorted(m for m in {heavy} if m in sys.modules))"
    assert (
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    )


def test_python_agent_loop_example(up: Up, fake_llm) -> None:  # type: ignore[no-untyped-def]
    b = bank("loop")
    with HindsightClient(up.base, OPS) as hs:
        hs.retain(b, "I drink my coffee black, no sugar.", session_id="chat", wait=True)
    fake_llm.then(Reply("Black coffee, no sugar."))
    run = subprocess.run(
        [sys.executable, str(REPO / "examples" / "agent_loop.py"), "How do I take my coffee?", "--hindsight", up.base,
         "--token", OPS, "--llm", fake_llm.url, "--model", "fake", "--bank", b],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "Black coffee, no sugar."
    system = fake_llm.requests[-1]["messages"][0]["content"]
    assert "I drink my coffee black, no sugar." in system  # what was recalled went into the prompt

    def said() -> list[str]:  # the reply was retained without waiting: the archive shows it shortly
        with HindsightClient(up.base, OPS) as hs:
            return [t.text for t in hs.session(b, "chat").turns][-2:]

    deadline = time.monotonic() + 30
    while said() != ["How do I take my coffee?", "Black coffee, no sugar."]:
        assert time.monotonic() < deadline, said()
        time.sleep(0.3)


def npm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["npm", *args], cwd=TS, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def typescript_built() -> Path:
    """``npm ci`` (once, from the committed lock file) and ``npm run build`` (types from openapi.json, then tsc)."""
    if shutil.which("npm") is None:
        pytest.fail("the TypeScript client tests need Node.js 20 and npm")
    # The build's own tools decide whether the install is whole: a full-suite run once found `node_modules`
    # from an `npm ci` that exited 0 without linking `openapi-typescript` (127 from the build); a second `npm ci`
    # (it starts from an empty `node_modules`) is what a developer would run.
    tools = [TS / "node_modules" / ".bin" / name for name in ("openapi-typescript", "tsc")]
    for _attempt in range(2):
        if all(tool.exists() for tool in tools):
            break
        installed = npm("ci", "--no-audit", "--no-fund")
        assert installed.returncode == 0, installed.stderr
    built = npm("run", "build")
    assert built.returncode == 0, built.stdout + built.stderr
    return TS / "dist" / "index.js"


def test_typescript_types_come_from_the_served_openapi_document(up: Up) -> None:
    served = httpx.get(f"{up.base}/openapi.json").json()
    committed = json.loads((TS / "openapi.json").read_text())
    assert committed == served, (
        "regenerate: python -m hindsight_es.app.gateway.openapi > clients/typescript/openapi.json"
    )


def test_typescript_client_with_node_test_runner(up: Up, typescript_built: Path) -> None:
    env = {**os.environ, "HINDSIGHT_URL": up.base, "HINDSIGHT_TOKEN": OPS, "HINDSIGHT_ALICE_TOKEN": ALICE}
    run = subprocess.run(["node", "--test", "test/"], cwd=TS, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout and "# pass 6" in run.stdout, run.stdout


def test_typescript_agent_loop_example(up: Up, typescript_built: Path, fake_llm) -> None:  # type: ignore[no-untyped-def]
    b = bank("tsloop")
    with HindsightClient(up.base, OPS) as hs:
        hs.retain(b, "I drink green tea in the afternoon.", session_id="chat", wait=True)
    fake_llm.then(Reply("Green tea, in the afternoon."))
    env = {**os.environ, "HINDSIGHT_URL": up.base, "HINDSIGHT_TOKEN": OPS, "LLM_URL": fake_llm.url,
           "LLM_MODEL": "fake", "HINDSIGHT_BANK": b}  # fmt: skip
    run = subprocess.run(
        ["node", str(REPO / "examples" / "agent_loop.mjs"), "What do I drink in the afternoon?"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "Green tea, in the afternoon."
    assert "I drink green tea in the afternoon." in fake_llm.requests[-1]["messages"][0]["content"]
