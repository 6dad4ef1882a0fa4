"""A call that asks the server to wait is given that long to answer: the client does not give up at its own
time-out and send it again (an erase sent again found nothing left to erase and said so)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from uuid import uuid4

import pytest

from hindsight_es.client.outcome import await_outcome, memory_partition_end
from hindsight_es.config import TOPIC_MEMORIES
from hindsight_es.errors import StoreError
from hindsight_es.events import MemoryForgotten, encode
from hindsight_es.log.embedded import EmbeddedLog
from hindsight_es.remote import HindsightClient
from hindsight_es.remote.errors import UnavailableError

SLOW_S = 1.5  # the server's answer takes this long; the client's own time-out is shorter


class Slow(BaseHTTPRequestHandler):
    posts: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        Slow.posts.append(self.path)
        time.sleep(SLOW_S)
        body = (
            b'{"bank_id": "b", "request_id": "r1", "units": ["turn:t1"], "memory_ids": [], "turn_ids": ["t1"],'
            b' "erased_at": "2026-12-02T10:00:00+00:00", "ready": true}'
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def slow_server() -> Iterator[str]:
    Slow.posts = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def test_an_erase_that_asks_the_server_to_wait_is_sent_once_and_answered(slow_server: str) -> None:
    with HindsightClient(slow_server, "t" * 20, timeout_s=0.5, backoff_s=0.01) as hs:
        done = hs.operator.erase("b", "asked", session_id="s1", timeout_s=5)
    assert done.turn_ids == ["t1"] and Slow.posts == ["/v1/banks/b/erase"]


def test_a_call_that_asks_no_wait_keeps_the_clients_time_out(slow_server: str) -> None:
    with (
        HindsightClient(slow_server, "t" * 20, timeout_s=0.5, retries=0) as hs,
        pytest.raises(UnavailableError, match="cannot reach"),
    ):
        hs.operator.erase("b", "asked", session_id="s1", wait=False)


async def test_a_store_read_that_fails_while_waiting_is_not_yet_and_the_outcome_still_comes(tmp_path: Path) -> None:
    """Once an input is recorded (an erase has destroyed its keys), a failed position read must not fail the
    call: the client would send it again and the second erase would find nothing left (seen: an erase over
    HTTP answered 503 while the projection dropped its table's old versions, was sent again, and reported no
    units). The wait goes on; only a store that stays down reaches the deadline, with ``ready=False``."""
    log = EmbeddedLog(tmp_path / "log.sqlite3", 1)
    await log.start()
    try:
        cause = uuid4()
        partition, start = await memory_partition_end(log, "b")
        event = MemoryForgotten(bank_id="b", causation_id=cause, memory_id=uuid4())
        await log.append(TOPIC_MEMORIES, "b", [encode(event)])
        calls: list[int] = []

        async def flaky(part: int, last: int) -> bool:
            calls.append(last)
            if len(calls) < 3:
                raise StoreError("store read failed: LanceError(IO): Not found: data/x.lance")
            return True

        done = await await_outcome(log, cause, partition, start, time.monotonic() + 10, flaky)
        assert done.ready and [e.event_id for e in done.events] == [event.event_id] and len(calls) == 3

        async def down(part: int, last: int) -> bool:
            raise StoreError("store read failed: disk gone")

        late = await await_outcome(log, cause, partition, start, time.monotonic() + 0.2, down)
        assert not late.ready and [e.event_id for e in late.events] == [event.event_id]
    finally:
        await log.close()
