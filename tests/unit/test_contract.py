"""The committed contract (docs/asyncapi.json, docs/schemas/*.json) is what the code generates now."""

from __future__ import annotations

from pathlib import Path

from streams.contract import files

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_the_committed_contract_is_current() -> None:
    expected = files()
    stale = [p for p, text in expected.items() if not (DOCS / p).is_file() or (DOCS / p).read_text() != text]
    extra = sorted(str(p.relative_to(DOCS)) for p in (DOCS / "schemas").glob("*.json"))
    assert stale == [], "run: python -m streams.contract docs"
    assert set(extra) <= set(expected), "schemas of events that no longer exist: " + ", ".join(
        set(extra) - set(expected)
    )


def test_the_asyncapi_document_names_every_topic_and_group() -> None:
    import json

    channels = json.loads(files()["asyncapi.json"])["channels"]
    names = {c.split(":")[0] for c in channels}
    assert names == {"hindsight.turns", "hindsight.commands", "hindsight.memories", "hindsight.deadletter"}
    assert {"hindsight.turns:BankActor", "hindsight.commands:BankActor", "hindsight.memories:ProjectionVectors"} <= set(
        channels
    )
