"""``hindsight_es.stores`` imports LanceDB with pydantic's schema builds deferred (its unused REST client
costs about a second of every process start otherwise); the deferral must not leak past that import."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import hindsight_es.stores
from pydantic import BaseModel
from pydantic._internal import _config

class After(BaseModel):
    x: int

from lance_namespace_urllib3_client.models.describe_table_request import DescribeTableRequest as Describe

print(_config.config_defaults["defer_build"], After.__pydantic_complete__, Describe.__pydantic_complete__)
print(",".join(Describe.from_dict({"id": ["ns", "t"]}).id), Describe.__pydantic_complete__)
try:
    Describe.from_dict({"id": "not-a-list", "version": "x"})
except Exception as e:
    print(type(e).__name__)
"""


def test_lancedb_logs_only_errors_unless_the_operator_asks() -> None:
    probe = "import os, hindsight_es.stores; print(os.environ['LANCEDB_LOG'])"
    env = {k: v for k, v in os.environ.items() if k != "LANCEDB_LOG"}
    quiet = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env)
    asked = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env={**env, "LANCEDB_LOG": "warn"}
    )
    assert (quiet.stdout.strip(), asked.stdout.strip()) == ("error", "warn")


def test_lancedb_is_imported_with_deferred_schemas_that_still_validate_on_use() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout.split()
    # the default is restored; a model defined afterwards is built at once; LanceDB's were deferred
    assert out[:3] == ["False", "True", "False"]
    # a deferred model builds on first use and validates as usual
    assert out[3:] == ["ns,t", "True", "ValidationError"]


def test_overrides_is_a_marker_only_while_lancedb_imports() -> None:
    """LanceDB's classes get 3.12's ``typing.override`` marker; ``overrides`` is itself again afterwards."""
    probe = (
        "import hindsight_es.stores, overrides, lancedb.db, lancedb.remote.db\n"
        "print(overrides.override.__module__, lancedb.db.override.__module__, lancedb.remote.db.override.__module__)\n"
        "print(lancedb.db.LanceDBConnection.open_table.__override__)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    if sys.version_info >= (3, 12):  # LanceDB uses typing.override itself there
        return
    assert out == ["overrides.overrides", "typing_extensions", "typing_extensions", "True"]
