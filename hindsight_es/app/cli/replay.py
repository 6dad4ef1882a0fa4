"""``hindsight-es replay``: rebuild, verify, audit, roll back, state as of a time, export and import.

Thin: the work is in ``projections.replay`` (rebuild, switch, verify) and ``hindsight_es.history``
(state, rollback, transfer). Works on the embedded log and on Kafka (``--broker``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeVar

import typer

from hindsight_es.app.cli import replay_history
from hindsight_es.app.cli.common import (
    EXIT_PENDING,
    Json,
    console,
    err_console,
    existing_store,
    run_async,
    service_lock,
    settings_from,
    with_client,
)
from hindsight_es.app.cli.replay_views import (
    Bar,
    show_verdict,
    to_json,
)
from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.stores import generations, location
from hindsight_es.stores.objects import join
from hindsight_es.text import plural

if TYPE_CHECKING:
    from projections.replay import Verdict

T = TypeVar("T")
app = typer.Typer(
    help="Replay the log: rebuild, verify, audit, roll back, state as of a time, export/import.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


# ------------------------------------------------------------------ rebuild, switch, gc, verify


@app.command()
def rebuild(
    ctx: typer.Context,
    bank: Annotated[Optional[str], typer.Option(help="Only this bank's rows (LanceDB tables)")] = None,
    projection: Annotated[str, typer.Option(help="vectors (LanceDB: memories, turns) | archive | all")] = "all",
    force: Annotated[bool, typer.Option(help="Switch even while a service runs (see docs/operations.md)")] = False,
    wait: Annotated[float, typer.Option(help="Seconds to wait for the service lock")] = 10.0,
) -> None:
    """Rebuild projections from the log into a new generation, then switch readers to it atomically.

    Recall keeps answering from the current stores until the new ones are complete. No extractor and
    no embedding model is called. Old generations stay on disk until `replay gc`.
    """
    from projections.replay import STORES_OF
    from projections.replay import rebuild as rebuild_stores

    settings = existing_store(settings_from(ctx))
    if projection not in STORES_OF:
        raise typer.BadParameter(f"{projection!r}: vectors, archive or all", param_hint="--projection")
    stores = ("lance",) if bank is not None and projection == "all" else STORES_OF[projection]

    async def work(hs: Hindsight) -> bool:
        with Bar("rebuild") as bar:
            built = await rebuild_stores(settings, hs.log, stores=stores, bank=bank, progress=bar)
        console.print(
            f"replayed {plural(built.events, 'event', grouped=True)} into generation {built.generation} in "
            f"{built.replay_seconds:.2f}s ([bold]{built.events / max(built.replay_seconds, 1e-9):,.0f} "
            f"events/s[/bold]); indexes {built.index_seconds:.2f}s"
        )
        return await _switch(settings, hs, built.generation, built.stores, force=force, wait_s=wait)

    if not with_client(settings, work):
        raise typer.Exit(EXIT_PENDING)


async def _switch(
    settings: Settings, hs: Hindsight, name: str, stores: dict[str, Any], *, force: bool, wait_s: float
) -> bool:
    from projections.replay import switch as switch_stores

    lock = await service_lock(settings, 0)
    if not lock.held and not force and wait_s > 0:
        err_console.print(f"a service holds {settings.data_dir}: waiting up to {wait_s:g}s for it to stop (--wait)")
        lock = await service_lock(settings, wait_s)
    try:
        if not lock.held and not force:
            err_console.print(
                f"[yellow]not switched:[/yellow] a service is running on {settings.data_dir}. Generation "
                f"{name} is built; stop the service, then run `hindsight-es replay switch {name}` "
                "(it catches up on what arrived meanwhile), or run it with --force."
            )
            return False
        applied = await switch_stores(settings, hs.log, stores)
        console.print(
            f"switched: readers now open {', '.join(f'{s} from {p}' for s, p in stores.items())}"
            f" ({applied:,} more events caught up first)"
        )
        if not lock.held:
            err_console.print(
                "note: the running service moves its projections to the new generation within a "
                "second, resuming from the new stores' positions (nothing is lost); readers in other "
                "processes reopen on their next request."
            )
        return True
    finally:
        lock.release()


@app.command()
def switch(
    ctx: typer.Context,
    generation: Annotated[str, typer.Argument(help="A generation id (see `replay gc --dry-run`), or 'initial'")],
    force: Annotated[bool, typer.Option(help="Switch even while a service runs")] = False,
    wait: Annotated[float, typer.Option(help="Seconds to wait for the service lock")] = 10.0,
) -> None:
    """Point readers at an existing generation (catching it up on the log first): finish a rebuild, or go back."""
    settings = existing_store(settings_from(ctx))
    root, options = location.root(settings), location.s3_options(settings)
    if generation == "initial":
        stores = {store: join(root, store) for store in generations.STORES}
    else:
        stores = generations.generation_stores(root, generation, options)
    if not with_client(settings, lambda hs: _switch(settings, hs, generation, stores, force=force, wait_s=wait)):
        raise typer.Exit(EXIT_PENDING)


@app.command()
def gc(
    ctx: typer.Context, dry_run: Annotated[bool, typer.Option(help="Only list what would be removed")] = False
) -> None:
    """Remove store generations no reader is pointed at, and scratch left by an interrupted verify."""
    settings = existing_store(settings_from(ctx))
    current = location.current(settings)
    for store, path in current.items():
        console.print(f"current {store}: {path}")
    root = location.root(settings)
    if isinstance(root, str):  # object storage: listed, not removed
        left = generations.unused_remote(root, location.s3_options(settings))
        for uri, count, size in left:
            console.print(f"unused {uri}: {count} objects, {size / 1e6:.1f} MB")
        # Workers on other machines may still be moving off an old generation after a forced switch, and no
        # lock here can see them: deleting is the operator's, once every worker has started on the new one.
        console.print(
            f"{len(left)} unused store prefixes, not removed: on object storage delete them with the bucket's "
            "tools once every worker and serve runs on the current generation"
            if left
            else "nothing unused"
        )
        return
    unused = generations.unused(root)
    if dry_run or not unused:
        for path in unused:
            console.print(f"would remove {path}")
        if not unused:
            console.print("nothing unused")
        return
    lock = run_async(lambda: service_lock(settings, 0))
    try:
        if not lock.held:  # before a word of removing: nothing is
            err_console.print(
                f"[red]error:[/red] a service is running: stop it first (it may be moving off an old generation "
                f"after a forced switch); nothing removed, {len(unused)} unused (--dry-run lists them)"
            )
            raise typer.Exit(1)
        for path in unused:
            console.print(f"removing {path}")
        generations.remove(unused, root)
    finally:
        lock.release()


@app.command()
def verify(
    ctx: typer.Context,
    bank: Annotated[Optional[str], typer.Option(help="Only this bank")] = None,
    as_json: Json = False,
) -> None:
    """Rebuild into a scratch directory and compare per-bank content hashes, then the rankings of a few
    probe queries per bank, with the live stores.

    Exits 1 and names the first difference on a mismatch. Records the live stores have not projected
    yet are reported as lag, not as a difference.
    """
    from projections.replay import verify as verify_stores

    settings = existing_store(settings_from(ctx))

    async def work(hs: Hindsight) -> Verdict:
        if as_json:
            return await verify_stores(settings, hs.log, bank=bank, embedder=hs.embedder)
        with Bar("verify") as bar:
            return await verify_stores(settings, hs.log, bank=bank, progress=bar, embedder=hs.embedder)

    verdict = with_client(settings, work)
    if as_json:
        print(
            to_json(
                {
                    "ok": verdict.ok,
                    "difference": verdict.difference,
                    "behind": verdict.behind,
                    "damaged": verdict.damaged,
                    "checks": verdict.checks,
                    "rankings": verdict.rankings,
                    "rankings_skipped": verdict.rankings_skipped,
                }
            )
        )
    else:
        show_verdict(verdict)
    if not verdict.ok:
        err_console.print(f"[red]mismatch:[/red] {verdict.difference}")
        raise typer.Exit(1)
    if not as_json:
        console.print("[green]verified:[/green] the live projections equal a rebuild from the log")


# ------------------------------------------------------------------ audit


# The history commands (``replay_history``): audit, roll back and undo, state as of a time, export, import.
for _name, _command in (
    ("audit", replay_history.audit),
    ("rollback", replay_history.rollback),
    ("undo-rollback", replay_history.undo_rollback),
    ("state", replay_history.state),
    ("export", replay_history.export),
    ("import", replay_history.import_),
):
    app.command(_name)(_command)
# 0.1 called undoing a rollback `replay restore`, beside the `restore` of a memory: kept hidden for one release.
app.command("restore", hidden=True, deprecated=True)(replay_history.undo_rollback)
