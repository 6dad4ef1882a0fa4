"""The dashboard's forms end on GET pages (redirect-after-post) against a live ``up`` with tokens: a review, a
dispute decision, a rollback's apply and undo answer 303 to a page that shows what was done once, and that
page reloads and reopens without sending anything again. The rollback plan, a dry run, is a GET page itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.served import OPS, TOKENS, Up, running_up
from tests.e2e.test_dashboard import POISON, TURNS
from tests.e2e.test_dashboard_http import hidden, log_ends, page
from tests.e2e.test_http_api import client as api


@pytest.fixture(scope="module")
def up(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Up]:
    with running_up(tmp_path_factory.mktemp("dashboard-forms"), tokens=TOKENS) as up:
        with api(up) as http:
            for turn_id, text, session, source in TURNS:
                body = {"text": text, "session_id": session, "turn_id": turn_id, "source": source, "wait": True}
                assert http.post("/v1/banks/roll/memories", json=body).status_code == 201
            for bank in ("held-one", "held-two"):
                said = {"text": POISON, "session_id": "d1", "source": "document", "wait": True}
                assert http.post(f"/v1/banks/{bank}/memories", json=said).status_code == 201
            said = {"text": "Our office is at 12 Oak Avenue.", "session_id": "o1", "wait": True}
            assert http.post("/v1/banks/office/memories", json=said).status_code == 201
            doc = {"text": "The office moved to 5 Elm St.", "session_id": "o1", "source": "document", "wait": True}
            assert http.post("/v1/banks/office/memories", json=doc).json()["memories"][0]["status"] == "disputed"
        yield up


@pytest.fixture
def ui(up: Up) -> Iterator[httpx.Client]:
    """A browser-like client logged in with the operator's token (forms carry this origin); it keeps cookies
    and does not follow redirects, so each answer is seen."""
    with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=60) as http:
        assert http.post("/ui/login", data={"token": OPS}).status_code == 303
        yield http


def held(up: Up, bank: str) -> list[str]:
    with api(up) as http:
        return [m["memory_id"] for m in http.get("/v1/quarantine", params={"bank_id": bank}).json()["memories"]]


def redirected(answer: httpx.Response, to: str | re.Pattern[str]) -> str:
    """The 303's target, checked."""
    assert answer.status_code == 303, answer.text[:2000]
    target = answer.headers["location"]
    assert re.fullmatch(to, target) if isinstance(to, re.Pattern) else target == to, target
    return target


def test_a_review_ends_on_the_quarantine_page_which_reloads_without_reviewing_again(up: Up, ui: httpx.Client) -> None:
    memory_id = held(up, "held-one")[0]
    answer = ui.post("/ui/banks/held-one/quarantine/release", data={"memory_id": memory_id, "reason": "checked"})
    target = redirected(answer, "/ui/quarantine")
    assert f"released {memory_id}: now active" in page(ui.get(target))
    before = log_ends(up)
    again = page(ui.get(target))  # a reload: the page as it is now, the notice shown once
    assert "Quarantine" in again and memory_id not in again and f"released {memory_id}" not in again
    assert log_ends(up) == before
    # the review's own address, opened again (an error page's, reloaded or shared), leads to the page
    redirected(ui.get("/ui/banks/held-one/quarantine/release"), "/ui/quarantine")


def test_the_quarantine_page_links_each_bank(up: Up, ui: httpx.Client) -> None:
    listing = ui.get("/ui/quarantine")
    assert held(up, "held-two")
    assert '<a href="/ui/banks/held-two">held-two</a>' in listing.text
    assert "Quarantine" in page(ui.get("/ui/banks/held-two"))


def test_a_dispute_decision_ends_on_the_disputes_page(up: Up, ui: httpx.Client) -> None:
    with api(up) as http:
        disputed = http.get("/v1/banks/office/disputes").json()["disputes"][0]["memory_id"]
    answer = ui.post("/ui/banks/office/disputes/reject", data={"memory_id": disputed, "reason": "we did not move"})
    target = redirected(answer, "/ui/banks/office/disputes")
    shown = page(ui.get(target))
    assert f"rejected {disputed}: now forgotten" in shown and "No open dispute" in shown
    before = log_ends(up)
    assert f"rejected {disputed}" not in page(ui.get(target))
    assert log_ends(up) == before
    redirected(ui.get("/ui/banks/office/disputes/reject"), "/ui/banks/office/disputes")


def test_a_rollback_plan_is_a_page_and_apply_and_undo_end_on_the_rollbacks_page(up: Up, ui: httpx.Client) -> None:
    shown = ui.get("/ui/banks/roll/rollback/plan", params={"session_id": "s2", "reason": "poisoned"})
    assert "DHL" in page(shown) and "FedEx" in page(shown)
    assert 'method="get" action="/ui/banks/roll/rollback/plan"' in ui.get("/ui/banks/roll/rollback").text
    applied = ui.post("/ui/banks/roll/rollback", data={**hidden(shown.text, "apply"), "reason": "poisoned"})
    target = redirected(applied, re.compile(r"/ui/banks/roll/rollbacks/[0-9a-f-]{36}"))
    text = page(ui.get(target))
    assert re.search(r"rolled back: \d+ memor(y|ies) retracted, \d+ came back", text)
    assert re.search(r"DHL now retracted", text) and re.search(r"FedEx now active", text)
    assert "poisoned" in text and "Undo this rollback" in text
    before = log_ends(up)
    reloaded = page(ui.get(target))
    assert "DHL now retracted" in reloaded and "rolled back:" not in reloaded
    assert log_ends(up) == before
    undo = re.search(r'action="(/ui/banks/roll/rollback/[0-9a-f-]+/undo)"', ui.get(target).text)
    assert undo is not None
    undone = page(ui.get(redirected(ui.post(undo.group(1), data={"reason": "wrong session"}), target)))
    assert re.search(r"rollback undone: \d+ memor(y|ies) back", undone) and "DHL now active" in undone
    assert "Undo this rollback" not in undone and "Undone: nothing this rollback retracted" in undone
    # the same undo sent again (a second tab): nothing recorded, and the page says so
    before = log_ends(up)
    again = page(ui.get(redirected(ui.post(undo.group(1), data={}), target)))
    assert "Nothing left to undo" in again
    assert log_ends(up)["hindsight.commands"] == before["hindsight.commands"]
    redirected(ui.get(undo.group(1)), target)


def test_a_rollback_page_of_no_rollback_is_404(ui: httpx.Client) -> None:
    assert "no rollback" in page(ui.get("/ui/banks/roll/rollbacks/00000000-0000-0000-0000-000000000000"), 404)
    assert "rollback_id" in page(ui.get("/ui/banks/roll/rollbacks/notauuid"), 400)


def test_a_post_from_another_origin_is_still_refused(up: Up, ui: httpx.Client) -> None:
    before = held(up, "held-two")
    memory_id = before[0]
    forged = ui.post(
        "/ui/banks/held-two/quarantine/reject",
        data={"memory_id": memory_id, "reason": "x"},
        headers={"Origin": "http://evil.example"},
    )
    assert forged.status_code == 403
    assert held(up, "held-two") == before


def test_a_plan_says_the_status_of_each_memory_it_would_retract(up: Up, ui: httpx.Client) -> None:
    with api(up) as http:
        said = {"text": "The team lunch is on Fridays.", "session_id": "l1", "wait": True}
        assert http.post("/v1/banks/lunch/memories", json=said).status_code == 201
        doc = {"text": "The team lunch moved to Thursdays.", "session_id": "l1", "source": "document", "wait": True}
        note = http.post("/v1/banks/lunch/memories", json=doc).json()["memories"][0]
        assert note["status"] == "disputed"
        body = {"memory_ids": [note["memory_id"]], "reason": "it did not move"}
        assert http.post("/v1/banks/lunch/disputes/reject", json=body).status_code == 200
    shown = page(ui.get("/ui/banks/lunch/rollback/plan", params={"session_id": "l1"}))
    assert re.search(r"The team lunch moved to Thursdays\. l1 · document · now forgotten", shown), shown
    assert re.search(r"The team lunch is on Fridays\. l1 · user · now active", shown), shown


def test_a_rollbacks_page_still_shows_after_one_of_its_memories_was_erased(up: Up, ui: httpx.Client) -> None:
    with api(up) as http:
        for turn_id, text, session, source in TURNS:
            body = {"text": text, "session_id": session, "turn_id": turn_id, "source": source, "wait": True}
            assert http.post("/v1/banks/gone/memories", json=body).status_code == 201
    shown = ui.get("/ui/banks/gone/rollback/plan", params={"session_id": "s2"})
    target = redirected(ui.post("/ui/banks/gone/rollback", data=hidden(shown.text, "apply")), re.compile(r".+"))
    retracted = re.findall(r'<li class="status-retracted">.*?/memories/([0-9a-f-]{36})">', ui.get(target).text)
    assert retracted
    with api(up) as http:  # the poisoned session's memories, erased for good after the rollback
        erase = {"memory_id": retracted[0], "reason": "poisoned"}
        assert http.post("/v1/banks/gone/erase", json=erase).status_code == 200
    text = page(ui.get(target))
    assert f"memory {retracted[0]} was erased" in text and "now gone" in text
    assert "FedEx now active" in text  # the rest of the rollback as before
