"""The stores: LanceDB (hot), DuckDB/Parquet (archive), snapshots.

Importing ``lancedb`` imports its REST-namespace client (``lance_namespace_urllib3_client``), whose several
hundred ``validate_call`` methods and models build their pydantic validators at import: about 1.1 s of
a 1.45 s import on this machine, paid by every process start (each CLI command, each worker) for a
client this service never calls. The package is imported here once with pydantic's ``defer_build`` on,
so those validators are built on first use instead (which here is never). Only the default is changed,
and only for the duration of this import; a model or call that sets its own config is unaffected. If
pydantic's private config table moves, the import simply runs at its normal cost. On Python < 3.12
LanceDB marks its overriding methods with the ``overrides`` package's decorator, which checks each
signature against the base class's by disassembling the caller (105 methods, 0.25-0.6 s of every start
here); on 3.12+ it uses ``typing.override``, a marker. For this import the decorator is that marker
(``typing_extensions.override``), as on 3.12; ``overrides`` is left as it was afterwards.

LanceDB's own (Rust) log is set to errors only unless ``LANCEDB_LOG`` is set, and so is the log of the Lance
that routine compaction calls (``pylance``, ``LANCE_LOG``): at their default level every maintenance pass
under steady ingest printed dozens of "partition N is empty, skipping" warnings from the delta index builds
(117-238 lines a minute in ``up``'s output at 20 turns/s; 386 in 50 s from pylance's), which no operator
acts on. ``LANCEDB_LOG=warn`` / ``LANCE_LOG=warn`` show them again, with the object-store retry warnings.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def _import_lancedb_deferring_schemas() -> None:
    os.environ.setdefault("LANCE_LOG", "error")  # read when pylance's native module loads (on first use)
    if "lancedb" in sys.modules:
        return
    os.environ.setdefault("LANCEDB_LOG", "error")  # read when LanceDB's native module loads
    try:
        from pydantic._internal import _config
    except ImportError:  # pragma: no cover - pydantic's private layout moved: import at full cost
        return
    defaults = getattr(_config, "config_defaults", None)
    if not isinstance(defaults, dict) or "defer_build" not in defaults:  # pragma: no cover
        return
    before = defaults["defer_build"]
    defaults["defer_build"] = True
    marker = _override_as_a_marker()
    try:
        import lancedb  # noqa: F401
    finally:
        defaults["defer_build"] = before
        marker()


def _override_as_a_marker() -> Callable[[], None]:
    """Make ``overrides.override`` Python 3.12's marker until the returned undo is called."""
    try:
        import overrides
        from typing_extensions import override
    except ImportError:  # pragma: no cover - not installed (Python 3.12+ LanceDB does not need it)
        return lambda: None
    saved = overrides.override, overrides.overrides
    overrides.override = overrides.overrides = override  # type: ignore[assignment]

    def undo() -> None:
        overrides.override, overrides.overrides = saved

    return undo


_import_lancedb_deferring_schemas()
