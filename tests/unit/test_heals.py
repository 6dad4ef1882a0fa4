"""Which failures a service waits out (``health.heals``: ``streams.supervisor.supervised`` retries them) and which
stop it: a broker that does not answer heals, a log that lost records or a wrong setting does not."""

from __future__ import annotations

import pytest
from aiokafka.errors import (
    CommitFailedError,
    KafkaConnectionError,
    KafkaError,
    KafkaTimeoutError,
    NodeNotReadyError,
    RequestTimedOutError,
)

from hindsight_es.errors import ConfigError, HindsightError, LogError, LogFullError, LogUnavailableError
from hindsight_es.health import heals, unreachable
from hindsight_es.log.lost import LogLostError
from hindsight_es.log.sealed import MissingKeyError


def raised_from(exc: BaseException, cause: BaseException) -> BaseException:
    exc.__cause__ = cause
    return exc


@pytest.mark.parametrize(
    "exc",
    [
        KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 9092)]"),  # a consumer's start
        NodeNotReadyError("node 1 not ready"),
        RequestTimedOutError(),
        KafkaTimeoutError("Failed to get offsets by times in 10000 ms"),
        LogUnavailableError("append to hindsight.turns[0]: Kafka broker at 'k:9092' unavailable"),
        raised_from(HindsightError("the worker stopped"), raised_from(LogError("read"), KafkaConnectionError())),
        LogFullError("database or disk is full"),
    ],
)
def test_a_broker_that_does_not_answer_or_a_full_disk_heals(exc: BaseException) -> None:
    assert heals(exc)


@pytest.mark.parametrize(
    "exc",
    [
        LogLostError("hindsight.memories", 0, 40, 0, "the vectors projection"),
        MissingKeyError("unit u1", "ann", "keys.sqlite3"),  # type: ignore[arg-type]
        ConfigError("HINDSIGHT_PARTITIONS is 4, the topics have 2"),
        CommitFailedError("the group rebalanced"),
        KafkaError("Unexpected error during coordination"),
        ValueError("a bug"),
    ],
)
def test_a_lost_log_foreign_keys_wrong_settings_or_a_bug_do_not(exc: BaseException) -> None:
    assert not heals(exc)


def test_only_what_an_error_was_raised_from_counts() -> None:
    try:
        try:
            raise KafkaConnectionError("connection closed")
        except KafkaConnectionError:
            raise LogLostError("hindsight.turns", 1, 9, 0, "the archive") from None
    except LogLostError as caught:
        assert caught.__context__ is not None and not unreachable(caught)
    try:
        try:
            raise KafkaConnectionError("connection closed")
        except KafkaConnectionError:
            raise ValueError("a bug while handling it")  # noqa: B904
    except ValueError as caught:
        assert not heals(caught)
