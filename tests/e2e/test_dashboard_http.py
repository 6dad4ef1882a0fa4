"""The dashboard over plain HTTP against a live ``up`` with tokens: what each page answers to bad input,
to a rollback whose plan was not the one shown, to unknown banks and sessions, and what a search reads
(its filters, the archive) and leaves alone (recall tallies). The browser walk is ``test_dashboard``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from html import unescape

import httpx
import pytest

from tests.e2e.served import OPS, TOKENS, Up, running_up
from tests.e2e.test_dashboard import TURNS

SESSIONS = ["team/alpha", "../up", "x y"]  # ids a path segment must encode whole
MANY = 55  # more than a page of the memory browser (50)


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    # recall use tallied every half second, so that ``settled`` sees the tallies of a search land
    with running_up(tmp_path_factory.mktemp("dashboard-http"), tokens=TOKENS, HINDSIGHT_RECALL_TALLY_S="0.5") as up:
        with api(up) as http:
            for turn_id, text, session, source in TURNS:
                body = {"text": text, "session_id": session, "turn_id": turn_id, "source": source, "wait": True}
                assert http.post("/v1/banks/acme/memories", json=body).status_code == 201
            for turn_id, text, session, source in TURNS:  # a bank the rollback tests may change
                body = {"text": text, "session_id": session, "turn_id": turn_id, "source": source, "wait": True}
                assert http.post("/v1/banks/roll/memories", json=body).status_code == 201
            for n, session in enumerate(SESSIONS):
                said = {"text": f"Project {n} ships on Friday.", "session_id": session, "wait": True}
                assert http.post("/v1/banks/odd/memories", json=said).status_code == 201
            for n in range(MANY):
                said = {"text": f"Locker {n} holds box {n * 7}.", "explicit": True, "wait": n == MANY - 1}
                assert http.post("/v1/banks/many/memories", json=said).status_code == 201
            said = {"text": "I live in Oslo.", "session_id": "a1", "wait": True}
            assert http.post("/v1/banks/alice/memories", json=said).status_code == 201
        yield up


def api(up: Up) -> httpx.Client:
    return httpx.Client(base_url=up.base, headers={"Authorization": f"Bearer {OPS}"}, timeout=60)


@pytest.fixture
def ui(up: Up) -> Iterator[httpx.Client]:
    """A browser-like client logged in with the operator's token (forms carry this origin)."""
    with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=60) as http:
        assert http.post("/ui/login", data={"token": OPS}).status_code == 303
        yield http


def page(response: httpx.Response, status: int = 200) -> str:
    """The page's text (tags stripped, entities decoded), once its status and media type are checked."""
    assert response.status_code == status, response.text[:2000]
    assert response.headers["content-type"].startswith("text/html"), response.headers["content-type"]
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.text)))


def log_ends(up: Up) -> dict[str, int]:
    with api(up) as http:
        ends: dict[str, int] = http.get("/v1/stats").json()["log_end_offsets"]
        return ends


def settled(up: Up) -> dict[str, int]:
    """The log's ends once what earlier recalls served has been recorded (off the read path)."""
    last, deadline = log_ends(up), time.monotonic() + 15
    while time.monotonic() < deadline:
        time.sleep(0.7)
        if (now := log_ends(up)) == last:
            return now
        last = now
    raise AssertionError("the log kept growing")


def hidden(html: str, form_id: str) -> dict[str, str]:
    """The hidden fields of one form of a page."""
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', html, re.S)
    assert form is not None, f"no form #{form_id}"
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(0))
    return {name: unescape(value) for name, value in fields}


# ------------------------------------------------------------------ rollback: apply what was shown


def test_apply_carries_the_criteria_of_the_plan_shown_and_refuses_others(up: Up, ui: httpx.Client) -> None:
    shown = ui.post("/ui/banks/roll/rollback/plan", data={"session_id": "s2", "reason": "poisoned"})
    assert "DHL" in page(shown)
    carried = hidden(shown.text, "apply")
    assert carried["session_id"] == "s2"
    # the session changed after the plan was shown: refused, nothing written
    before = log_ends(up)
    changed = ui.post("/ui/banks/roll/rollback", data={**carried, "session_id": "s1", "reason": "poisoned"})
    assert "show the plan again" in page(changed, 409)
    assert log_ends(up)["hindsight.commands"] == before["hindsight.commands"]
    applied = page(ui.post("/ui/banks/roll/rollback", data={**carried, "reason": "poisoned"}))
    assert "DHL" in applied and "FedEx" in applied and "Undo this rollback" in applied


def test_a_rollback_that_matches_nothing_offers_no_apply_and_is_refused(up: Up, ui: httpx.Client) -> None:
    shown = ui.post("/ui/banks/roll/rollback/plan", data={"session_id": "s1", "until": "2000-01-01T00:00"})
    assert "Nothing matches" in page(shown)
    assert "Apply the rollback" not in shown.text
    before = log_ends(up)
    refused = ui.post("/ui/banks/roll/rollback", data={"session_id": "s1", "until": "2000-01-01T00:00"})
    text = page(refused, 400)
    assert "nothing to roll back" in text and "Undo" not in text
    assert log_ends(up) == before


# ------------------------------------------------------------------ bad input: a 4xx page, never a 5xx


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("min_importance=abc", "min_importance"),
        ("min_importance=nan", "min_importance"),
        ("min_importance=2", "min_importance"),
        ("session_id=a%00b", "session_id"),
        ("offset=abc", "offset"),
        ("offset=-1", "offset"),
        ("offset=99999999999999999999999", "offset"),
        ("since=yesterday", "since"),
        ("q=" + "x" * 4001, "4000"),
    ],
)
def test_bad_filters_answer_400_on_the_dashboard_page(ui: httpx.Client, query: str, words: str) -> None:
    text = page(ui.get(f"/ui/banks/acme?{query}"), 400)
    assert "Something is wrong" in text and words in text
    assert "Quarantine" in text  # the operator's nav stays


def test_requests_that_do_not_fit_the_schema_get_the_page_under_ui_and_problems_under_v1(ui: httpx.Client) -> None:
    assert "memory_id" in page(ui.get("/ui/banks/alice/memories/notauuid"), 422)
    assert "memory_id" in page(ui.post("/ui/banks/acme/quarantine/release", data={"memory_id": "nope"}), 422)
    with httpx.Client(base_url=str(ui.base_url), headers={"Origin": str(ui.base_url)}) as anonymous:
        assert "token" in page(anonymous.post("/ui/login", data={"token": ""}), 422)
    problem = ui.get("/v1/banks/alice/memories/notauuid", headers={"Authorization": f"Bearer {OPS}"})
    assert problem.status_code == 422 and problem.headers["content-type"] == "application/problem+json"


# ------------------------------------------------------------------ search


def test_a_dashboard_search_is_not_counted_as_a_recall(up: Up, ui: httpx.Client) -> None:
    before = settled(up)
    assert "DHL" in page(ui.get("/ui/banks/acme", params={"q": "which carrier for international orders?"}))
    assert settled(up) == before
    with api(up) as http:  # while an agent's recall is counted (RecallsTallied): the check can tell
        assert http.post("/v1/banks/acme/recall", json={"query": "which carrier?"}).status_code == 200
    assert settled(up)["hindsight.commands"] > before["hindsight.commands"]
