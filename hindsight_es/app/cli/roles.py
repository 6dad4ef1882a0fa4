"""``worker`` and ``serve``: the two roles of a scaled-out deployment (``up`` is both, on one machine).

``worker`` runs the actors and projections for the partitions its consumer groups assign it, and no
MCP server. ``serve`` is a stateless reader: MCP over HTTP (what ``up`` mounts) over the shared stores,
publishing turns and commands to the log, never joining an actor or projection group; run any number.
"""

from __future__ import annotations

import os
from typing import Any

import typer

from hindsight_es.app.cli.common import err_console, run_service, settings_from, warm_reads


def register(app: typer.Typer) -> None:
    app.command("worker")(worker)
    app.command("serve")(serve_readers)


async def _until_signalled(settings: Any, body: Any) -> None:
    """Run ``body(stop)`` with ``stop`` set on SIGINT/SIGTERM, under the tracer provider of
    ``settings.traces`` (a turn's trace crosses the worker's and the gateway's processes)."""
    import asyncio
    import signal

    from hindsight_es.app.observability import tracing

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    provider = tracing.configure(settings)
    try:
        await body(stop)
    finally:
        if provider is not None:
            provider.shutdown()


def worker(ctx: typer.Context) -> None:
    """Run the bank actor, the janitor and the projections for the partitions this process is assigned
    (Kafka consumer groups); no MCP. Start as many as there are partitions. Ctrl-C stops it cleanly."""
    from hindsight_es.app.observability import lag
    from hindsight_es.embedding import make_embedder
    from hindsight_es.errors import ConfigError, HindsightError
    from hindsight_es.log import open_log
    from streams.service import serve

    settings = settings_from(ctx)
    if not settings.broker:
        err_console.print(
            "[red]error:[/red] `worker` joins Kafka consumer groups: set HINDSIGHT_BROKER (or --broker); "
            "on the embedded log run `hindsight-es up`"
        )
        raise typer.Exit(2)

    async def body(stop: Any) -> None:
        log, embedder = open_log(settings), make_embedder(settings.embedder)
        await log.start()
        err_console.print(f"hindsight worker: {settings.broker}, stores in {settings.stores_uri or settings.data_dir}")
        extra = {"lag-sampler": lambda stop: lag.run(settings, log, stop)}
        try:
            await serve(settings, log, stop, embedder=embedder, extra=extra)
        except ConfigError:  # a setting that cannot be used (a metrics port taken): exit code 2, as it says
            raise
        except Exception as exc:
            reason = str(exc) if isinstance(exc, HindsightError) else repr(exc)
            raise HindsightError(f"the worker stopped after a failure: {reason}") from exc
        finally:
            await log.close()
        err_console.print("hindsight worker stopped cleanly")

    run_service(lambda: _until_signalled(settings, body))


def serve_readers(ctx: typer.Context) -> None:
    """Serve MCP over HTTP (and whatever `up` mounts) from the shared stores, publishing turns and
    commands to the log; joins no consumer group, so run as many replicas as needed (HINDSIGHT_READERS=N:
    this process and N-1 more on its port)."""
    from hindsight_es.app.gateway.http import http_task, url
    from hindsight_es.app.gateway.readers import answered_by, is_reader, readers_task, stop_when_orphaned
    from hindsight_es.client import Hindsight
    from hindsight_es.embedding import make_embedder
    from hindsight_es.health import watch
    from hindsight_es.log import open_log

    settings = settings_from(ctx)

    async def body(stop: Any) -> None:
        import asyncio

        log, embedder = open_log(settings), make_embedder(settings.embedder)
        hs = Hindsight(settings, log=log, embedder=embedder)
        # A port of its own is opened first, so a taken one fails before the models load; a shared one
        # (``readers``) last, as the kernel hands connections to every socket open on it.
        task = http_task(settings, hs) if settings.readers == 1 else None
        await log.start()
        await asyncio.to_thread(embedder.embed_query, "hindsight")  # models and indexes load before serving
        await warm_reads(hs)
        reader = is_reader()
        task = task or http_task(settings, hs, joining=reader)
        reading = settings.stores_uri or settings.data_dir
        if reader:
            err_console.print(
                f"hindsight serve: a reader of process {os.getppid()}, at {url(settings)}, reading {reading}"
            )
        else:
            err_console.print(f"hindsight serve: MCP at {url(settings)}, reading {reading}{answered_by(settings)}")
        orphaned = asyncio.create_task(stop_when_orphaned(stop))
        readers = [readers_task(settings)(stop)] if settings.readers > 1 and not reader else []
        if (reachable := getattr(log, "reachable", None)) is not None:  # /healthz follows the broker
            readers.append(watch("log", reachable, stop))
        try:
            await asyncio.gather(task(stop), *readers)
        finally:
            orphaned.cancel()
            await hs.close()
            await log.close()
        err_console.print("hindsight serve stopped cleanly")

    run_service(lambda: _until_signalled(settings, body))
