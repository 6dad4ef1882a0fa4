"""Shared CLI plumbing: settings from options, running coroutines, reporting errors as exit codes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from rich.console import Console

from hindsight_es.config import Settings
from hindsight_es.errors import HindsightError
from hindsight_es.logs import configure as configure_logging

if TYPE_CHECKING:
    from hindsight_es.client import Hindsight

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
    configure_logging(settings)  # text or JSON lines (HINDSIGHT_LOG_FORMAT)
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


async def catch_up_if_idle(hs: Hindsight) -> None:
    """Without a running service, drain the log through the actor and projections in this process."""
    from streams.service import ServiceLock, catch_up_all

    lock = ServiceLock(hs.settings)
    if lock.acquire():
        try:
            await catch_up_all(hs.settings, hs.log, embedder=hs.embedder)
        finally:
            lock.release()
    else:
        lock.release()
