"""A real HTTP server on 127.0.0.1 that speaks ``POST /v1/chat/completions`` with scripted answers.

Each request takes the next scripted ``Reply`` (or ``default`` when the script is empty) and is kept
in ``requests`` for assertions. Replies: a chat completion with some content, an HTTP status, or a
delay before answering (for time-outs).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = '{"memories": []}'
    finish_reason: str = "stop"
    status: int = 200
    delay_s: float = 0.0
    refusal: str | None = None
    usage: tuple[int, int] = (120, 30)
    body: bytes | None = None  # sent as is instead of a completion


def memories(*items: dict[str, Any]) -> Reply:
    return Reply(json.dumps({"memories": list(items)}, ensure_ascii=False))


@dataclass
class FakeOpenAI:
    script: deque[Reply] = field(default_factory=deque)
    default: Callable[[dict[str, Any]], Reply] = lambda request: Reply()
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    port: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def then(self, *replies: Reply) -> FakeOpenAI:
        self.script.extend(replies)
        return self

    def _next(self, request: dict[str, Any]) -> Reply:
        return self.script.popleft() if self.script else self.default(request)

    def start(self) -> tuple[ThreadingHTTPServer, threading.Thread]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(request)
                fake.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    self._send(404, b'{"error": "not found"}')
                    return
                with fake._lock:
                    reply = fake._next(request)
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    self._reply(request, reply)
                finally:
                    with fake._lock:
                        fake.in_flight -= 1

            def _reply(self, request: dict[str, Any], reply: Reply) -> None:
                if reply.status != 200:
                    self._send(reply.status, b'{"error": {"message": "scripted failure"}}')
                    return
                if reply.body is not None:
                    self._send(200, reply.body)
                    return
                message: dict[str, Any] = {"role": "assistant", "content": reply.content}
                if reply.refusal is not None:
                    message["refusal"] = reply.refusal
                completion = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": request.get("model"),
                    "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
                    "usage": {
                        "prompt_tokens": reply.usage[0],
                        "completion_tokens": reply.usage[1],
                        "total_tokens": sum(reply.usage),
                    },
                }
                self._send(200, json.dumps(completion, ensure_ascii=False).encode())

            def _send(self, status: int, body: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a time-out test)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="fake-openai", daemon=True)
        thread.start()
        return server, thread
