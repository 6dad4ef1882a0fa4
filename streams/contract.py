"""The machine-readable contract of the topics: the AsyncAPI document of every subscriber and publisher
the workers run (FastStream generates it from the routers themselves), and one JSON Schema per event.

    python -m streams.contract docs        # writes docs/asyncapi.json and docs/schemas/<Event>.json

``tests/unit/test_contract.py`` fails when the committed files differ from what this writes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from faststream.specification import AsyncAPI

from hindsight_es.config import Settings
from hindsight_es.events import EVENT_TYPES
from hindsight_es.extraction import RuleExtractor
from streams.bank_actor import BankActor
from streams.extraction_actor import ExtractionActor
from streams.kafka import actor_router, extraction_router, make_broker
from streams.kafka_projections import projection_routers

TITLE = "hindsight"
VERSION = "1"


class _Unstarted:
    """A log that is never started: the routers are only read for their declarations here."""

    async def partitions(self, topic: str) -> int:
        raise RuntimeError("the contract is documented, not run")

    async def append(self, topic: str, key: str, values: Any) -> list[int]:
        raise RuntimeError("the contract is documented, not run")


def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3 document of the workers' routers (bank actor, extraction actor, projections)."""
    settings = Settings(broker="kafka:9092")
    log: Any = _Unstarted()
    broker = make_broker(settings)
    broker.include_router(actor_router(BankActor(log, RuleExtractor(), Any, settings), log, settings))  # type: ignore[arg-type]
    broker.include_router(extraction_router(ExtractionActor(log, Any, settings), settings, None))  # type: ignore[arg-type]
    for router in projection_routers(settings, None):
        broker.include_router(router)
    document = AsyncAPI(broker, title=TITLE, version=VERSION, description=__doc__.splitlines()[0])
    body: dict[str, Any] = json.loads(document.to_specification().to_json())
    return body


def schemas() -> dict[str, dict[str, Any]]:
    """Event type -> its JSON Schema (what a foreign producer may publish, what a consumer may read)."""
    return {name: model.model_json_schema() for name, model in sorted(EVENT_TYPES.items())}


def files() -> dict[str, str]:
    """Relative path under ``docs/`` -> its content."""
    out = {"asyncapi.json": json.dumps(asyncapi(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"}
    for name, schema in schemas().items():
        out[f"schemas/{name}.json"] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return out


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    for relative, text in files().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    print(f"wrote {len(files())} files under {root}")


if __name__ == "__main__":
    main()
