"""The house rules a tool can check: small modules, small classes, and the public client API pinned."""

from __future__ import annotations

import ast
from pathlib import Path

import hindsight_es.client

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("hindsight_es", "streams", "projections")
MAX_MODULE_LINES = 400
MAX_PUBLIC_METHODS = 20


def _modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_no_module_is_over_400_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n for p in _modules() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_no_class_has_more_than_20_public_methods() -> None:
    big = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                public = [
                    f.name
                    for f in node.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and not f.name.startswith("_")
                ]
                if len(public) > MAX_PUBLIC_METHODS:
                    big[f"{path.relative_to(ROOT)}:{node.name}"] = len(public)
    assert big == {}


def test_the_client_exports_what_the_readme_uses() -> None:
    assert hindsight_es.client.__all__ == [
        "Hindsight",
        "QuarantinedMemory",
        "Receipt",
        "Stores",
        "build",
        "check_text",
        "make_turn",
        "memory_uuid",
        "turn_event_id",
    ]
    hs = hindsight_es.client.Hindsight
    assert {"record_turn", "retain", "recall", "context", "forget", "correct", "history"} <= set(dir(hs))


def test_every_event_type_is_exported() -> None:
    import hindsight_es.events as events
    import hindsight_es.events.models as models

    assert set(events.EVENT_TYPES) <= set(events.__all__)
    assert set(events.EVENT_TYPES) <= set(models.__all__)
