"""The HTTP port with readers (``HINDSIGHT_READERS`` above 1, one per core by default): `up` and its readers share
it through SO_REUSEPORT, and nothing else may, so a second `up` on the same port is refused as it would be
without readers, instead of silently taking half of the first one's connections."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight_es.app.gateway.http import listen
from hindsight_es.config import MAX_DEFAULT_READERS, Settings
from hindsight_es.errors import ConfigError
from tests.e2e.served import free_port


def test_a_port_held_by_readers_is_refused_to_another_starter_and_open_to_its_readers(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, mcp_port=free_port(), readers=2)
    with listen(settings) as first:
        with pytest.raises(ConfigError, match=f"cannot serve MCP on 127.0.0.1:{settings.mcp_port}"):
            listen(settings)  # another `up` with readers: it would share the port, so it is refused
        with pytest.raises(ConfigError, match="HINDSIGHT_MCP_PORT"):
            listen(Settings(data_dir=tmp_path, mcp_port=settings.mcp_port, readers=1))
        with listen(settings, joining=True) as reader:  # a reader of the first
            assert reader.getsockname() == first.getsockname()


@pytest.mark.parametrize("cores", [1, 2])
def test_the_default_is_a_reader_per_core_the_process_may_run_on(cores: int) -> None:
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) < cores:
        pytest.skip(f"this machine lets the tests run on {len(usable)} core(s)")
    script = (
        f"import os; os.sched_setaffinity(0, {set(usable[:cores])!r});"
        "from hindsight_es.config import Settings; print(Settings().readers)"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert run.stdout.strip() == str(min(cores, MAX_DEFAULT_READERS))


def test_readers_set_are_kept(tmp_path: Path) -> None:
    assert Settings(data_dir=tmp_path, readers=3).readers == 3
    with pytest.raises(ValueError, match="readers"):
        Settings(data_dir=tmp_path, readers=0)
