"""Time expressions in both languages become calendar ranges relative to the query time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight_es.recall.timeparse import parse_time_range

NOW = datetime(2023, 10, 20, 15, 0, tzinfo=UTC)  # a Friday


def d(y, m, day=1):
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    "text, since, until",
    [
        ("What happened in October 2023?", d(2023, 10), d(2023, 11)),
        ("What did she paint on October 13, 2023?", d(2023, 10, 12), d(2023, 10, 15)),
        ("on 8 May, 2023", d(2023, 5, 7), d(2023, 5, 10)),
        ("what did I do yesterday", d(2023, 10, 19), d(2023, 10, 20)),
        ("3 days ago", d(2023, 10, 16), d(2023, 10, 19)),
        ("two months ago", d(2023, 8), d(2023, 9)),
        ("last week", d(2023, 10, 9), d(2023, 10, 16)),
        ("last month", d(2023, 9), d(2023, 10)),
        ("last year", d(2022, 1), d(2023, 1)),
        ("in 2022", d(2022, 1), d(2023, 1)),
        ("in May", d(2023, 5), d(2023, 6)),
        ("in December", d(2022, 12), d(2023, 1)),
        ("昨天我吃了什么", d(2023, 10, 19), d(2023, 10, 20)),
        ("三天前", d(2023, 10, 16), d(2023, 10, 19)),
        ("上周去哪了", d(2023, 10, 9), d(2023, 10, 16)),
        ("上个月", d(2023, 9), d(2023, 10)),
        ("去年五月", d(2022, 5), d(2022, 6)),
        ("2023年5月8日", d(2023, 5, 7), d(2023, 5, 10)),
        ("2022年3月", d(2022, 3), d(2022, 4)),
        ("五月份", d(2023, 5), d(2023, 6)),
        ("去年", d(2022, 1), d(2023, 1)),
    ],
)
def test_ranges(text, since, until):
    assert parse_time_range(text, NOW) == (since, until)


@pytest.mark.parametrize(
    "text", ["What is Caroline's favorite color?", "我喜欢吃什么？", "may I ask", "the 1990s band", "我有三个孩子"]
)
def test_no_time(text):
    assert parse_time_range(text, NOW) is None
