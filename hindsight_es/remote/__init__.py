"""Remote clients of the HTTP API: ``HindsightClient`` (sync) and ``AsyncHindsightClient`` (asyncio), over httpx.

They load no store, log or model (an import-linter contract checks it): a service anywhere can use them
against a running ``hindsight-es up``. Results are the models of ``hindsight_es.remote.models``, the same
the MCP tools return.
"""

from hindsight_es.remote.aio import AsyncHindsightClient
from hindsight_es.remote.client import HindsightClient
from hindsight_es.remote.errors import ApiError

__all__ = ["ApiError", "AsyncHindsightClient", "HindsightClient"]
