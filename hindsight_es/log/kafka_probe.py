"""Why a broker address does not work: one Kafka request, read raw, tells what answers there.

aiokafka reports a port that is not Kafka's as a time-out: it waits for a length-prefixed answer that
never comes (a web server waits for the end of a request line first). ``started`` runs the log's start
beside ``probe``, which sends one ApiVersions request (v0: answered by every broker, before any
authentication) and reads the first bytes back. An address where every server answers, but not in
Kafka's protocol (HTTP, a TLS listener, a banner), fails at once with what answered; otherwise the
start's own error says which address, and what the probe found there.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from hindsight_es.errors import LogUnavailableError
from hindsight_es.log.kafka_logs import held_back

__all__ = ["Verdict", "probe", "started"]

PROBE_S = 2.0  # how long one server has to answer the probe
# The correlation id's bytes are "\r\n\r\n": a web server reading the request as text sees a whole (bad)
# request and answers 400 at once, instead of waiting for a line that never ends.
_CORRELATION = 0x0D0A0D0A
_CLIENT = b"hindsight-probe"
_API_VERSIONS = struct.pack(">hhih", 18, 0, _CORRELATION, len(_CLIENT)) + _CLIENT
REQUEST = struct.pack(">i", len(_API_VERSIONS)) + _API_VERSIONS
USAGE = "--broker and HINDSIGHT_BROKER take the Kafka bootstrap servers, host:port[,host:port] (Kafka's port is 9092)"


@dataclass(frozen=True, slots=True)
class Verdict:
    server: str
    kafka: bool | None  # True: a Kafka broker answered; False: something else did; None: nothing answered
    reason: str


async def probe(server: str, timeout_s: float = PROBE_S) -> Verdict:
    """Connect to ``server`` (host:port), send one ApiVersions request and read what comes back."""
    host, _, port = server.strip().rpartition(":")
    if not host or not port.isdigit():
        return Verdict(server, False, f"{server!r} is not host:port")
    writer = None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection(host.strip("[]"), int(port))
            writer.write(REQUEST)
            await writer.drain()
            head = await reader.read(8)
    except TimeoutError:
        if writer is None:
            return Verdict(
                server, None, f"no connection to {server} within {timeout_s:g}s (a firewall, or a host down)"
            )
        return Verdict(
            server, None, f"{server} accepts connections but sent no answer within {timeout_s:g}s (a frozen broker?)"
        )
    except OSError as exc:
        return Verdict(server, None, f"nothing answers at {server} ({exc.strerror or exc}): is a broker running there?")
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
    return judged(server, head)


def judged(server: str, head: bytes) -> Verdict:
    """What the first bytes of the answer to ``REQUEST`` say about ``server``."""
    if len(head) == 8:
        size, correlation = struct.unpack(">ii", head)
        if correlation == _CORRELATION and 0 < size < 1 << 20:
            return Verdict(server, True, f"a Kafka broker answers at {server}")
    if not head:
        reason = "closed the connection without an answer (not a Kafka port, or a TLS or SASL-only listener)"
    elif head.startswith((b"HTTP/", b"<")):  # a status line, or an HTML error page (an HTTP/0.9 answer)
        reason = f"answers HTTP ({head!r}…), not Kafka: an HTTP port (hindsight's own, an object store's, a proxy's)?"
    elif head[:1] in (b"\x15", b"\x16"):
        reason = "answers TLS: a TLS listener, which hindsight does not speak"
    else:
        reason = f"answers, but not in the Kafka protocol (its first bytes: {head!r})"
    return Verdict(server, False, f"{server} {reason} {USAGE}")


async def started(start: Callable[[], Awaitable[None]], servers: str, timeout_s: float) -> None:
    """Await ``start`` (the Kafka clients', which must clean up when cancelled) under ``timeout_s``, beside
    a probe of every bootstrap server. Raises ``LogUnavailableError`` naming the servers and the likely
    cause: at once when every server answers something other than Kafka, else when ``start`` fails. What
    aiokafka logs meanwhile is held back (``kafka_logs.held_back``): the error is the one line said."""
    with held_back():  # aiokafka's lines would repeat the one error raised here
        await _started(start, servers, timeout_s)


async def _started(start: Callable[[], Awaitable[None]], servers: str, timeout_s: float) -> None:
    names = [s.strip() for s in servers.split(",") if s.strip()]
    starting: asyncio.Future[None] = asyncio.ensure_future(start())
    probing: asyncio.Future[list[Verdict]] = asyncio.ensure_future(_probe_all(names, min(PROBE_S, timeout_s)))
    try:
        try:
            async with asyncio.timeout(timeout_s):
                either: list[asyncio.Future[Any]] = [starting, probing]
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                if not starting.done() and all(v.kafka is False for v in probing.result()):
                    raise LogUnavailableError(_message(servers, "", probing.result()))
                await starting
        except LogUnavailableError:
            raise
        except Exception as exc:  # a time-out, a refused connection, aiokafka's KafkaError
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(probing), PROBE_S)
            found = probing.result() if probing.done() and not probing.cancelled() else []
            what = f"no answer within {timeout_s:g}s" if isinstance(exc, TimeoutError) else repr(exc)
            raise LogUnavailableError(_message(servers, what, found)) from exc
    finally:
        for task in (starting, probing):
            task.cancel()
        await asyncio.gather(starting, probing, return_exceptions=True)


async def _probe_all(servers: list[str], timeout_s: float) -> list[Verdict]:
    return list(await asyncio.gather(*(probe(s, timeout_s) for s in servers)))


def _message(servers: str, what: str, verdicts: list[Verdict]) -> str:
    """One line: the address, what went wrong, and what answers there (when that is not a broker)."""
    found = "; ".join(v.reason for v in verdicts if v.kafka is not True)
    if not found and verdicts:  # a broker answers, yet its clients did not start
        found = "a Kafka broker answers there, but the addresses it advertises may not be reachable from here"
    return f"cannot reach the Kafka broker at {servers!r}: " + "; ".join(part for part in (what, found) if part)
