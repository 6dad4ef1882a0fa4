"""A client we did not write: the MCP Inspector's CLI (``@modelcontextprotocol/inspector``, the MCP
project's own TypeScript client, run by ``npx``) against ``hindsight-es mcp`` on stdio and against the
streamable HTTP server of ``hindsight-es up``, with a bearer token.

Needs Node.js; npx fetches the pinned Inspector from the npm registry on first use. Without ``npx``,
or when the registry cannot be reached, the tests skip and say why.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli import cli, command, env, wait_for
from tests.e2e.test_mcp import free_port

INSPECTOR = "@modelcontextprotocol/inspector@0.17.5"  # the first release whose CLI sends --header
TOKEN = "inspector-token-0000000001"  # bank "shop" only
UNREACHABLE = ("ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "network request")


@pytest.fixture(autouse=True)
def npx() -> None:
    if shutil.which("npx") is None:
        pytest.skip("npx (Node.js) is not installed")


def inspect(target: list[str], *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """One Inspector CLI call against ``target`` (a server command, or a URL and its options)."""
    run = subprocess.run(
        [shutil.which("npx") or "npx", "-y", INSPECTOR, "--cli", *target, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env(npm_config_update_notifier="false"),
    )
    if run.returncode != 0 and any(sign in run.stderr for sign in UNREACHABLE):
        pytest.skip(f"the npm registry is not reachable for {INSPECTOR}: {run.stderr.strip()[-300:]}")
    return run


def result(run: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_inspector_lists_the_tools_and_recalls_over_stdio(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert cli(data, "demo").returncode == 0  # the sample conversation, through the pipeline
    server = command(data, "mcp", "--bank", "demo")
    tools = result(inspect(server, "--method", "tools/list"))["tools"]
    assert {"retain", "recall", "get_context", "forget", "correct", "history"} <= {t["name"] for t in tools}
    recall = next(t for t in tools if t["name"] == "recall")
    assert "query" in recall["inputSchema"]["required"] and recall["annotations"]["readOnlyHint"] is True

    answer = result(
        inspect(
            server, "--method", "tools/call", "--tool-name", "recall", "--tool-arg", "query=are there any allergies?"
        )
    )
    hits = answer["structuredContent"]["hits"]
    assert answer["isError"] is False
    assert hits[0]["text"] == "Lin is allergic to peanuts"  # the statement of turn s1-5, not the raw sentence
    assert hits[0]["kind"] == "constraint" and hits[0]["source_turn_ids"] == ["s1-5"]


@pytest.fixture
def up(tmp_path: Path) -> Iterator[str]:
    """``hindsight-es up`` with one token for bank "shop"; yields its MCP URL."""
    data, errors, port = tmp_path / "data", tmp_path / "up.err", free_port()
    data.mkdir()
    extra = {"HINDSIGHT_MCP_PORT": str(port), "HINDSIGHT_MCP_TOKENS": json.dumps({TOKEN: ["shop"]})}
    with open(errors, "wb") as err:
        proc = subprocess.Popen(
            command(data, "up"),
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env(**extra),
            cwd=tmp_path,
        )
    try:
        wait_for(errors, "hindsight up:", proc, 60)
        yield f"http://127.0.0.1:{port}/mcp"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=15) == 0, errors.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def test_the_inspector_retains_and_recalls_over_http_with_a_token(up: str) -> None:
    server = [up, "--transport", "http", "--header", f"Authorization: Bearer {TOKEN}"]
    said = "Our second warehouse opens in Ningbo in June."
    retained = result(
        inspect(
            server,
            "--method",
            "tools/call",
            "--tool-name",
            "retain",
            "--tool-arg",
            "bank=shop",
            "--tool-arg",
            f"content={said}",
            "--tool-arg",
            "session=s1",
        )
    )
    assert retained["isError"] is False and retained["structuredContent"]["session_id"] == "s1"

    deadline, texts = time.monotonic() + 60, []
    while said not in texts and time.monotonic() < deadline:  # `up`'s pipeline makes it recallable
        answer = result(
            inspect(
                server,
                "--method",
                "tools/call",
                "--tool-name",
                "recall",
                "--tool-arg",
                "bank=shop",
                "--tool-arg",
                "query=where does the new warehouse open?",
            )
        )
        texts = [hit["text"] for hit in answer["structuredContent"]["hits"]]
    assert texts and texts[0] == said

    refused = inspect([up, "--transport", "http"], "--method", "tools/list")  # no token
    assert refused.returncode != 0 and "Authentication required" in refused.stderr
