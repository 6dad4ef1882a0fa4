"""Prometheus metrics of the service and structured log lines of the memory lifecycle.

``hindsight_memories{bank, state}`` is read from the bank actor's state at scrape time (the fold of the
memory log, so exact): ``hot`` (in the LanceDB hot table), ``archived`` (in the cold archive),
``active``, ``forgotten``, ``quarantined``, ``superseded``, ``retracted``. Counters count the memory
events the actor appended by type, and the janitor's ticks. Served at ``/metrics`` by ``up``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter as Tally
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client import REGISTRY, Counter, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from hindsight_es.errors import ConfigError
from hindsight_es.events import Event
from hindsight_es.health import HEALTH
from hindsight_es.memory.lazy import LazyMap
from hindsight_es.memory.state import BankState
from hindsight_es.text import plural

log_ = logging.getLogger("hindsight.lifecycle")

STATES = ("hot", "archived", "active", "forgotten", "quarantined", "superseded", "retracted")
MEMORY_EVENTS = Counter("hindsight_memory_events", "Memory events appended by the bank actor", ["type"])
JANITOR_TICKS = Counter("hindsight_janitor_ticks", "Janitor ticks published", ["reason"])
RECALLS_RECORDED = Counter("hindsight_recalls_recorded", "Served recalls published as RecallServed")
#: The decisions an operator looks for in the log, one line per bank and batch (retaining and superseding are
#: the bank's ordinary flow, counted in metrics only): how one and many are said. The JSON log's fields are
#: the second, spaces as underscores.
_LIFECYCLE = {
    "MemoryArchived": ("archived", "archived"),
    "MemoryRestored": ("restored", "restored"),
    "MemoryForgotten": ("forgotten", "forgotten"),
    "MemoryPromoted": ("promoted", "promoted"),
    "MemoryQuarantined": ("quarantined", "quarantined"),
    "MemoryReleased": ("released", "released"),
    "MemoryDisputed": ("disputed", "disputed"),
    "DisputeResolved": ("dispute resolved", "disputes resolved"),
    "SourceRetracted": ("rollback", "rollbacks"),
    "ContentErased": ("erased", "erased"),
    "BankOwnersSet": ("owners set", "owners set"),
    "CommandIgnored": ("command ignored", "commands ignored"),
}


def counts(state: BankState) -> dict[str, int]:
    """Memories of a bank per state (``hot`` and ``archived`` by where they live, the rest by status). A bank
    read from a snapshot is counted from its stored columns: a scrape never decodes its memories."""
    lazy = state.memories if isinstance(state.memories, LazyMap) else None
    statuses = lazy.tally("status", lambda m: m.status) if lazy is not None else None
    colds = lazy.tally("cold", lambda m: m.cold) if lazy is not None else None
    if statuses is not None and colds is not None:
        tally: Tally[str] = Tally(statuses)
        cold = colds.get(True, 0)
    else:
        tally = Tally(m.status for m in state.memories.values())
        cold = sum(1 for m in state.memories.values() if m.cold)
    out = {s: tally.get(s, 0) for s in STATES if s not in ("hot",)}
    out["hot"] = len(state.memories) - cold
    out["archived"] = cold
    return out


def observe(bank_id: str, events: Sequence[Event]) -> None:
    """Count appended memory events; one structured log line per lifecycle change of a batch."""
    by_type = Tally(e.type for e in events)
    for kind, n in by_type.items():
        MEMORY_EVENTS.labels(type=kind).inc(n)
    changed = {_LIFECYCLE[k]: n for k, n in by_type.items() if k in _LIFECYCLE}
    if changed:
        causes = sorted({str(e.causation_id) for e in events if e.type in _LIFECYCLE})
        log_.info(
            "bank %s: %s",
            bank_id,
            ", ".join(plural(n, *said) for said, n in sorted(changed.items(), key=lambda item: item[0][1])),
            extra={"bank": bank_id, **{m.replace(" ", "_"): n for (_, m), n in changed.items()}, "causes": causes[:10]},
        )


class BankCollector(Collector):
    """``hindsight_memories{bank, state}`` from the actor's bank states, computed at scrape time."""

    def __init__(self, banks: Callable[[], Mapping[str, BankState]]) -> None:
        self.banks = banks

    def collect(self) -> Iterator[Any]:
        family = GaugeMetricFamily("hindsight_memories", "Memories per bank and state", labels=["bank", "state"])
        for bank_id, state in sorted(dict(self.banks()).items()):
            for name, n in counts(state).items():
                family.add_metric([bank_id, name], n)
        yield family


def register(banks: Callable[[], Mapping[str, BankState]]) -> Callable[[], None]:
    """Expose the bank states on the default registry; returns the call that withdraws them. A second
    service in the same process (tests) is not exposed: the first one's banks are."""
    collector = BankCollector(banks)
    try:
        REGISTRY.register(collector)
    except ValueError:
        log_.warning("another service of this process already exposes hindsight_memories")
        return lambda: None
    return lambda: REGISTRY.unregister(collector)


def exposition() -> bytes:
    """The text exposition format of every registered metric."""
    return generate_latest(REGISTRY)


async def listen(port: int, host: str = "127.0.0.1") -> asyncio.Server:
    """The listener ``serve_http`` answers on, opened before the service starts anything: a port that is
    taken is a ``ConfigError`` (exit code 2) before a worker joins a consumer group, not a failure after."""
    try:
        return await asyncio.start_server(_answer, host, port)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve /metrics and /healthz on {host}:{port}: {exc.strerror or exc} (HINDSIGHT_METRICS_PORT)"
        ) from None


async def serve_http(server: asyncio.Server, stop: asyncio.Event) -> None:
    """A bare ``/metrics`` endpoint (for a service without the MCP HTTP server), and ``/healthz`` (200
    ``ok``, 503 ``degraded`` with the reasons), for a container's health check, on ``listen``'s server."""
    async with server:
        await stop.wait()


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request = await asyncio.wait_for(reader.readline(), 5.0)
        path = request.split(b" ")[1:2]
        status, health = HEALTH.report()
        if path == [b"/metrics"]:
            head, body = b"HTTP/1.1 200 OK", exposition()
        elif path == [b"/healthz"]:
            head, body = (
                b"HTTP/1.1 200 OK" if status == 200 else b"HTTP/1.1 503 Service Unavailable",
                health.encode(),
            )
        else:
            head, body = b"HTTP/1.1 404 Not Found", b"not found\n"
        writer.write(
            head
            + b"\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\nConnection: close\r\n\r\n"
            + body
        )
        await writer.drain()
    except (TimeoutError, ConnectionError, IndexError):
        pass
    finally:
        writer.close()
