"""A broker address that does not work says why, naming it: a web server at the address (hindsight's own
HTTP port given as --broker) is told apart from a broker and from a port nobody listens on, at once, where
the Kafka client only waited for its time-out."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hindsight_es.config import Settings
from hindsight_es.errors import LogUnavailableError
from hindsight_es.log.kafka import KafkaLog
from hindsight_es.log.kafka_logs import quiet_kafka_logs
from hindsight_es.log.kafka_probe import probe, started


class _Quiet(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@contextlib.contextmanager
def serving_http() -> Iterator[str]:
    """An HTTP server on a free 127.0.0.1 port for the block; yields "127.0.0.1:port"."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def web_server() -> Iterator[str]:
    with serving_http() as address:
        yield address


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.kafka
async def test_the_probe_tells_a_broker_from_a_web_server_and_a_closed_port(kafka_broker: str, web_server: str):
    assert (await probe(kafka_broker)).kafka is True
    web = await probe(web_server)
    assert web.kafka is False and f"{web_server} answers HTTP" in web.reason and "--broker" in web.reason
    nobody = closed_port()
    closed = await probe(nobody)
    assert closed.kafka is None and f"nothing answers at {nobody}" in closed.reason


async def test_a_log_pointed_at_a_web_server_fails_at_once_naming_the_address(tmp_path: Path, web_server: str):
    settings = Settings(data_dir=tmp_path, broker=web_server, request_timeout_s=120.0)
    started = time.monotonic()
    with pytest.raises(LogUnavailableError) as refused:
        await KafkaLog(settings).start()
    assert time.monotonic() - started < 60  # not the 120 s time-out (slack for a loaded machine)
    message = str(refused.value)
    assert f"cannot reach the Kafka broker at '{web_server}'" in message and "answers HTTP" in message, message


async def test_a_failed_start_is_its_one_error_not_aiokafkas_lines_too(tmp_path: Path, caplog):
    nobody = closed_port()
    with caplog.at_level(logging.DEBUG, logger="aiokafka"), pytest.raises(LogUnavailableError) as refused:
        await KafkaLog(Settings(data_dir=tmp_path, broker=nobody, request_timeout_s=5.0)).start()
    assert f"cannot reach the Kafka broker at '{nobody}'" in str(refused.value)
    assert [r.getMessage() for r in caplog.records if r.name.startswith("aiokafka")] == []


async def test_a_start_that_succeeds_logs_what_aiokafka_said_meanwhile(caplog):
    quiet_kafka_logs()

    async def start() -> None:  # as a bootstrap server down beside one that answered
        logging.getLogger("aiokafka").error("Unable connect to %s", "10.0.0.9:9092")

    with caplog.at_level(logging.INFO, logger="aiokafka"):
        await started(start, closed_port(), 5.0)
        logging.getLogger("aiokafka").error("after the start, %s", "as it comes")
    said = [r.getMessage() for r in caplog.records]
    assert said == ["Unable connect to 10.0.0.9:9092", "after the start, as it comes"]
