"""Observability of a live ``up``: latency and lag in /metrics, one trace per turn across publish, the bank
actor and the projections (to a file of JSON spans), and JSON log lines only when asked for JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.served import OPS, TOKENS, Up, running_up


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Up, Path]]:
    root = tmp_path_factory.mktemp("observed")
    spans = root / "spans.jsonl"
    extra = {"HINDSIGHT_TRACES": f"file:{spans}", "HINDSIGHT_LOG_FORMAT": "json", "HINDSIGHT_LAG_SAMPLE_S": "0.5",
             "HINDSIGHT_LOG_LEVEL": "INFO"}  # fmt: skip
    with running_up(root, tokens=TOKENS, **extra) as up:
        yield up, spans
    lines = [line for line in up.errors.read_text().splitlines() if line.strip()]
    assert lines and all(json.loads(line)["level"] for line in lines)  # every line, the banner included
    assert any("hindsight up:" in json.loads(line)["message"] for line in lines)


def test_metrics_latency_lag_positions_dead_letters_and_one_trace_per_turn(traced: tuple[Up, Path]) -> None:
    up, spans = traced
    with httpx.Client(base_url=up.base, headers={"Authorization": f"Bearer {OPS}"}, timeout=60) as http:
        body = {
            "text": "We use PostgreSQL for the billing database.",
            "session_id": "s1",
            "turn_id": "t1",
            "wait": True,
        }
        assert http.post("/v1/banks/obs/memories", json=body).json()["ready"] is True
        hits = http.post("/v1/banks/obs/recall", json={"query": "billing database"}).json()["hits"]
        assert hits
        http.post("/v1/banks/obs/context", json={"session_id": "s1", "text": "billing?"}).raise_for_status()
        import time

        time.sleep(1.5)  # a lag sample
        metrics = http.get("/metrics").text
    for operation in ("recall", "context", "retain_to_queryable"):
        assert f'hindsight_operation_seconds_count{{operation="{operation}"}}' in metrics, operation
    assert re.search(
        r'hindsight_http_request_seconds_count\{method="POST",route="/v1/banks/\{bank_id\}/recall"', metrics
    )
    assert re.search(
        r'hindsight_consumer_lag\{partition="\d+",reader="hindsight.bank-actor",topic="hindsight.turns"\} 0.0', metrics
    )
    assert re.search(
        r'hindsight_reader_position\{partition="\d+",reader="vectors",topic="hindsight.memories"\} [1-9]', metrics
    )
    assert "hindsight_dead_letters 0.0" in metrics
    assert 'hindsight_projection_lag_seconds_count{projection="vectors"}' in metrics

    from hindsight_es.client import turn_event_id

    trace_id = f"0x{turn_event_id('obs', 's1', 't1').int:032x}"
    recorded = [json.loads(line) for line in spans.read_text().splitlines()]
    names = {s["name"] for s in recorded if s["context"]["trace_id"] == trace_id}
    assert {"publish", "bank-actor.decide", "projection.vectors", "projection.archive"} <= names, names
    recall = next(s for s in recorded if s["name"] == "recall")
    assert any(link["context"]["trace_id"] == trace_id for link in recall["links"])  # back to the turn it cites
