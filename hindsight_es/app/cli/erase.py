"""``erase --bank B (--session S | --turn T | --memory M) --reason R``: erase content for good.

Thin: the work is in ``hindsight_es.app.erasure`` (the same for the HTTP route and the MCP tool).
"""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer

from hindsight_es.app.cli.common import fail, run_async, settings_from
from hindsight_es.remote.erasure import EraseResult

Opt = Optional[str]


def erase(
    ctx: typer.Context,
    bank: Annotated[str, typer.Option("--bank", help="The bank")],
    reason: Annotated[str, typer.Option(help="Why (kept: the fact of the erasure, never the content)")],
    session: Annotated[Opt, typer.Option("--session", help="Erase a whole session (conversation)")] = None,
    turn: Annotated[Opt, typer.Option("--turn", help="Erase one turn and the memories from it")] = None,
    memory: Annotated[Opt, typer.Option("--memory", help="Erase one memory")] = None,
    by: Annotated[str, typer.Option("--by", help="Who erases (recorded as the event's actor)")] = "operator",
    timeout: Annotated[float, typer.Option(help="Seconds to wait for a running service's bank actor")] = 30.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Erase a session, a turn or a memory for good: keys destroyed, rows dropped, placeholders in the log."""
    from hindsight_es.app.erasure import NOT_SEALED, check
    from hindsight_es.app.erasure import erase as erase_for_good
    from hindsight_es.client import Hindsight
    from hindsight_es.errors import InvalidInputError

    try:
        check(session, turn, memory, reason)
    except InvalidInputError as exc:
        raise fail(str(exc).replace("session, turn, memory", "--session, --turn, --memory"), 2) from None
    settings = settings_from(ctx)
    if not settings.seal_content or settings.keys_path is None:
        raise fail(NOT_SEALED, 2)

    async def go() -> EraseResult:
        async with Hindsight(settings) as hs:
            return await erase_for_good(
                hs, bank, session=session, turn=turn, memory=memory, reason=reason, by=by, wait=timeout
            )

    found = run_async(go)
    if as_json:
        print(json.dumps(found.model_dump(exclude_none=True), ensure_ascii=False))
        return
    print(
        f"erased {len(found.units)} keys: {len(found.memory_ids)} memories, {len(found.turn_ids)} turns "
        f"({found.hot_rows} hot rows, {found.turn_rows} turn rows, {found.archive_files} archive files "
        f"rewritten, {found.snapshots} snapshots and {found.generations} old generations dropped)"
        + (f"; {found.note}" if found.note else "")
    )


def register(app: typer.Typer) -> None:
    app.command("erase")(erase)


__all__ = ["register"]
