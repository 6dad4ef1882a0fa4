"""``python -m hindsight_es.app.gateway.openapi``: print the HTTP API's OpenAPI document (what ``/openapi.json``
serves), e.g. to regenerate the TypeScript client's types (``clients/typescript/openapi.json``)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any


def document() -> dict[str, Any]:
    from hindsight_es.app.gateway.app import build_app
    from hindsight_es.client import Hindsight
    from hindsight_es.config import Settings

    # A client on a scratch directory (its key store creates a file there), removed with what it holds.
    with tempfile.TemporaryDirectory(prefix="hindsight-openapi-") as scratch:
        settings = Settings(data_dir=Path(scratch))
        return build_app(Hindsight(settings), settings).openapi()


if __name__ == "__main__":
    sys.stdout.write(json.dumps(document(), indent=2, ensure_ascii=False) + "\n")
