"""``quarantine``: what the write-time guard held back, and the operator's release or reject."""

from __future__ import annotations

from typing import Annotated, Optional, cast

import typer

from hindsight_es.app.cli.common import (
    catch_up_if_idle,
    console,
    err_console,
    existing_store,
    print_json,
    reading,
    run_async,
    settings_from,
    settled,
)
from hindsight_es.app.cli.memory_ids import ids_help, whole_ids
from hindsight_es.app.cli.replay_views import review_table
from hindsight_es.client import Hindsight
from hindsight_es.client.operator import QuarantinedMemory
from hindsight_es.events import RejectRequested, ReleaseRequested
from hindsight_es.text import plural

app = typer.Typer(
    help="Review memories the poisoning guard quarantined (never recalled until released).",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Ids = Annotated[list[str], typer.Argument(help=ids_help("`quarantine list`"))]
Reason = Annotated[str, typer.Option(help="Why (kept in the memory's history)")]
Timeout = Annotated[float, typer.Option(help="Seconds to wait for the change to be visible")]
EXIT_PENDING = 3


@app.command("list")
def list_(
    ctx: typer.Context,
    bank: Annotated[Optional[str], typer.Option(help="One bank (default: all)")] = None,
    limit: Annotated[int, typer.Option(min=1)] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Quarantined memories with the guard's reason, oldest first."""
    settings = existing_store(settings_from(ctx))

    async def go() -> list[QuarantinedMemory]:
        async with reading(settings) as hs:  # the stores only: on Kafka, the broker may be down
            await catch_up_if_idle(hs)
            return await hs.operator.quarantined(bank, limit=limit)

    found = run_async(go)
    if as_json:  # the QuarantineResult of GET /v1/quarantine and the MCP tool's action "list"
        from hindsight_es.app.gateway.models import QuarantineResult, quarantined_of

        return print_json(QuarantineResult(bank_id=bank, action="list", memories=[quarantined_of(m) for m in found]))
    if not found:
        console.print("nothing is quarantined" + (f" in bank {bank!r}" if bank else ""))
        return
    rows = [[m.memory_id, m.bank_id, f"{m.source} ({m.trust})", m.text, m.reason] for m in found]
    console.print(review_table(f"quarantined memories ({len(found)})", ["bank", "source", "text", "reason"], rows))


@app.command()
def release(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    memory_ids: Ids,
    reason: Reason = "",
    timeout: Timeout = 30.0,
) -> None:
    """Release quarantined memories: they become active and recallable (superseding their key's holder)."""
    _review(ctx, bank, memory_ids, release=True, reason=reason, timeout=timeout)


@app.command()
def reject(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    memory_ids: Ids,
    reason: Reason = "",
    timeout: Timeout = 30.0,
) -> None:
    """Reject quarantined memories: they are forgotten (reason "rejected"), their history kept."""
    _review(ctx, bank, memory_ids, release=False, reason=reason, timeout=timeout)


def _review(
    ctx: typer.Context, bank: str, memory_ids: list[str], *, release: bool, reason: str, timeout: float
) -> None:
    settings = existing_store(settings_from(ctx))
    wanted = "active" if release else "forgotten"

    async def go() -> bool:
        async with Hindsight(settings) as hs:
            await catch_up_if_idle(hs)
            named = await whole_ids(hs, memory_ids, bank)
            receipt = await hs.operator.review(bank, named, release=release, reason=reason, wait=False)
            await catch_up_if_idle(hs)  # no service running: decide and project it in this process
            ids = cast(ReleaseRequested | RejectRequested, receipt.event).memory_ids
            return await settled(hs, bank, ids, wanted, timeout)

    if not run_async(go):
        err_console.print(
            f"[yellow]pending:[/yellow] the request is in the log; it was not applied within "
            f"{timeout:g}s (is the service running?)"
        )
        raise typer.Exit(EXIT_PENDING)
    console.print(
        f"{'released' if release else 'rejected'} {plural(len(memory_ids), 'memory', 'memories')} in bank {bank!r}"
    )
