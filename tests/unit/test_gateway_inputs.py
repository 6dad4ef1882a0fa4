"""What the HTTP API and the MCP tools refuse before anything is written, over the real ASGI app and an in-memory
MCP client: the one-line detail of a 422, text with control characters, an erase of what the bank never held."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hindsight_es.client import Hindsight
from hindsight_es.errors import InvalidInputError
from tests.unit.doors import refused, written

pytestmark = pytest.mark.asyncio


def problem(answer: httpx.Response, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = answer.json()
    return body


async def test_a_422_says_its_first_problem_as_every_door_does(http: httpx.AsyncClient) -> None:
    body = problem(await http.post("/v1/banks/alice/memories", json={"text": ""}), 422)
    assert body["detail"] == "text: String should have at least 1 character"
    assert [e["field"] for e in body["errors"]] == ["body.text"]  # each error keeps where it is in the request


CONTROL = "a control character (U+0000) at character 4: only tab, newline and carriage return may be in a text"


@pytest.mark.parametrize("text", ["milk\x00 and honey", "bell\x07", "esc \x1b[31m"])
async def test_a_text_with_a_control_character_is_refused_at_every_door(
    hs: Hindsight, http: httpx.AsyncClient, text: str
) -> None:
    await hs.start()
    before = await written(hs)
    body = problem(await http.post("/v1/banks/alice/memories", json={"text": text, "session_id": "s1"}), 422)
    assert body["detail"].startswith("text: a control character (U+00")
    # the tool's name, then the field and the problem, as the other doors say it
    assert (await refused(hs, "retain", bank_id="alice", text=text)).startswith("retain: text: a control character")
    with pytest.raises(InvalidInputError, match=r"^text: a control character \(U\+00"):
        await hs.retain("alice", text, session_id="s1")
    assert await written(hs) == before


async def test_the_message_names_the_character_and_tab_newline_and_return_pass(
    hs: Hindsight, http: httpx.AsyncClient
) -> None:
    body = problem(await http.post("/v1/banks/alice/memories", json={"text": "milk\x00 and honey"}), 422)
    assert body["detail"] == f"text: {CONTROL}"
    fine = await http.post("/v1/banks/alice/memories", json={"text": "one\ttwo\r\nthree", "session_id": "s1"})
    assert fine.status_code == 201, fine.text
    document = (await http.get("/openapi.json")).json()
    pattern = document["components"]["schemas"]["RetainRequest"]["properties"]["text"]["pattern"]
    assert "\\x00-\\x08" in pattern  # the document says what the server refuses (schema-valid data is accepted)


@pytest.mark.parametrize(
    ("scope", "named"),
    [
        ({"turn_id": "nosuch"}, "no turn 'nosuch' in bank 'alice'"),
        ({"session_id": "nosuch"}, "no session 'nosuch' in bank 'alice'"),
        ({"memory_id": "0b6e5f4c-1d5e-4c1a-9a7e-3f1c2d4e5f60"}, "no memory 0b6e5f4c-1d5e-4c1a-9a7e-3f1c2d4e5f60"),
    ],
)
async def test_erasing_what_the_bank_never_held_is_not_found_and_records_nothing(
    hs: Hindsight, http: httpx.AsyncClient, scope: dict[str, str], named: str
) -> None:
    await hs.start()
    before = await written(hs)
    body = problem(await http.post("/v1/banks/alice/erase", json={**scope, "reason": "asked"}), 404)
    assert body["type"].endswith(":not-found") and body["detail"].startswith(named), body
    assert named in await refused(hs, "erase", bank_id="alice", reason="asked", **scope)
    assert await written(hs) == before


async def test_a_body_whose_fields_are_all_optional_may_be_left_out(http: httpx.AsyncClient) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for route in (f"/v1/banks/alice/memories/{unknown}/forget", f"/v1/banks/alice/memories/{unknown}/restore"):
        assert problem(await http.post(route), 404)["type"].endswith("not-found")  # was 422 "body: Field required"


async def test_a_path_no_route_takes_is_a_problem_naming_it(http: httpx.AsyncClient) -> None:
    for method, path in (("GET", "/v1/nothing-here"), ("GET", "/v1/banks/alice/recall"), ("DELETE", "/v1/banks/a")):
        body = problem(await http.request(method, path), 404)  # was text/plain "Not Found" from the MCP mount
        assert body["detail"] == f"no route for {method} {path}: the API's routes are listed at /docs"


async def test_arguments_that_fail_a_tools_schema_are_one_line(hs: Hindsight) -> None:
    said = await refused(hs, "recall", bank_id="alice", query="")  # was pydantic's report: "1 validation error for …"
    assert said == "recall: query: String should have at least 1 character"
    assert await refused(hs, "recall", bank_id="alice", query="x", sesion_id="s") == (
        "recall: sesion_id: Extra inputs are not permitted"
    )


async def test_a_query_parameter_the_route_does_not_take_is_refused(http: httpx.AsyncClient) -> None:
    body = problem(await http.get("/v1/banks/alice/memories", params={"kinds": "fact"}), 422)  # it is "kind"
    assert body["detail"] == "kinds: Extra inputs are not permitted"
    assert problem(await http.get("/v1/stats", params={"unknown": "1"}), 422)["errors"][0]["field"] == "query.unknown"
    answer = await http.get("/v1/banks/alice/memories", params={"kind": "fact", "limit": 5})
    assert answer.status_code != 422, answer.text  # the ones it takes still pass (no such bank: 404)


async def test_a_body_sent_without_its_json_content_type_is_told_so(http: httpx.AsyncClient) -> None:
    sent = '{"text": "hi", "session_id": "s1"}'  # curl -d without -H 'Content-Type: application/json'
    form = {"content-type": "application/x-www-form-urlencoded"}
    body = problem(await http.post("/v1/banks/alice/memories", content=sent, headers=form), 422)
    assert body["detail"].startswith("the body must be JSON, sent with Content-Type: application/json")


async def test_a_body_that_is_not_json_is_told_so_not_as_a_field(http: httpx.AsyncClient) -> None:
    """FastAPI said "13: JSON decode error" at field "body.13": a character position read as a field's name."""
    headers = {"content-type": "application/json"}
    body = problem(await http.post("/v1/banks/alice/memories", content='{"text": "hi"', headers=headers), 422)
    assert body["detail"].startswith("body: not valid JSON: ") and "at character 13" in body["detail"]
    assert [e["field"] for e in body["errors"]] == ["body"]
