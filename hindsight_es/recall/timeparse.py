"""Time expressions in English and Chinese -> a [since, until) range, relative to the query time.

Covers what people say when they ask a memory: "yesterday", "3 days ago", "last week/month/year",
"in May 2023", "on 8 May 2023", "May 8, 2023", "in 2022", "昨天", "三天前", "上周", "上个月", "去年五月",
"2023年5月8日", "五月"; and the fuzzy ones: seasons ("last summer", "去年夏天"), parts of a period ("mid-August
2023", "towards the end of summer", "late 2022", "上个月中旬", "年底"), open ranges ("since June", "before
July 2023", "between May and July", "五月以来"), weekends ("two weekends ago"), "the week before last",
holidays with a fixed date ("last Christmas", "国庆"), and a day without a year ("on Sept 5", "5月8日").
Ranges are whole calendar units, a part of one with a few days' slack, or a day with a day either side; a
month, season, holiday or day without a year is its latest past occurrence. Returns None when the text
names no time.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from hindsight_es.recall.timespans import ZH_YEARS, Range, bounded, months, named_period, part
from hindsight_es.recall.timespans import day as _day
from hindsight_es.recall.timespans import with_tz as _with_tz
from hindsight_es.text import MONTH_NAMES

_MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        start=1,
    )
}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_WORD_NUM = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_ZH_NUM = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
    "几": 3,
}


def _month(year: int, month: int) -> Range:
    return months(year, month, 1)


def _week(today: datetime, back: int) -> Range:
    """The Monday-to-Monday week ``back`` weeks before this one (0: this week)."""
    monday = today - timedelta(days=today.weekday() + 7 * back)
    return monday, monday + timedelta(days=7)


def _num(token: str) -> int:
    token = token.strip().lower()
    if token.isdigit():
        return int(token)
    if len(token) > 1 and "十" in token and token not in _ZH_NUM:  # 二十三, 三十, 十五
        tens, _, units = token.partition("十")
        return (_ZH_NUM.get(tens, 0) if tens else 1) * 10 + (_ZH_NUM.get(units, 0) if units else 0)
    return _WORD_NUM.get(token) or _ZH_NUM.get(token, 0)


def _ago(n: int, unit: str, now: datetime) -> Range:
    unit = unit.lower()
    if unit.startswith(("day", "天")):
        day = _day(now) - timedelta(days=n)
        return day - timedelta(days=1), day + timedelta(days=2)  # a day of slack either side
    if unit.startswith(("week", "周", "星期", "个星期", "礼拜")):
        mid = now - timedelta(weeks=n)
        return _day(mid) - timedelta(days=4), _day(mid) + timedelta(days=4)
    if unit.startswith(("month", "月", "个月")):
        month_index = now.year * 12 + now.month - 1 - n
        return _with_tz(_month(month_index // 12, month_index % 12 + 1), now)
    return _with_tz((datetime(now.year - n, 1, 1), datetime(now.year - n + 1, 1, 1)), now)


_EN_NUM = r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)"
_MONTH_RE = rf"({MONTH_NAMES})"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_RE},?\s+(\d{{4}})\b", re.I), "d_m_y"),
    (re.compile(rf"\b{_MONTH_RE}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), "m_d_y"),
    (re.compile(rf"\b{_MONTH_RE},?\s+(\d{{4}})\b", re.I), "m_y"),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH_RE}\b", re.I), "d_m"),
    (re.compile(rf"\b{_MONTH_RE}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!\s*[:.]\d)", re.I), "m_d"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), "zh_ymd"),
    (re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月"), "zh_ym"),
    (
        re.compile(r"(?<![\d年])([\d一二三四五六七八九十]{1,3})\s*月\s*([\d一二三四五六七八九十]{1,3})\s*[日号]"),
        "zh_md",
    ),
    (re.compile(rf"\b{_EN_NUM}\s+(days?|weeks?|months?|years?)\s+ago\b", re.I), "en_ago"),
    # from a number's first character: tried inside a long run of digits, each try scans to its end
    (
        re.compile(
            r"(?<![\d一两二三四五六七八九十几])([\d一两二三四五六七八九十几]+)\s*(天|周|个星期|星期|个月|月|年)(?:之|以)?前"
        ),
        "zh_ago",
    ),
    (re.compile(r"\b(yesterday|last night)\b", re.I), "yesterday"),
    (re.compile(r"(昨天|昨晚)"), "yesterday"),
    (re.compile(r"(前天)"), "day_before"),
    (re.compile(r"\b(today|tonight|this morning)\b|(今天|今晚)", re.I), "today"),
    (re.compile(r"\bthe\s+weekend\s+before\s+last\b|(上上个?周末)", re.I), "weekend_before_last"),
    (re.compile(r"\b(?:last|this\s+past)\s+weekend\b|(上个?周末)", re.I), "weekend"),
    (re.compile(rf"\b{_EN_NUM}\s+weekends?\s+ago\b", re.I), "weekends_ago"),
    (re.compile(r"\b(?:the\s+)?week\s+before\s+last\b|(上上周|上上个星期)", re.I), "week_before_last"),
    (re.compile(r"\blast\s+week\b|(上周|上个星期|上星期|上礼拜)", re.I), "last_week"),
    (re.compile(r"\bthis\s+week\b|(这周|本周|这个星期)", re.I), "this_week"),
    (re.compile(r"\blast\s+month\b|(上个月|上月)", re.I), "last_month"),
    (re.compile(r"\bthis\s+month\b|(这个月|本月)", re.I), "this_month"),
    (re.compile(r"(前年|去年|今年|明年)\s*的?\s*([\d一二三四五六七八九十]+)\s*月"), "zh_year_month"),
    (re.compile(rf"\blast\s+{_MONTH_RE}\b", re.I), "last_named_month"),
    (re.compile(r"\blast\s+year\b|(去年)", re.I), "last_year"),
    (re.compile(r"(前年)"), "year_before"),
    (re.compile(r"\bthis\s+year\b|(今年)", re.I), "this_year"),
    (re.compile(r"(\d{4})\s*年"), "zh_year"),
    (re.compile(rf"\b(?:in|during|since|of)\s+{_MONTH_RE}\b", re.I), "named_month"),
    (re.compile(r"(?<![\d年])([\d一二三四五六七八九十]{1,3})\s*月份?(?![\d一二三四五六七八九十]*[日号])"), "zh_month"),
    (re.compile(r"\b(?:in|during|since|of|around)\s+((?:19|20)\d{2})\b", re.I), "year"),
]


# Only where a part or a bound names the period right after it ("mid-August", "since 2021", "the end of
# the year"): alone these words are too common to read as times.
_AT_START: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?:the\s+)?(year|month|week)\b", re.I), "this_unit"),
    (re.compile(rf"{_MONTH_RE}\b", re.I), "bare_month"),
    (re.compile(r"((?:19|20)\d{2})\b"), "year"),
]


def parse_time_range(text: str, now: datetime) -> Range | None:
    """The first time expression in ``text`` as [since, until), in ``now``'s time zone."""
    return _bounded(text, now) or _base(text, now)


def _base(text: str, now: datetime, at_start: bool = False) -> Range | None:
    """A period, or a part of one; with ``at_start``, only one that ``text`` begins with."""
    return part(text, now, _base, at_start) or named_period(text, now, at_start) or _plain(text, now, at_start)


def _bounded(text: str, now: datetime) -> Range | None:
    return bounded(text, now, _base)


def _plain(text: str, now: datetime, at_start: bool = False) -> Range | None:
    for pattern, kind in _PATTERNS + (_AT_START if at_start else []):
        match = pattern.match(text) if at_start else pattern.search(text)
        if match is not None:
            found = _resolve(kind, match.groups(""), now)  # a kind reads only groups its pattern always sets
            if found is not None:
                return found
    return None


def _latest_day(month: int, day: int, now: datetime) -> Range | None:
    """A day without a year: its latest occurrence up to today, with a day of slack either side."""
    if not 1 <= month <= 12:
        return None
    start = datetime(now.year, month, day, tzinfo=now.tzinfo)  # ValueError on "30 February": no range
    if start > _day(now):
        start = start.replace(year=now.year - 1)
    return start - timedelta(days=1), start + timedelta(days=2)


def _weekend(n: int, now: datetime) -> Range:
    """The ``n``-th last weekend (1: the latest Saturday and Sunday that are over, or under way only if
    today is not one of them), Friday to Monday inclusive: plans and reports spill over."""
    today = _day(now)
    saturday = today - timedelta(days=(today.weekday() - 5) % 7)  # the latest Saturday, today included
    if today.weekday() >= 5:  # on a weekend "last weekend" is the one before
        saturday -= timedelta(days=7)
    saturday -= timedelta(days=7 * (n - 1))
    return saturday - timedelta(days=1), saturday + timedelta(days=3)


def _latest_month(month: int, now: datetime, strictly_before: bool = False) -> Range:
    year = now.year if (month < now.month or (month == now.month and not strictly_before)) else now.year - 1
    return _with_tz(_month(year, month), now)


def _resolve(kind: str, g: tuple[str, ...], now: datetime) -> Range | None:
    today = _day(now)
    try:
        match kind:
            case "d_m_y" | "m_d_y":
                d, m, y = (g[0], g[1], g[2]) if kind == "d_m_y" else (g[1], g[0], g[2])
                start = datetime(
                    int(y),
                    _MONTHS[m.lower()[:3] if m.lower()[:4] != "sept" else "sep"],
                    int(d),
                    tzinfo=now.tzinfo,
                )
                return start - timedelta(days=1), start + timedelta(days=2)
            case "m_y":
                return _with_tz(_month(int(g[1]), _MONTHS[g[0].lower()[:3]]), now)
            case "zh_ymd":
                start = datetime(int(g[0]), int(g[1]), int(g[2]), tzinfo=now.tzinfo)
                return start - timedelta(days=1), start + timedelta(days=2)
            case "zh_ym":
                return _with_tz(_month(int(g[0]), int(g[1])), now)
            case "en_ago" | "zh_ago":
                n = _num(g[0])
                return _ago(n, g[1], now) if n else None
            case "d_m" | "m_d":
                d, m = (g[0], g[1]) if kind == "d_m" else (g[1], g[0])
                if m == "may" and kind == "m_d":  # "may 5 people come": the verb, not the month
                    return None
                return _latest_day(_MONTHS[m.lower()[:3]], int(d), now)
            case "zh_md":
                return _latest_day(_num(g[0]), _num(g[1]), now)
            case "weekend" | "weekend_before_last" | "weekends_ago":
                n = {"weekend": 1, "weekend_before_last": 2}.get(kind) or _num(g[0])
                return _weekend(n, now) if n else None
            case "week_before_last":
                return _week(today, 2)
            case "yesterday":
                return today - timedelta(days=1), today
            case "day_before":
                return today - timedelta(days=2), today - timedelta(days=1)
            case "today":
                return today, today + timedelta(days=1)
            case "last_week":
                return _week(today, 1)
            case "this_week":
                return _week(today, 0)
            case "last_month":
                return _ago(1, "month", now)
            case "this_month":
                return _with_tz(_month(now.year, now.month), now)
            case "zh_year_month":
                return _with_tz(_month(now.year + ZH_YEARS[g[0]], _num(g[1])), now)
            case "last_named_month":
                return _latest_month(_MONTHS[g[0].lower()[:3]], now, strictly_before=True)
            case "last_year":
                return _ago(1, "year", now)
            case "year_before":
                return _ago(2, "year", now)
            case "this_year":
                return _ago(0, "year", now)
            case "this_unit":
                unit = g[0].lower()
                return _week(today, 0) if unit == "week" else _ago(0, unit, now)
            case "bare_month":
                return None if g[0] == "may" else _latest_month(_MONTHS[g[0].lower()[:3]], now)
            case "zh_year" | "year":
                year = int(g[0])
                return _with_tz((datetime(year, 1, 1), datetime(year + 1, 1, 1)), now)
            case "named_month":
                return _latest_month(_MONTHS[g[0].lower()[:3]], now)
            case "zh_month":
                month = _num(g[0])
                return _latest_month(month, now) if 1 <= month <= 12 else None
    except (ValueError, KeyError):
        return None
    return None
