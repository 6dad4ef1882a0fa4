"""Observation points of the pipeline: latency histograms, consumer and projection positions, and traces.

Metrics (Prometheus, on the default registry, served at ``/metrics``):

    hindsight_operation_seconds{operation}     recall, context, retain_to_queryable (a retain with wait)
    hindsight_projection_lag_seconds{projection}  from a record's append to its projection's commit
    hindsight_consumer_lag{group, topic, partition}, hindsight_projection_position{projection, topic, partition},
    hindsight_dead_letters                      set by the service's sampler (``hindsight_es.app.observability``)

Traces (OpenTelemetry API; a no-op until a tracer provider is installed, ``HINDSIGHT_TRACES``): every span
about one input belongs to the trace whose id is the input's event id, so a turn is one trace from
``publish`` through ``bank-actor.decide`` (its memory events carry it as their cause) to each
``projection.*`` that applied them, across processes and restarts, without any header in the log.
A ``recall`` span links to the traces of the turns its hits came from.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any
from uuid import UUID

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, TraceFlags
from prometheus_client import Histogram

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
OPERATION_SECONDS = Histogram(
    "hindsight_operation_seconds", "Latency of a client operation", ["operation"], buckets=LATENCY_BUCKETS
)
PROJECTION_LAG = Histogram(
    "hindsight_projection_lag_seconds",
    "From a record's append to the log to its projection's commit",
    ["projection"],
    buckets=LATENCY_BUCKETS + (60.0, 300.0),
)
PROJECTION_MAINTENANCE = Histogram(
    "hindsight_projection_maintenance_seconds",
    "A projection's housekeeping pass (compaction, index refresh, a vector index retrain)",
    ["projection"],
    buckets=LATENCY_BUCKETS + (60.0, 300.0),
)
# (group or projection, topic, partition) -> the next offset it will read, as last reported in this process
CONSUMED: dict[tuple[str, str, int], int] = {}
_tracer = trace.get_tracer("hindsight")


def trace_id_of(event_id: UUID) -> int:
    return event_id.int or 1  # a trace id of zero is invalid


def root_of(event: Any) -> UUID:
    """The input an event belongs to: its cause (a memory event's input), else itself (an input)."""
    return event.causation_id or event.event_id  # type: ignore[no-any-return]


def _parent(root: UUID) -> Any:
    """A context whose (remote) parent is the root span of ``root``'s trace."""
    return trace.set_span_in_context(NonRecordingSpan(_root_span(root)))


def now_ns() -> int:
    return time.time_ns()


def spans_for(name: str, events: Iterable[Any], start_ns: int, **attributes: Any) -> None:
    """One span per input (events grouped by the input they belong to), over [start_ns, now]: a batch was
    worked on together, so each of its inputs took that long. Nothing to do until a tracer provider is
    installed (``HINDSIGHT_TRACES``): a rebuild would otherwise group every event of the log for no one."""
    if not tracing():
        return
    end = now_ns()
    groups: dict[UUID, list[Any]] = {}
    for event in events:
        if event is not None:
            groups.setdefault(root_of(event), []).append(event)
    for root, members in groups.items():
        span = _tracer.start_span(name, context=_parent(root), start_time=start_ns, attributes=attributes)
        span.set_attribute("hindsight.bank", str(members[0].bank_id))
        span.set_attribute("hindsight.events", [str(e.type) for e in members][:20])
        span.end(end_time=end)


def tracing() -> bool:
    """Whether spans are recorded: a tracer provider other than the API's default no-op one is installed."""
    return not isinstance(trace.get_tracer_provider(), (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


@contextlib.contextmanager
def input_span(name: str, event: Any, **attributes: Any) -> Iterator[Span]:
    """A span in the trace of ``event``'s input, around the block."""
    with _tracer.start_as_current_span(name, context=_parent(root_of(event)), attributes=attributes) as span:
        span.set_attribute("hindsight.bank", str(event.bank_id))
        yield span


@contextlib.contextmanager
def operation(name: str, **attributes: Any) -> Iterator[Span]:
    """Time an operation into ``hindsight_operation_seconds`` and trace it as a span of its own."""
    started = time.perf_counter()
    with _tracer.start_as_current_span(name, attributes=attributes) as span:
        try:
            yield span
        finally:
            OPERATION_SECONDS.labels(operation=name).observe(time.perf_counter() - started)


def link_origins(span: Span, turn_events: Sequence[UUID]) -> None:
    """Link a span (a recall) to the traces of the turns its results came from."""
    if not span.is_recording():
        return
    for event_id in list(dict.fromkeys(turn_events))[:32]:
        span.add_link(_root_span(event_id))


def _root_span(root: UUID) -> SpanContext:
    """The (never recorded) root span of an input's trace: trace id and span id both from its event id."""
    return SpanContext(trace_id_of(root), root.int & 0xFFFF_FFFF_FFFF_FFFF or 1, True, TraceFlags(TraceFlags.SAMPLED))


def consumed(reader: str, records: Iterable[Any]) -> None:
    """``reader`` (a consumer group or a projection) has read up to these records."""
    for record in records:
        key = (reader, record.topic, record.partition)
        if record.offset + 1 > CONSUMED.get(key, 0):
            CONSUMED[key] = record.offset + 1


def projected(projection: str, records: Sequence[Any]) -> None:
    """A projection committed these records: its position and each record's lag since its append."""
    consumed(projection, records)
    now_ms = time.time() * 1000
    lag = PROJECTION_LAG.labels(projection=projection)
    for record in records:
        lag.observe(max(0.0, (now_ms - record.timestamp_ms) / 1000))


__all__ = ["CONSUMED", "consumed", "input_span", "link_origins", "operation", "projected", "spans_for"]
