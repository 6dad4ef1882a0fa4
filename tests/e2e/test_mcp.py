"""The MCP gateway through the SDK's own client, against real servers in subprocesses.

stdio: ``hindsight-es mcp`` launched by the SDK's stdio client (it runs the pipeline itself).
HTTP: ``hindsight-es up`` on a free port with bearer tokens, through the streamable HTTP client.
Servers and connections are shared per module; each test writes to banks of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
import pytest_asyncio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

from hindsight_es.log import replay
from hindsight_es.log.embedded import EmbeddedLog
from tests.e2e.served import free_port
from tests.e2e.test_cli import command, env, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

ALICE = "alice-token-000000000001"  # bank "alice" only
OPS = "ops-token-00000000000002"  # every bank
TOKENS = {ALICE: ["alice"], OPS: "*"}
TOOLS = {
    "retain",
    "recall",
    "get_context",
    "forget",
    "correct",
    "history",
    "list_banks",
    "bank_stats",
    "quarantine",
    "erase",
    "restore",
    "trust",
}


# ------------------------------------------------------------------ servers and connections


@dataclass
class Served:
    url: str
    data: Path
    errors: Path


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """``hindsight-es up`` serving MCP over HTTP with tokens, on a data directory of its own."""
    root = tmp_path_factory.mktemp("mcp-http")
    data, errors, port = root / "data", root / "up.err", free_port()
    data.mkdir()
    # recall use tallied every half second: a served archived memory comes back within the tests' waits
    extra = {
        "HINDSIGHT_MCP_PORT": str(port),
        "HINDSIGHT_MCP_TOKENS": json.dumps(TOKENS),
        "HINDSIGHT_RECALL_TALLY_S": "0.5",
    }
    with open(errors, "wb") as err:
        up = subprocess.Popen(
            command(data, "up"),
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env(**extra),
            cwd=root,
        )
    try:
        wait_for(errors, "hindsight up:", up, 90)
        assert f"MCP at http://127.0.0.1:{port}/mcp" in errors.read_text()
        yield Served(f"http://127.0.0.1:{port}/mcp", data, errors)
        up.send_signal(signal.SIGINT)
        assert up.wait(timeout=15) == 0, errors.read_text()
        assert "hindsight stopped cleanly" in errors.read_text()
    finally:
        if up.poll() is None:
            up.kill()
            up.wait(timeout=10)
    assert "Traceback" not in errors.read_text(), errors.read_text()


def stdio_params(data: Path, *args: str, **extra_env: str) -> StdioServerParameters:
    argv = command(data, *args, "mcp")
    return StdioServerParameters(command=argv[0], args=argv[1:], env=env(**extra_env), cwd=str(data.parent))


@contextlib.asynccontextmanager
async def http_transport(url: str, token: str | None) -> AsyncIterator[Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def http_client(url: str, token: str | None) -> Client:
    return Client(http_transport(url, token))


@contextlib.asynccontextmanager
async def connected(client: Client) -> AsyncIterator[Client]:
    """Enter and leave the client inside one task (its anyio scopes must not cross tasks)."""
    ready: asyncio.Future[Client] = asyncio.get_running_loop().create_future()
    done = asyncio.Event()

    async def hold() -> None:
        try:
            async with client as entered:
                ready.set_result(entered)
                await done.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc)
            raise

    task = asyncio.create_task(hold())
    try:
        yield await ready
    finally:
        done.set()
        await asyncio.gather(task, return_exceptions=True)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stdio_alone(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """``hindsight-es mcp`` alone on its data directory: it runs the pipeline in its own process."""
    root = tmp_path_factory.mktemp("mcp-stdio")
    async with connected(Client(stdio_params(root / "data"))) as client:
        yield client


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def http_ops(http_server: Served) -> AsyncIterator[Client]:
    async with connected(http_client(http_server.url, OPS)) as client:
        yield client


@pytest.fixture(params=["stdio", "http"])
def mcp(request: pytest.FixtureRequest) -> Client:
    """A connection over each transport (HTTP with the token for every bank)."""
    return request.getfixturevalue("stdio_alone" if request.param == "stdio" else "http_ops")


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    result: CallToolResult = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    return " ".join(c.text for c in result.content if c.type == "text")


def leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def bank(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# ------------------------------------------------------------------ tools


async def test_lists_the_tools_with_truthful_annotations(mcp: Client) -> None:
    tools = {t.name: t for t in (await mcp.list_tools()).tools}
    assert set(tools) == TOOLS
    for name in ("recall", "get_context", "history", "list_banks", "bank_stats"):
        assert tools[name].annotations.read_only_hint is True, name
    assert tools["retain"].annotations.read_only_hint is False
    assert tools["retain"].annotations.destructive_hint is False
    for name in ("forget", "correct"):
        assert tools[name].annotations.read_only_hint is False and tools[name].annotations.destructive_hint is True
    for tool in tools.values():
        assert tool.output_schema is not None and tool.description and len(tool.description) < 400
        undescribed = [name for name, prop in tool.input_schema["properties"].items() if not prop.get("description")]
        assert undescribed == [], tool.name
    assert "with a zone" in tools["retain"].input_schema["properties"]["occurred_at"]["description"]


async def test_retain_then_recall_finds_it(mcp: Client) -> None:
    b = bank("retain")
    text = "We use PostgreSQL for the billing database."
    retained = await call(mcp, "retain", bank_id=b, text=text, session_id="s1", turn_id="t1", wait=True)
    assert retained["ready"] is True and retained["turn_id"] == "t1"
    ids = {m["memory_id"] for m in retained["memories"]}
    assert ids and all(m["source_turn_ids"] == ["t1"] for m in retained["memories"])
    texts = {m["kind"]: m["text"] for m in retained["memories"]}
    assert texts == {"episode": text, "fact": "The team's database: PostgreSQL"}  # the turn, and what it states

    found = await call(mcp, "recall", bank_id=b, query="which database does billing use?", limit=5)
    hit = found["hits"][0]
    assert hit["text"] in texts.values() and hit["memory_id"] in ids  # the turn, or the statement drawn from it
    assert hit["source_turn_ids"] == ["t1"] and hit["score"] > 0 and hit["kind"] and hit["valid_from"]

    again = await call(mcp, "retain", bank_id=b, text=text, session_id="s1", turn_id="t1", wait=True)
    assert {m["memory_id"] for m in again["memories"]} == ids  # the same turn again: nothing new
    # the same turn id with other words is refused, not dropped without a word (an agent numbering its turns
    # from 1 in every conversation of one session)
    other = await refused(
        mcp, "retain", bank_id=b, text="I'm allergic to shellfish.", session_id="s1", turn_id="t1", wait=True
    )
    assert "turn 't1' of session 's1' was retained before" in other and "new turn_id" in other
    stats = await call(mcp, "bank_stats", bank_id=b)
    assert stats["turns"] == 1 and stats["memories"]["active"] == len(ids)
    assert b in (await call(mcp, "list_banks"))["banks"]


async def test_a_bank_whose_only_session_was_erased_is_known_and_empty(mcp: Client) -> None:
    """Something was recorded in it and erased: not "unknown bank … nothing has been recorded in it yet"."""
    b = bank("erased")
    await call(mcp, "retain", bank_id=b, text="We use MySQL for the orders database.", session_id="s1", wait=True)
    erased = await call(mcp, "erase", bank_id=b, session_id="s1", reason="user asked")
    assert erased["ready"] is True and len(erased["memory_ids"]) == 2
    assert (await call(mcp, "recall", bank_id=b, query="which database do we use?"))["hits"] == []
    stats = await call(mcp, "bank_stats", bank_id=b)
    assert stats["memories"] == {"erased": 2} and stats["turns"] == 0, stats
    assert b in (await call(mcp, "list_banks"))["banks"]
    typo = await refused(mcp, "recall", bank_id=b + "x", query="which database do we use?")
    assert "nothing has been recorded in it yet" in typo, typo


async def test_recall_filters_and_token_budget(mcp: Client) -> None:
    b = bank("filters")
    await call(mcp, "retain", bank_id=b, text="I'm allergic to shellfish.", occurred_at="2025-01-05T10:00:00Z")
    await call(
        mcp,
        "retain",
        bank_id=b,
        text="Yesterday I painted a red sunrise by the lake.",
        occurred_at="2025-03-05T10:00:00Z",
        wait=True,
    )
    constraints = await call(mcp, "recall", bank_id=b, query="allergy shellfish painting", kinds=["constraint"])
    assert [h["kind"] for h in constraints["hits"]] == ["constraint"]
    later = await call(mcp, "recall", bank_id=b, query="allergy shellfish painting", since="2025-02-01T00:00:00Z")
    assert later["hits"] and all("sunrise" in h["text"] for h in later["hits"])
    small = await call(mcp, "recall", bank_id=b, query="allergy shellfish painting", max_tokens=40)
    assert len(small["hits"]) == 1


async def test_get_context_holds_recent_turns_and_a_relevant_memory(mcp: Client) -> None:
    b = bank("context")
    old = await call(mcp, "retain", bank_id=b, text="I'm allergic to peanuts.", session_id="last-week", wait=True)
    recent = [
        "Let's plan the team picnic for Saturday.",
        "I'll bring sandwiches and lemonade.",
        "Maybe some snacks too.",
    ]
    for i, text in enumerate(recent):
        await call(mcp, "retain", bank_id=b, text=text, session_id="today", turn_id=f"r{i}", wait=i == len(recent) - 1)
    block = await call(
        mcp, "get_context", bank_id=b, session_id="today", text="Can I eat peanuts at the picnic?", budget_tokens=600
    )
    text = block["text"]
    assert text.startswith("<remembered_context") and text.rstrip().endswith("</remembered_context>")
    assert "allergic to peanuts" in text
    assert any(m["memory_id"] in text for m in old["memories"])
    assert all(turn in text for turn in recent)
    assert text.index("allergic") < text.index(recent[0])  # memories first, then the recent turns
    assert block["turn_ids"] == ["r0", "r1", "r2"] and 0 < block["tokens"] <= 600

    tight = await call(mcp, "get_context", bank_id=b, session_id="today", text="peanuts?", budget_tokens=120)
    assert tight["tokens"] <= 120 and tight["omitted_memories"] + tight["omitted_turns"] > 0
    empty = await call(mcp, "get_context", bank_id=bank("nobody"), session_id="s", text="hello")
    assert empty["text"] == "" and empty["tokens"] == 0


async def test_a_question_about_something_never_said_gets_no_long_term_memories(mcp: Client) -> None:
    b = bank("floor")
    said = ["I'm allergic to peanuts.", "We adopted a cat named Miso.", "Our billing database runs on PostgreSQL."]
    for i, text in enumerate(said):
        await call(mcp, "retain", bank_id=b, text=text, session_id="past", turn_id=f"p{i}")
    await call(mcp, "retain", bank_id=b, text="Let's plan the picnic for Saturday.", session_id="today", wait=True)

    deadline = time.monotonic() + 60  # beside `up`, the working memory projects the turn a moment later
    while True:
        off = await call(mcp, "get_context", bank_id=b, session_id="today", text="What's the capital of Australia?")
        if "Let's plan the picnic for Saturday." in off["text"] or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.3)
    assert off["memory_ids"] == [] and "Let's plan the picnic for Saturday." in off["text"]  # recent turns stay
    assert not any(text in off["text"] for text in said)
    asked = await call(mcp, "get_context", bank_id=b, session_id="today", text="What is our cat called?")
    assert "Miso" in asked["text"] and asked["memory_ids"]
    # about someone the bank never mentions: the cat memory is close in words, but it is not about them
    other = await call(mcp, "get_context", bank_id=b, session_id="today", text="What is Boris's cat called?")
    assert other["memory_ids"] == [] and "Miso" not in other["text"]
    named = await call(mcp, "get_context", bank_id=b, session_id="today", text="Is it true that Miso is a cat?")
    assert "Miso" in named["text"] and named["memory_ids"]
    everything = await call(
        mcp, "get_context", bank_id=b, session_id="today", text="What's the capital of Australia?", min_relevance=0
    )
    assert everything["memory_ids"]

    hits = (await call(mcp, "recall", bank_id=b, query="What is our cat called?", min_relevance=0))["hits"]
    assert "Miso" in hits[0]["text"] and hits[0]["relevance"] > 0.5
    assert all(0 <= h["relevance"] <= 1 for h in hits) and max(h["relevance"] for h in hits[1:]) < 0.5
    assert (await call(mcp, "recall", bank_id=b, query="What's the capital of Australia?"))["hits"] == []
    for bad in (-0.1, 1.5):
        assert "min_relevance" in await refused(mcp, "recall", bank_id=b, query="cat", min_relevance=bad)
        assert "min_relevance" in await refused(mcp, "get_context", bank_id=b, session_id="s", min_relevance=bad)
    assert "min_relevance" in await refused(mcp, "recall", bank_id=b, query="cat", min_relevance="high")


async def test_correct_supersedes_and_history_shows_both(mcp: Client) -> None:
    b = bank("correct")
    retained = await call(mcp, "retain", bank_id=b, text="My favorite color is green.", turn_id="c1", wait=True)
    old = next(m for m in retained["memories"] if m["kind"] != "episode")
    corrected = await call(
        mcp,
        "correct",
        bank_id=b,
        memory_id=old["memory_id"],
        text="My favorite color is blue.",
        reason="the user said so",
    )
    assert corrected["ready"] is True and corrected["corrected_id"] == old["memory_id"]
    new = corrected["memory"]
    # the words read as the owner's turn would be: the statement its typed memory has
    assert new["text"] == "The user's favourite colour: blue" and new["status"] == "active"

    hits = (await call(mcp, "recall", bank_id=b, query="favorite color"))["hits"]
    assert new["memory_id"] in {h["memory_id"] for h in hits}
    assert old["memory_id"] not in {h["memory_id"] for h in hits}

    before = await call(mcp, "history", bank_id=b, memory_id=old["memory_id"])
    assert before["status"] == "superseded" and before["text"] == old["text"] == "The user's favourite colour: green"
    assert [m["memory_id"] for m in before["superseded_by"]] == [new["memory_id"]]
    assert [t["turn_id"] for t in before["source_turns"]] == ["c1"]
    superseded = [e for e in before["events"] if e["type"] == "MemorySuperseded"]
    assert superseded and superseded[0]["reason"] == "the user said so"
    after = await call(mcp, "history", bank_id=b, memory_id=new["memory_id"])
    # it replaced the old preference, and took along the episode of its turn, which said nothing else
    episode = next(m for m in retained["memories"] if m["kind"] == "episode")
    assert after["status"] == "active"
    assert [m["memory_id"] for m in after["supersedes"]] == [episode["memory_id"], old["memory_id"]]
    assert [m["status"] for m in after["supersedes"]] == ["superseded", "superseded"]
    assert (
        await refused(mcp, "correct", bank_id=b, memory_id=old["memory_id"], text="My favorite color is red.")
    ).endswith(f"memory {old['memory_id']} is superseded by {new['memory_id']}; only an active memory can be corrected")


async def test_a_document_contradicting_the_user_is_disputed_and_the_owner_resolves_it(mcp: Client) -> None:
    b = bank("dispute")
    await call(mcp, "retain", bank=b, content="Our office is at 12 Oak Avenue.", turn_id="u1", wait=True)
    doc = await call(
        mcp, "retain", bank=b, content="The office moved to 5 Elm St.", source="document", turn_id="d1", wait=True
    )
    assert {m["status"] for m in doc["memories"]} == {"disputed"} and doc["memories"][0]["provenance"] == "document"
    hits = (await call(mcp, "recall", bank=b, query="where is our office?"))["hits"]
    assert hits[0]["text"] == "Our office is at 12 Oak Avenue." and hits[0]["trusted"]
    assert {d["memory_id"] for d in hits[0]["disputes"]} == {m["memory_id"] for m in doc["memories"]}
    block = (await call(mcp, "get_context", bank=b, session="s", message="where is our office?"))["text"]
    assert block.index("12 Oak Avenue") < block.index("unverified") < block.index("5 Elm St.")
    trusted_id = hits[0]["memory_id"]
    history = await call(mcp, "history", bank=b, memory_id=trusted_id)
    assert "MemoryDisputed" in [e["type"] for e in history["events"]]  # the dispute shows in the trusted one's history
    listed = await call(mcp, "trust", bank=b, action="disputes")
    assert {m["memory_id"] for m in listed["disputes"]} == {m["memory_id"] for m in doc["memories"]}
    ids = [m["memory_id"] for m in doc["memories"]]
    done = await call(mcp, "trust", bank=b, action="accept", memory_ids=ids, reason="we moved")
    assert done["ready"] is True and set(done["reviewed"]) == set(ids)
    hits = (await call(mcp, "recall", bank=b, query="where is our office?", trusted_only=True))["hits"]
    assert "The office moved to 5 Elm St." in [h["text"] for h in hits] and all(h["trusted"] for h in hits)
    assert "12 Oak Avenue" not in " ".join(h["text"] for h in hits)


async def test_an_assistant_turn_without_a_source_is_not_the_users_word(mcp: Client) -> None:
    """An agent logging its own reply names the role and leaves source out: the source follows the role."""
    b = bank("role")
    mine = await call(mcp, "retain", bank_id=b, text="I prefer coffee in the morning.", turn_id="u1", wait=True)
    assert {m["provenance"] for m in mine["memories"]} == {"user"}
    said = await call(
        mcp,
        "retain",
        bank_id=b,
        text="The user prefers green tea over coffee.",
        role="assistant",
        turn_id="a1",
        wait=True,
    )
    assert said["memories"] and {(m["provenance"], m["trusted"]) for m in said["memories"]} == {("assistant", False)}
    block = (await call(mcp, "get_context", bank_id=b, session_id="s", message="what do I drink?"))["text"]
    assert block.index("The user's drink: coffee") < block.index("unverified") < block.index("green tea over coffee")


async def test_declaring_no_owners_is_refused(mcp: Client) -> None:
    b = bank("owners")
    await call(mcp, "retain", bank_id=b, text="I live in Berlin.", wait=True)
    assert "no owners given" in await refused(mcp, "trust", bank_id=b, action="set_owners", reason="oops")
    assert len((await call(mcp, "trust", bank_id=b, action="owners"))["owners"]) == 1  # unchanged


async def test_forget_removes_it_from_recall(mcp: Client) -> None:
    b = bank("forget")
    retained = await call(mcp, "retain", bank_id=b, text="My locker code is 4512.", wait=True)
    ids = [m["memory_id"] for m in retained["memories"]]
    assert (await call(mcp, "recall", bank_id=b, query="locker code"))["hits"]
    for memory_id in ids:
        forgotten = await call(mcp, "forget", bank_id=b, memory_id=memory_id, reason="asked to forget")
        assert forgotten == {"bank_id": b, "memory_id": memory_id, "ready": True}
    assert not {h["memory_id"] for h in (await call(mcp, "recall", bank_id=b, query="locker code 4512"))["hits"]} & set(
        ids
    )
    history = await call(mcp, "history", bank_id=b, memory_id=ids[0])
    assert history["status"] == "forgotten"
    assert [e["reason"] for e in history["events"] if e["type"] == "MemoryForgotten"] == ["asked to forget"]
    assert "is already forgotten" in await refused(mcp, "forget", bank_id=b, memory_id=ids[0])


async def test_malformed_arguments_get_a_validation_error(mcp: Client) -> None:
    text = await refused(mcp, "recall", query=42, limit="many", bank_id="x")
    assert text.startswith("recall: query: ") and "; limit: " in text and "\n" not in text  # one line, each field
    assert "errors.pydantic.dev" not in text  # what is wrong, without a library's documentation link
    assert "text" in await refused(mcp, "retain", bank_id="x")
    assert "bank" in await refused(mcp, "recall", query="q", bank_id="../etc")
    assert "budget_tokens" in await refused(mcp, "get_context", session_id="s", budget_tokens=5, bank_id="x")
    assert "is not a memory id" in await refused(mcp, "forget", memory_id="not-a-uuid", bank_id="x")
    assert "unknown bank 'never-used'" in await refused(mcp, "recall", query="anything", bank_id="never-used")
    assert "no bank given" in await refused(mcp, "recall", query="anything")


async def test_unknown_arguments_and_coerced_values_are_refused_with_a_reason(mcp: Client) -> None:
    b = bank("strict")
    assert "sesion_id" in await refused(mcp, "retain", bank_id=b, text="I like tea.", sesion_id="s1")
    assert "explicit" in await refused(mcp, "retain", bank_id=b, text="I like tea.", explicit=1)
    assert "not a number" in await refused(mcp, "recall", bank_id=b, query="tea", since=1.5)
    assert "not a number" in await refused(mcp, "recall", bank_id=b, query="tea", since="1.5")
    assert "not a number" in await refused(mcp, "retain", bank_id=b, text="I like tea.", occurred_at=12345)
    boundary = await refused(mcp, "retain", bank_id=b, text="I like tea.", occurred_at="0001-01-01T00:00:00+01:00")
    assert "out of range" in boundary, boundary
    tools = {t.name: t for t in (await mcp.list_tools()).tools}
    assert all(t.input_schema.get("additionalProperties") is False for t in tools.values())


async def test_the_earlier_argument_names_are_still_accepted(mcp: Client) -> None:
    """0.1 named the text `content` (retain) and `message` (get_context), the session `session` and the bank
    `bank`: accepted for one more release beside `text`, `session_id` and `bank_id`."""
    b = bank("alias")
    old = await call(mcp, "retain", bank=b, content="We ship with DHL.", session="s9", turn_id="a1", wait=True)
    assert old["bank_id"] == b and old["session_id"] == "s9" and old["ready"] is True and old["memories"]
    block = await call(mcp, "get_context", bank=b, session="s9", message="which carrier do we ship with?")
    assert "DHL" in block["text"] and block["session_id"] == "s9" and block["bank_id"] == b
    not_waited = await call(mcp, "retain", bank_id=b, text="I like green tea.", session_id="s9")
    assert not_waited["ready"] is False and not_waited["memories"] == []


async def test_banks_are_isolated(mcp: Client) -> None:
    a, b = bank("iso-a"), bank("iso-b")
    secret = await call(mcp, "retain", bank_id=a, text="My passport number is X1234567.", session_id="s", wait=True)
    await call(mcp, "retain", bank_id=b, text="My passport is in the drawer.", session_id="s", wait=True)
    hits_b = (await call(mcp, "recall", bank_id=b, query="passport number X1234567", limit=50))["hits"]
    assert hits_b and not any("X1234567" in h["text"] for h in hits_b)
    context_b = await call(mcp, "get_context", bank_id=b, session_id="s", text="what is my passport number?")
    assert "X1234567" not in context_b["text"]
    memory_id = secret["memories"][0]["memory_id"]
    assert f"no memory {memory_id} in bank {b!r}" in await refused(mcp, "history", bank_id=b, memory_id=memory_id)
    assert f"no memory {memory_id} in bank {b!r}" in await refused(mcp, "forget", bank_id=b, memory_id=memory_id)
    assert any("X1234567" in h["text"] for h in (await call(mcp, "recall", bank_id=a, query="passport number"))["hits"])


# ------------------------------------------------------------------ HTTP: tokens and banks


async def log_ends(data: Path) -> dict[str, int]:
    """Records of turns and of commands, served recalls left out (the server records them when it likes)."""
    log = EmbeddedLog(data / "log.sqlite3")
    await log.start()
    try:
        out = {"hindsight.turns": sum((await log.end_offsets("hindsight.turns")).values()), "hindsight.commands": 0}
        async for records in replay(log, "hindsight.commands"):
            out["hindsight.commands"] += sum(b'"type":"RecallsTallied"' not in r.value for r in records)
        return out
    finally:
        await log.close()


async def test_http_without_a_valid_token_is_refused_and_writes_nothing(http_server: Served) -> None:
    before = await log_ends(http_server.data)
    retain = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "retain", "arguments": {"bank_id": "alice", "text": "I live in Oslo."}},
    }
    async with httpx2.AsyncClient() as raw:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0000000000"}, {"Authorization": f"Basic {ALICE}"}):
            response = await raw.post(
                http_server.url,
                json=retain,
                headers={
                    **headers,
                    "Accept": "application/json, text/event-stream",
                    "Content-Type": "application/json",
                },
            )
            assert response.status_code == 401, response.text
            assert response.headers["www-authenticate"].startswith("Bearer")
    for token in (None, "wrong-token-0000000000"):
        with pytest.raises(Exception) as failed:
            async with http_client(http_server.url, token) as client:
                await client.call_tool("retain", {"bank_id": "alice", "text": "I live in Oslo."})
        assert isinstance(leaf(failed.value), MCPError), failed.value
    assert await log_ends(http_server.data) == before


async def test_http_token_for_another_bank_is_refused_and_writes_nothing(http_server: Served) -> None:
    async with http_client(http_server.url, ALICE) as alice:
        before = await log_ends(http_server.data)
        for tool, arguments in [
            ("retain", {"content": "I live in Oslo.", "session": "s"}),
            ("recall", {"query": "where do I live?"}),
            ("bank_stats", {}),
            ("get_context", {"session": "s", "message": "hi"}),
            ("forget", {"memory_id": str(uuid.uuid4())}),
            ("correct", {"memory_id": str(uuid.uuid4()), "text": "x"}),
            ("history", {"memory_id": str(uuid.uuid4())}),
        ]:
            text = await refused(alice, tool, bank_id="bob", **arguments)
            assert "access denied: this connection may not use bank 'bob'" in text, (tool, text)
        assert await log_ends(http_server.data) == before

        # The token covers one bank, so it binds the connection: calls may leave `bank` out.
        retained = await call(alice, "retain", text="I live in Oslo.", session_id="s", wait=True)
        assert retained["bank_id"] == "alice" and retained["ready"] is True
        assert (await call(alice, "list_banks"))["banks"] == ["alice"]
        assert any("Oslo" in h["text"] for h in (await call(alice, "recall", query="where do I live?"))["hits"])
        # Erase is the operator's, even on the token's own bank.
        before = await log_ends(http_server.data)
        text = await refused(alice, "erase", session_id="s", reason="asked")
        assert "erase is for operators" in text, text
        assert await log_ends(http_server.data) == before
    async with http_client(http_server.url, OPS) as ops:
        assert "bob" not in (await call(ops, "list_banks"))["banks"]


# ------------------------------------------------------------------ one data directory, two processes


async def test_stdio_beside_a_running_up_publishes_and_reads_only(http_server: Served, http_ops: Client) -> None:
    errors = http_server.data.parent / "stdio.err"
    with open(errors, "w") as errlog:
        async with connected(Client(stdio_client(stdio_params(http_server.data), errlog=errlog))) as local:
            b = bank("shared")
            retained = await call(local, "retain", bank_id=b, text="We deploy on Fridays at noon.", wait=True)
            assert retained["ready"] is True  # decided and projected by `up`, the lock holder
            hits = (await call(http_ops, "recall", bank_id=b, query="when do we deploy?"))["hits"]
            assert hits[0]["text"] == "We deploy on Fridays at noon."
            assert (await call(local, "recall", bank_id=b, query="when do we deploy?"))["hits"] == hits
    assert "running the pipeline in this process" not in errors.read_text()


async def test_an_unreachable_log_fails_fast_and_the_server_keeps_serving(tmp_path: Path) -> None:
    params = stdio_params(tmp_path / "data", "--broker", "127.0.0.1:1", HINDSIGHT_REQUEST_TIMEOUT_S="1")
    with open(tmp_path / "stdio.err", "w") as errlog:
        async with connected(Client(stdio_client(params, errlog=errlog))) as client:
            for _ in range(2):
                started = time.monotonic()
                text = await refused(client, "retain", bank_id="k", text="We use Kafka.")
                assert "cannot reach the Kafka broker at '127.0.0.1:1'" in text
                assert time.monotonic() - started < 5
            assert (await call(client, "list_banks")) == {"banks": []}  # reads still answer
            assert "unknown bank 'k'" in await refused(client, "recall", bank_id="k", query="kafka")


# ------------------------------------------------------------------ the forgetting lifecycle over HTTP


async def test_http_archived_memories_come_back_by_recall_or_restore_and_show_in_metrics(
    http_server: Served, http_ops: Client
) -> None:
    from hindsight_es.events import JanitorTick, encode

    b = bank("faded")
    lake, phone = "We went to the lake on Sunday.", "My old phone number was 555-0100."
    for turn_id, text in (("t1", lake), ("t2", phone)):
        await call(
            http_ops,
            "retain",
            bank_id=b,
            text=text,
            session_id="s1",
            turn_id=turn_id,
            occurred_at="2025-01-05T10:00:00Z",
            wait=True,
        )
    log = EmbeddedLog(http_server.data / "log.sqlite3")  # the janitor's tick, as `up` would send it, now
    await log.start()
    try:
        await log.append("hindsight.commands", b, [encode(JanitorTick(bank_id=b, actor="janitor"))])
    finally:
        await log.close()

    async def texts(**arguments: Any) -> list[str]:
        return [h["text"] for h in (await call(http_ops, "recall", bank_id=b, **arguments))["hits"]]

    deadline = time.monotonic() + 60  # each step its own wait: under a loaded suite the chain once took 30 s
    while await texts(query="lake or phone number"):
        assert time.monotonic() < deadline, "the tick did not archive the old memories"
        await asyncio.sleep(0.2)

    async def cold(query: str, **arguments: Any) -> list[tuple[str, str]]:
        hits = (await call(http_ops, "recall", bank_id=b, query=query, include_archived=True, **arguments))["hits"]
        return [(h["text"], h["status"]) for h in hits]

    # The archive projection writes the MemoryArchived events on its own schedule (under a stream it
    # batches for up to its linger_s), so the cold copy may trail the hot table's removal briefly.
    deadline = time.monotonic() + 60
    while (found := await cold("the lake on Sunday", limit=1)) != [(lake, "archived")]:
        assert time.monotonic() < deadline, f"the archived memory is not in the cold archive: {found}"
        await asyncio.sleep(0.1)
    deadline = time.monotonic() + 60
    while lake not in await texts(query="the lake on Sunday"):  # served, so it comes back
        assert time.monotonic() < deadline, "an archived memory served by recall did not come back"
        await asyncio.sleep(0.2)

    # Found by browsing, not by recall: a recall that served it would bring it back by itself.
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {OPS}"}) as api:
        page = await api.get(f"{http_server.url.removesuffix('/mcp')}/v1/banks/{b}/memories?status=archived")
    number = next(m for m in page.json()["memories"] if m["text"] == phone)
    restored = await call(http_ops, "restore", bank_id=b, memory_id=number["memory_id"], reason="needed again")
    assert restored["ready"] is True and phone in await texts(query="phone number")

    metrics_url = http_server.url.removesuffix("/mcp") + "/metrics"
    async with httpx2.AsyncClient() as raw:
        assert (await raw.get(metrics_url)).status_code == 401
        exposed = (await raw.get(metrics_url, headers={"Authorization": f"Bearer {OPS}"})).text
    assert f'hindsight_memories{{bank="{b}",state="hot"}}' in exposed
    assert "hindsight_memory_events_total" in exposed
