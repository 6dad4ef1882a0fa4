"""``disputes`` and ``owners``: the disputes waiting for a bank's owner, and who the owners are."""

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
from hindsight_es.client.disputes import BankOwners, DisputedMemory
from hindsight_es.events import DisputeResolutionRequested
from hindsight_es.text import plural

app = typer.Typer(
    help="Disputes: less trusted memories that contradict the owner's, kept until the owner accepts or rejects them.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
owners_app = typer.Typer(
    help="A bank's owners: the principals whose user turns are the owner's word.",
    no_args_is_help=True,
    rich_markup_mode=None,
)

Ids = Annotated[list[str], typer.Argument(help=ids_help("`disputes list`"))]
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
    """Disputed memories with what they dispute and why, oldest first."""
    settings = existing_store(settings_from(ctx))

    async def go() -> list[DisputedMemory]:
        async with reading(settings) as hs:  # the stores only: on Kafka, the broker may be down
            await catch_up_if_idle(hs)
            return await hs.disputes.disputed(bank, limit=limit)

    found = run_async(go)
    if as_json:  # the TrustResult of GET /v1/banks/{bank}/disputes and the MCP trust tool's action "disputes"
        from hindsight_es.app.gateway.models import TrustResult, disputed_of

        # Without --bank, every bank's: bank_id null, as QuarantineResult's list says it (HTTP lists one bank's).
        return print_json(TrustResult(bank_id=bank, action="disputes", disputes=[disputed_of(m) for m in found]))
    if not found:
        console.print("no dispute is waiting" + (f" in bank {bank!r}" if bank else ""))
        return
    rows = [
        [m.memory_id, m.bank_id, m.provenance or "", m.text, f"{m.disputes}: {m.disputed_text}", m.reason]
        for m in found
    ]
    columns = ["bank", "from", "text", "disputes", "reason"]
    console.print(review_table(f"disputed memories ({len(found)})", columns, rows))


@app.command()
def accept(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    memory_ids: Ids,
    reason: Reason = "",
    timeout: Timeout = 30.0,
) -> None:
    """Accept disputed memories: each becomes active and confirmed, superseding the memory it disputed."""
    _resolve(ctx, bank, memory_ids, accept=True, reason=reason, timeout=timeout)


@app.command()
def reject(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    memory_ids: Ids,
    reason: Reason = "",
    timeout: Timeout = 30.0,
) -> None:
    """Reject disputed memories: they are forgotten; the disputed memory stays as it is."""
    _resolve(ctx, bank, memory_ids, accept=False, reason=reason, timeout=timeout)


def _resolve(
    ctx: typer.Context, bank: str, memory_ids: list[str], *, accept: bool, reason: str, timeout: float
) -> None:
    settings = existing_store(settings_from(ctx))
    wanted = "active" if accept else "forgotten"

    async def go() -> bool:
        async with Hindsight(settings) as hs:
            await catch_up_if_idle(hs)
            named = await whole_ids(hs, memory_ids, bank)
            receipt = await hs.disputes.resolve(bank, named, accept=accept, reason=reason, wait=False)
            await catch_up_if_idle(hs)  # no service running: decide and project it in this process
            ids = cast(DisputeResolutionRequested, receipt.event).memory_ids
            return await settled(hs, bank, ids, wanted, timeout)

    if not run_async(go):
        err_console.print(f"[yellow]pending:[/yellow] the request is in the log; not applied within {timeout:g}s")
        raise typer.Exit(EXIT_PENDING)
    done = plural(len(memory_ids), "disputed memory", "disputed memories")
    console.print(f"{'accepted' if accept else 'rejected'} {done} in bank {bank!r}")


@owners_app.command("show")
def show(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """The bank's owners, declared or (with no declaration) the principal of its first user memory."""
    settings = existing_store(settings_from(ctx))

    async def go() -> BankOwners:
        async with reading(settings) as hs:  # the stores only: on Kafka, the broker may be down
            await catch_up_if_idle(hs)
            return await hs.disputes.owners(bank)

    found = run_async(go)
    if as_json:  # as GET /v1/banks/{bank}/owners answers (whether declared is the text's alone)
        from hindsight_es.remote.models import TrustResult

        return print_json(TrustResult(bank_id=bank, action="owners", owners=found.owners))
    how = "declared" if found.declared else "not declared: the first principal to write a user turn"
    console.print(f"{bank}: {', '.join(found.owners) or '(none yet)'} ({how})")


@owners_app.command("set")
def set_(
    ctx: typer.Context,
    bank: Annotated[str, typer.Argument(help="Bank id")],
    owners: Annotated[
        list[str], typer.Argument(help="Principals, as events record them: user, mcp:stdio, mcp:token-…")
    ],
    reason: Reason = "",
) -> None:
    """Declare the bank's owners (replaces the previous declaration)."""
    settings = settings_from(ctx)  # owners may be declared before anyone writes

    async def go() -> None:
        async with Hindsight(settings) as hs:
            await hs.disputes.set_owners(bank, owners, reason=reason, wait=False)
            await catch_up_if_idle(hs)

    run_async(go)
    console.print(f"owners of bank {bank!r}: {', '.join(owners)}")
