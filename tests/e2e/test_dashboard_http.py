"""The dashboard over plain HTTP against a live ``up`` with tokens: what each page answers to bad input,
to a rollback whose plan was not the one shown, to unknown banks and sessions, and what a search reads
(its filters, the archive) and leaves alone (recall tallies). The browser walk is ``test_dashboard``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from typing import Any

import httpx
import pytest

from tests.e2e.served import ALICE, OPS, TOKENS, Up, running_up
from tests.e2e.test_dashboard import TURNS
from tests.e2e.test_http_api import client as api
from tests.e2e.test_http_api import log_ends as ends_of
from tests.e2e.test_http_api import settled as settled_of

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
            said = {"text": "Our office is at 12 Oak Avenue.", "session_id": "a1", "wait": True}
            assert http.post("/v1/banks/alice/memories", json=said).status_code == 201
            doc = {"text": "The office moved to 5 Elm St.", "session_id": "a1", "source": "document", "wait": True}
            assert http.post("/v1/banks/alice/memories", json=doc).json()["memories"][0]["status"] == "disputed"
        yield up


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
        return ends_of(http)


def settled(up: Up) -> dict[str, int]:
    with api(up) as http:
        return settled_of(http)


def hidden(html: str, form_id: str) -> dict[str, str]:
    """The hidden fields of one form of a page."""
    form = re.search(rf'<form[^>]*id="{form_id}".*?</form>', html, re.S)
    assert form is not None, f"no form #{form_id}"
    fields = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form.group(0))
    return {name: unescape(value) for name, value in fields}


# ------------------------------------------------------------------ rollback: apply what was shown


def test_apply_carries_the_criteria_of_the_plan_shown_and_refuses_others(up: Up, ui: httpx.Client) -> None:
    shown = ui.get("/ui/banks/roll/rollback/plan", params={"session_id": "s2", "reason": "poisoned"})
    assert "DHL" in page(shown)
    carried = hidden(shown.text, "apply")
    assert carried["session_id"] == "s2"
    # the session changed after the plan was shown: refused, nothing written
    before = log_ends(up)
    changed = ui.post("/ui/banks/roll/rollback", data={**carried, "session_id": "s1", "reason": "poisoned"})
    assert "show the plan again" in page(changed, 409)
    assert log_ends(up)["hindsight.commands"] == before["hindsight.commands"]
    applied = ui.post("/ui/banks/roll/rollback", data={**carried, "reason": "poisoned"})
    assert applied.status_code == 303
    text = page(ui.get(applied.headers["location"]))
    assert "DHL" in text and "FedEx" in text and "Undo this rollback" in text


def test_a_rollback_that_matches_nothing_offers_no_apply_and_is_refused(up: Up, ui: httpx.Client) -> None:
    shown = ui.get("/ui/banks/roll/rollback/plan", params={"session_id": "s1", "until": "2000-01-01T00:00"})
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
        ("source=bogus", "source: Input should be"),  # the field, not pydantic's path into its type
        ("kind=bogus", "kind.0: Input should be"),  # the item, as every door names it (``text.first_error``)
        ("since=2026-04-01T00:00&until=2026-03-01T12:00", "must be before until"),
    ],
)
def test_bad_filters_answer_400_on_the_dashboard_page(ui: httpx.Client, query: str, words: str) -> None:
    text = page(ui.get(f"/ui/banks/acme?{query}"), 400)
    assert "Something is wrong" in text and words in text
    assert "Quarantine" in text  # the operator's nav stays


@pytest.mark.parametrize(
    "path",
    ["/ui/banks/ac%00me", "/ui/banks/ac%00me/sessions", "/ui/banks/acme/sessions/s%00", "/ui/banks/ac%00me/rollback"],
)
def test_a_control_character_in_a_path_id_is_400_not_a_store_failure(ui: httpx.Client, path: str) -> None:
    assert "control character" in page(ui.get(path), 400)


def test_requests_that_do_not_fit_the_schema_get_the_page_under_ui_and_problems_under_v1(ui: httpx.Client) -> None:
    assert "memory_id" in page(ui.get("/ui/banks/alice/memories/notauuid"), 400)
    assert "memory_id" in page(ui.post("/ui/banks/acme/quarantine/release", data={"memory_id": "nope"}), 400)
    with httpx.Client(base_url=str(ui.base_url), headers={"Origin": str(ui.base_url)}) as anonymous:
        assert "token" in page(anonymous.post("/ui/login", data={"token": ""}), 400)
    problem = ui.get("/v1/banks/alice/memories/notauuid", headers={"Authorization": f"Bearer {OPS}"})
    assert problem.status_code == 422 and problem.headers["content-type"] == "application/problem+json"


# ------------------------------------------------------------------ who may see a page, before what it was sent

# Pages of bank "acme" (alice's token does not cover it) sent a path, query or form each refuses (400 to an
# operator), and the operator's pages, sent the same; "al%00ice" and "ac%00me" hold a control character.
OF_ACME: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/ui/banks/acme", {"params": {"min_importance": "abc"}}),
    ("GET", "/ui/banks/acme/memories/not-a-uuid", {}),
    ("GET", "/ui/banks/ac%00me", {}),
    ("GET", "/ui/banks/acme/sessions/s%00", {}),
    ("GET", "/ui/banks/acme/session", {}),  # without its id
    ("GET", "/ui/banks/acme/state", {"params": {"as_of": "yesterday"}}),
    ("POST", "/ui/banks/acme/disputes/accept", {"data": {"memory_id": "nope", "reason": "x"}}),
]
OPERATORS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/ui/banks/al%00ice/rollback", {}),
    ("GET", "/ui/banks/alice/rollback/plan", {"params": {"since": "soon"}}),
    ("GET", "/ui/banks/alice/rollbacks/notauuid", {}),
    ("POST", "/ui/banks/alice/rollback/notauuid/undo", {"data": {"reason": "x" * 2001}}),
    ("POST", "/ui/banks/alice/quarantine/release", {"data": {"memory_id": "nope"}}),
]


@pytest.mark.parametrize(("method", "path", "sent"), OF_ACME + OPERATORS)
def test_a_page_refuses_who_may_not_see_it_before_it_reads_what_it_was_sent(
    up: Up, ui: httpx.Client, method: str, path: str, sent: dict[str, Any]
) -> None:
    with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=60) as alice:
        assert alice.post("/ui/login", data={"token": ALICE}).status_code == 303
        text = page(alice.request(method, path, **sent), 403)
    said = "this call is for operators" if (method, path, sent) in OPERATORS else "may not use bank 'ac"
    assert "Not allowed" in text and said in text, text
    # without a login: to the login page, not told what the page takes
    nobody = httpx.request(method, f"{up.base}{path}", headers={"Origin": up.base}, timeout=60, **sent)
    assert nobody.status_code == 303 and nobody.headers["location"].startswith("/ui/login"), nobody.text[:500]
    assert "Something is wrong" in page(ui.request(method, path, **sent), 400)  # an operator is told what is wrong


# ------------------------------------------------------------------ search


def test_a_dashboard_search_is_not_counted_as_a_recall(up: Up, ui: httpx.Client) -> None:
    before = settled(up)
    assert "DHL" in page(ui.get("/ui/banks/acme", params={"q": "which carrier for international orders?"}))
    assert settled(up) == before
    with api(up) as http:  # while an agent's recall is counted (RecallsTallied): the check can tell
        assert http.post("/v1/banks/acme/recall", json={"query": "which carrier?"}).status_code == 200
    assert settled(up)["hindsight.commands"] > before["hindsight.commands"]


def hit_texts(response: httpx.Response) -> str:
    table = re.search(r'<table id="hits">.*?</table>', response.text, re.S)
    return unescape(table.group(0)) if table else ""


def test_a_search_applies_the_filters_of_the_form(ui: httpx.Client) -> None:
    asked = {"q": "which carrier for international orders?"}
    assert "DHL" in hit_texts(ui.get("/ui/banks/acme", params=asked))
    assert "DHL" in hit_texts(ui.get("/ui/banks/acme", params={**asked, "session_id": "s2"}))
    assert "DHL" not in hit_texts(ui.get("/ui/banks/acme", params={**asked, "session_id": "s1"}))
    assert "DHL" not in hit_texts(ui.get("/ui/banks/acme", params={**asked, "source": "document"}))
    superseded = hit_texts(ui.get("/ui/banks/acme", params={**asked, "status": "superseded"}))
    assert "FedEx" in superseded and "DHL" not in superseded
    assert "FedEx" not in hit_texts(ui.get("/ui/banks/acme", params=asked))  # active only, by default
    # importance is not on a recall hit: the page says the filter was not applied
    text = page(ui.get("/ui/banks/acme", params={**asked, "min_importance": "0.65"}))
    assert "Not applied to a search: importance" in text


# ------------------------------------------------------------------ pages that exist, links that work


def test_unknown_banks_and_sessions_are_404(ui: httpx.Client) -> None:
    assert "unknown bank 'zzz'" in page(ui.get("/ui/banks/zzz/disputes"), 404)
    assert "no session 'nope'" in page(ui.get("/ui/banks/alice/sessions/nope"), 404)
    assert "no such page" in page(ui.get("/ui/nowhere"), 404)


def test_session_links_encode_the_whole_id_and_lead_to_the_session(ui: httpx.Client) -> None:
    listing = ui.get("/ui/banks/odd/sessions")
    page(listing)
    for n, session in enumerate(SESSIONS):
        link = re.search(rf'<a href="([^"]+)">{re.escape(session)}</a>', unescape(listing.text))
        assert link is not None, session
        assert f"Project {n} ships on Friday." in page(ui.get(unescape(link.group(1))))
    assert "team%2Falpha" in listing.text  # one path segment: a "/" in an id is encoded


def test_the_memory_browser_pages_keep_the_filters_and_say_where_they_are(ui: httpx.Client) -> None:
    first = ui.get("/ui/banks/many", params={"kind": ["fact", "episode", "constraint"], "session_id": ""})
    text = page(first)
    total = int(re.search(r"(\d+) memories, showing 1–50", text).group(1))  # type: ignore[union-attr]
    assert total >= MANY
    assert "disputed" in first.text  # a status of the filter
    onward = re.search(r'<a rel="next" href="([^"]+)"', first.text)
    assert onward is not None and "previous page" not in text
    target = unescape(onward.group(1))
    assert "offset=50" in target and "kind=fact" in target and "session_id" not in target  # no empty field
    second = page(ui.get(target))
    assert f"showing 51–{total}" in second and "previous page" in second and "next page" not in second
    past = page(ui.get("/ui/banks/many", params={"offset": 5000}))
    assert "none from 5001 on: past the last one" in past and "previous page" in past


def test_reviews_need_a_reason_and_unknown_actions_are_404(up: Up, ui: httpx.Client) -> None:
    with api(up) as http:
        held = http.get("/v1/quarantine", params={"bank_id": "acme"}).json()["memories"]
    memory_id = held[0]["memory_id"]
    assert "a reason is needed" in page(
        ui.post("/ui/banks/acme/quarantine/release", data={"memory_id": memory_id, "reason": " "}), 400
    )
    assert "quarantined" in page(ui.get(f"/ui/banks/acme/memories/{memory_id}"))  # nothing changed
    assert page(ui.post("/ui/banks/acme/quarantine/bogus", data={"memory_id": memory_id, "reason": "x"}), 404)
    assert page(ui.post("/ui/banks/acme/disputes/bogus", data={"memory_id": memory_id, "reason": "x"}), 404)


# ------------------------------------------------------------------ login, htmx, small wording


def test_login_answers_401_to_a_wrong_token_and_returns_to_the_page_asked_for(up: Up) -> None:
    with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=60) as http:
        asked = http.get("/ui/banks/acme", params={"kind": "fact"})
        assert asked.status_code == 303
        assert asked.headers["location"] == "/ui/login?next=%2Fui%2Fbanks%2Facme%3Fkind%3Dfact"
        form = http.get(asked.headers["location"])
        assert 'name="next" value="/ui/banks/acme?kind=fact"' in form.text
        wrong = http.post("/ui/login", data={"token": "not-a-token", "next": "/ui/banks/acme"})
        assert "unknown token" in page(wrong, 401) and 'name="token"' in wrong.text
        for elsewhere in (
            "https://evil.example/ui",
            "//evil.example/ui",
            "/v1/stats",
            "/\\evil.example",
            "/ui/../docs",
        ):
            went = http.post("/ui/login", data={"token": OPS, "next": elsewhere})
            assert went.status_code == 303 and went.headers["location"] == "/ui", elsewhere
        went = http.post("/ui/login", data={"token": OPS, "next": "/ui/banks/acme?kind=fact"})
        assert went.headers["location"] == "/ui/banks/acme?kind=fact"
        assert http.get("/ui/").headers["location"] == "/ui"
        # htmx without a login: told to load the login page, not given it to swap into the results
        expired = httpx.get(
            f"{up.base}/ui/banks/acme", headers={"HX-Request": "true", "HX-Current-URL": str(asked.url)}
        )
        assert expired.status_code == 401 and expired.headers["hx-redirect"].startswith("/ui/login?next=")
        # an htmx search comes back with its query; a form's post to the page the form was on
        searched = httpx.get(
            f"{up.base}/ui/banks/acme", params={"q": "carrier", "session_id": "a/b"}, headers={"HX-Request": "true"}
        )
        assert (
            searched.headers["hx-redirect"]
            == "/ui/login?next=%2Fui%2Fbanks%2Facme%3Fq%3Dcarrier%26session_id%3Da%252Fb"
        )
        posted = httpx.post(
            f"{up.base}/ui/banks/acme/quarantine/release",
            data={"memory_id": "00000000-0000-0000-0000-000000000000", "reason": "ok"},
            headers={"Origin": up.base, "Referer": f"{up.base}/ui/quarantine"},
        )
        assert posted.status_code == 303 and posted.headers["location"] == "/ui/login?next=%2Fui%2Fquarantine"


def test_an_htmx_error_is_a_fragment_for_the_results(ui: httpx.Client) -> None:
    answer = ui.get("/ui/banks/acme", params={"min_importance": "abc"}, headers={"HX-Request": "true"})
    assert answer.status_code == 400 and answer.headers["hx-retarget"] == "#results"
    assert "<html" not in answer.text and 'role="alert"' in answer.text and "min_importance" in answer.text


def test_dispute_buttons_only_for_who_may_decide(up: Up, ui: httpx.Client) -> None:
    assert ">Accept</button>" in ui.get("/ui/banks/alice/disputes").text  # an operator
    with httpx.Client(base_url=up.base, headers={"Origin": up.base}, timeout=60) as http:
        assert http.post("/ui/login", data={"token": ALICE}).status_code == 303
        shown = http.get("/ui/banks/alice/disputes")  # alice's token, but the bank's owner is another
    text = page(shown)
    assert (
        "5 Elm St." in text and "Only the bank's owners or an operator" in text and "Accept</button>" not in shown.text
    )


def test_wording_counts_times_and_inputs(ui: httpx.Client) -> None:
    assert "(1 turn)" in page(ui.get("/ui/banks/odd/rollback"))
    assert "as of 0001-01-01 00:00:00 UTC" in page(ui.get("/ui/banks/acme/state", params={"as_of": "0001-01-01T00:00"}))
    assert re.search(r"\d{2}:\d{2}:\d{2} UTC", page(ui.get("/ui/banks/acme/sessions")))
    assert 'step="any"' in ui.get("/ui/banks/acme").text
    assert re.search(r"\b1 memory\b", page(ui.get("/ui/banks/alice", params={"kind": "fact"})))


def test_the_api_docs_load_nothing_from_another_host(up: Up) -> None:
    docs = httpx.get(f"{up.base}/docs", timeout=60)
    assert docs.status_code == 200 and "swagger" in docs.text.lower()
    assert re.findall(r"https?://", docs.text) == [], docs.text  # no CDN, no validator badge, no remote favicon
    for asset in re.findall(r"""(?:src|href)=['"](/[^'"]+)['"]""", docs.text) + ["/openapi.json"]:
        assert httpx.get(f"{up.base}{asset}", timeout=60).status_code == 200, asset
    assert '"validatorUrl": null' in docs.text


def test_without_tokens_no_page_offers_to_log_out(tmp_path_factory: pytest.TempPathFactory) -> None:
    with running_up(tmp_path_factory.mktemp("dashboard-open")) as up:
        missing = httpx.get(f"{up.base}/ui/banks/nope", timeout=60)
        text = page(missing, 404)
        assert "unknown bank 'nope'" in text and "Log out" not in text
        assert "Quarantine" in text  # the local user is an operator: the nav stays
        assert "Log out" not in page(httpx.get(f"{up.base}/ui", timeout=60))
