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


# Fuzzy expressions (seasons, holidays, parts of a period, open ranges, weekends, a day without a year).
# Written after recall.timespans, before running it on them; NOW is a Friday.
@pytest.mark.parametrize(
    "text, since, until",
    [
        ("What did we do last summer?", d(2023, 6), d(2023, 9)),
        ("the winter of 2021", d(2021, 12), d(2022, 3)),
        ("this spring", d(2023, 3), d(2023, 6)),
        ("in early March", d(2023, 3), d(2023, 3, 12)),
        ("late September 2023", d(2023, 9, 20), d(2023, 10)),
        ("since last Christmas", d(2022, 12, 23), d(2023, 10, 21)),
        ("before 2020", datetime(1900, 1, 1, tzinfo=UTC), d(2020, 1)),
        ("after March", d(2023, 4), d(2023, 10, 21)),
        ("between June and August 2023", d(2023, 6), d(2023, 9)),
        ("去年冬天", d(2022, 12), d(2023, 3)),
        ("今年暑假", d(2023, 7), d(2023, 9)),
        ("九月初", d(2023, 9), d(2023, 9, 11)),
        ("十月下旬", d(2023, 10, 20), d(2023, 11)),
        ("2022年以来", d(2022, 1), d(2023, 10, 21)),
        ("圣诞节之前", datetime(1900, 1, 1, tzinfo=UTC), d(2022, 12, 23)),
        ("the weekend before last", d(2023, 10, 6), d(2023, 10, 10)),
        ("last weekend", d(2023, 10, 13), d(2023, 10, 17)),
        ("on the 3rd of June", d(2023, 6, 2), d(2023, 6, 5)),
        ("Halloween", d(2022, 10, 29), d(2022, 11, 3)),
        ("towards the end of last year", d(2022, 8, 22), d(2023, 1)),
        ("上上周末", d(2023, 10, 6), d(2023, 10, 10)),
        ("mid-June", d(2023, 6, 10), d(2023, 6, 22)),
        ("How did I spend the autumn of 2022?", d(2022, 9), d(2022, 12)),
        ("从去年十月到今年三月我在学什么", d(2022, 10), d(2023, 4)),
        ("从五月到七月", d(2023, 5), d(2023, 8)),
    ],
)
def test_fuzzy_ranges(text, since, until):
    assert parse_time_range(text, NOW) == (since, until)


@pytest.mark.parametrize(
    "text", ["I fall asleep early", "she may 2 times a day", "我们从头开始吧", "the end of the story"]
)
def test_fuzzy_words_that_name_no_time(text):
    assert parse_time_range(text, NOW) is None


@pytest.mark.parametrize(
    "text",
    [
        "What are Caroline's plans for the summer?",
        "冬天柠檬树要怎么处理？",
        "When did she go to a parade during the summer?",
    ],
)
def test_a_season_alone_is_habitual_not_a_time_filter(text):
    assert parse_time_range(text, NOW) is None


def test_a_season_named_by_a_part_or_a_bound_is_the_latest_one():
    assert parse_time_range("towards the end of summer", NOW) == (d(2023, 7, 29), d(2023, 9))
    assert parse_time_range("since the summer", NOW) == (d(2023, 6), d(2023, 10, 21))
