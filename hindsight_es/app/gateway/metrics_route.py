"""``/metrics``: the Prometheus text exposition, scoped to the caller's banks.

With tokens configured a valid bearer token is required; a token for some banks sees every metric
but only the samples labelled with its own banks (``bank``/``bank_id``), as ``list_banks`` shows it
only those; a ``"*"`` token (an operator's) sees everything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response

from hindsight_es.app.gateway.auth import Access, BankTokens

BANK_LABELS = ("bank", "bank_id")


class ScopedRegistry(Collector):
    """The default registry's metrics without the samples of banks outside ``banks``."""

    def __init__(self, banks: frozenset[str]) -> None:
        self.banks = banks

    def collect(self) -> Iterator[Metric]:
        for family in REGISTRY.collect():
            scoped = Metric(family.name, family.documentation, family.type, family.unit)
            scoped.samples = [s for s in family.samples if self._allows(s.labels)]
            yield scoped

    def _allows(self, labels: dict[str, str]) -> bool:
        return all(labels[name] in self.banks for name in BANK_LABELS if name in labels)


def metrics_endpoint(tokens: BankTokens | None) -> Callable[[Request], Awaitable[Response]]:
    """Prometheus text exposition of every registered metric (the service registers the bank counts)."""

    async def metrics(request: Request) -> Response:
        registry: Collector = REGISTRY
        if tokens is not None:
            scheme, _, token = request.headers.get("authorization", "").partition(" ")
            found = await tokens.verify_token(token.strip()) if scheme.lower() == "bearer" else None
            if found is None:
                return Response("unauthorized\n", status_code=401, headers={"WWW-Authenticate": "Bearer"})
            access = Access.of_token(found)
            if access.banks is not None:
                registry = ScopedRegistry(access.banks)
        body = await asyncio.to_thread(generate_latest, registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return metrics
