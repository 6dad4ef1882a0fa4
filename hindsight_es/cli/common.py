"""Shared CLI plumbing: settings from options, running coroutines, reporting errors as exit codes."""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console

from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError

T = TypeVar("T")
console = Console()
err_console = Console(stderr=True, soft_wrap=True)


def settings_from(ctx: typer.Context) -> Settings:
    return ctx.obj  # type: ignore[no-any-return]


def build_settings(data_dir: Path | None, broker: str | None, embedder: str | None) -> Settings:
    overrides: dict[str, Any] = {}
    if data_dir is not None:
        overrides["data_dir"] = data_dir
    if broker is not None:
        overrides["broker"] = broker
    if embedder is not None:
        overrides["embedder"] = embedder
    settings = Settings(**overrides)
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for noisy in ("aiokafka", "httpx", "lance", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    return settings


def run_async(fn: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine; a ``HindsightError`` becomes a one-line message and exit code 1."""
    try:
        return asyncio.run(fn())  # type: ignore[arg-type]
    except HindsightError as exc:
        err_console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(1) from exc
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
