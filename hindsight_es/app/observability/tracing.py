"""The OpenTelemetry tracer provider of a process, from ``Settings.traces`` (off by default).

``console`` writes each span as JSON to stderr, ``file:PATH`` as one JSON object per line to PATH (what
the tests read), ``otlp`` exports over OTLP/HTTP (``pip install 'hindsight-es[otlp]'``; the exporter
reads the standard ``OTEL_EXPORTER_OTLP_*`` variables). Spans are made in ``hindsight_es.observe``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from hindsight_es.config import Settings
from hindsight_es.errors import ConfigError


class _JsonLines:
    """A span exporter writing one JSON object per span, flushed per batch."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        for span in spans:
            self.out.write(json.dumps(json.loads(span.to_json()), separators=(",", ":")) + "\n")
        self.out.flush()
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        if self.out not in (sys.stdout, sys.stderr):
            self.out.close()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        self.out.flush()
        return True


def configure(settings: Settings, service: str = "hindsight") -> Any:
    """Install a tracer provider for ``settings.traces``; returns it (``shutdown()`` flushes), or None when off."""
    if settings.traces == "off":
        return None
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    if settings.traces == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise ConfigError("HINDSIGHT_TRACES=otlp needs the otlp extra: pip install 'hindsight-es[otlp]'") from exc
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        out: IO[str] = sys.stderr if settings.traces == "console" else open(settings.traces[5:], "a")  # noqa: SIM115
        provider.add_span_processor(SimpleSpanProcessor(_JsonLines(out)))  # type: ignore[arg-type]
    trace.set_tracer_provider(provider)
    return provider
