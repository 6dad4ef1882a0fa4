"""The fuzzy time expressions of ``recall.timeparse``: seasons and holidays, parts of a period, open ranges.

Each reads the period it qualifies with the caller's ``base`` parser (``timeparse._base``), so "mid-",
"the end of", "since" and "以来" work on whatever that parser knows ("mid-August 2023", "the end of last
year", "since the summer", "2023年5月以来"). Seasons are the northern hemisphere's meteorological ones
(spring March-May, summer June-August, autumn September-November, winter December-February).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta

Range = tuple[datetime, datetime]
Base = Callable[[str, datetime, bool], "Range | None"]

FLOOR = datetime(1900, 1, 1)  # "before X": every time before it

_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}
_ZH_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_ZH_BREAKS = {"暑假": (7, 2), "寒假": (1, 2)}  # school holidays: start month, months
ZH_YEARS = {"前年": -2, "去年": -1, "今年": 0, "明年": 1}  # a year named relative to this one
_EN_SEASON = re.compile(
    r"\b(?:(last|this\s+past|this|next|the)\s+)?(spring|summer|autumn|fall|winter)"
    r"(?:\s+(?:of\s+)?((?:19|20)\d{2}))?\b|\b((?:19|20)\d{2})\s+(spring|summer|autumn|fall|winter)\b",
    re.I,
)
_ZH_SEASON = re.compile(r"(前年|去年|今年|明年|(\d{4})\s*年)?\s*的?(?:([春夏秋冬])(?:天|季)|(暑假|寒假))")

# month, day, days (a holiday of several days), or None for one computed per year
_HOLIDAYS: dict[str, tuple[int, int, int] | None] = {
    "christmas eve": (12, 24, 1),
    "christmas": (12, 25, 1),
    "xmas": (12, 25, 1),
    "new year's eve": (12, 31, 1),
    "new year": (1, 1, 1),
    "halloween": (10, 31, 1),
    "valentine": (2, 14, 1),
    "thanksgiving": None,
    "平安夜": (12, 24, 1),
    "圣诞": (12, 25, 1),
    "元旦": (1, 1, 1),
    "国庆": (10, 1, 7),
    "情人节": (2, 14, 1),
    "万圣节": (10, 31, 1),
}
_EN_HOLIDAY = re.compile(
    r"\b(?:(last|this\s+past|this|next)\s+)?(christmas\s+eve|christmas|xmas|new\s+year'?s\s+eve|new\s+year'?s?"
    r"(?:\s+day)?|halloween|valentine'?s(?:\s+day)?|thanksgiving)(?:\s+((?:19|20)\d{2}))?\b",
    re.I,
)
_ZH_HOLIDAY = re.compile(r"(前年|去年|今年|明年|(\d{4})\s*年)?\s*的?(平安夜|圣诞|元旦|国庆|情人节|万圣节)")

# a part of a period: (start, end) as fractions of it; the overlaps are slack
_EARLY, _MID, _LATE = (0.0, 0.36), (0.3, 0.7), (0.64, 1.0)
_EN_PART = re.compile(
    r"\b(early|mid|late|(?:(?:towards?|near|by|at|around|in|until|till)\s+)?the\s+(?:very\s+)?"
    r"(beginning|start|middle|end)\s+of)[\s-]+",
    re.I,
)
_EN_PART_OF = {"early": _EARLY, "beginning": _EARLY, "start": _EARLY, "mid": _MID, "middle": _MID}
_ZH_PART = re.compile(r"[上中下]旬|月初|月中|月底|月末|年初|年中|年底|年末")
_ZH_XUN = re.compile(r"[上中下]旬")  # looked for first: "上个月中旬" also holds 月中
_ZH_PART_OF = {"上": _EARLY, "初": _EARLY, "中": _MID, "下": _LATE, "底": _LATE, "末": _LATE}

_EN_BOUND = re.compile(r"\b(since|after|before|until|till|prior\s+to)\s+(?:the\s+)?", re.I)
_EN_BETWEEN = re.compile(r"\b(?:between|from)\s+(?:the\s+)?(.+?)\s+(?:and|to|until|till)\s+(?:the\s+)?(.+)", re.I)
_ZH_BOUND = re.compile(r"(以来|之后|以后|起|开始|之前|以前)")
_ZH_BETWEEN = re.compile(r"(?:从|自)\s*(.+?)\s*(?:到|至)\s*(.+)")


def with_tz(r: Range, now: datetime) -> Range:
    return r[0].replace(tzinfo=now.tzinfo), r[1].replace(tzinfo=now.tzinfo)


def day(t: datetime) -> datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def months(year: int, month: int, count: int) -> Range:
    index = year * 12 + month - 1
    end = index + count
    return datetime(year, month, 1), datetime(end // 12, end % 12 + 1, 1)


def _which(spans: Callable[[int], Range], qualifier: str, year: int | None, now: datetime) -> Range:
    """The occurrence of a yearly period meant: that year's; "last" the latest one over; "this" the one
    under way or this year's; "next" the next to start; else the one under way or the latest begun."""
    if year is not None:
        return with_tz(spans(year), now)
    today = day(now).replace(tzinfo=None)
    q = qualifier.lower().split()[0] if qualifier else ""
    candidates = [spans(y) for y in range(now.year - 2, now.year + 2)]
    if q == "next":
        return with_tz(min((c for c in candidates if c[0] > today), default=candidates[-1]), now)
    under_way = [c for c in candidates if c[0] <= today < c[1]]
    if q == "this":
        return with_tz(under_way[0] if under_way else spans(now.year), now)
    if q == "last" and under_way:
        return with_tz(max(c for c in candidates if c[1] <= today), now)
    return with_tz(max(c for c in candidates if c[0] <= today), now)


def named_period(text: str, now: datetime, at_start: bool = False) -> Range | None:
    """A season with a qualifier or a year ("last summer", "the winter of 2021", "去年夏天"), a school
    holiday ("暑假"), or a holiday ("last Christmas", "国庆")."""

    def find(pattern: re.Pattern[str]) -> re.Match[str] | None:
        return pattern.match(text) if at_start else pattern.search(text)

    if (m := find(_EN_SEASON)) is not None:
        qualifier, name, year = m.group(1) or "", (m.group(2) or m.group(5)).lower(), m.group(3) or m.group(4)
        # A season with neither qualifier nor year is habitual ("plans for the summer", "in winter the
        # tree needs...") far more often than a time filter, unless a part or a bound names it ("the end
        # of summer", "since the summer": ``at_start``); "fall" alone is mostly the verb.
        if at_start or (qualifier and qualifier.lower() != "the") or year:
            start, count = _SEASONS[name]
            return _which(lambda y: months(y, start, count), qualifier, int(year) if year else None, now)
    if (m := find(_ZH_SEASON)) is not None and (at_start or m.group(1) or m.group(4)):  # "冬天柠檬树要…": habitual
        start, count = _ZH_BREAKS.get(m.group(4) or "") or _SEASONS[_ZH_SEASONS.get(m.group(3) or "", "summer")]
        year = int(m.group(2)) if m.group(2) else now.year + ZH_YEARS[m.group(1)] if m.group(1) else None
        return _which(lambda y: months(y, start, count), "", year, now)
    if (m := find(_EN_HOLIDAY)) is not None:
        name = m.group(2).lower().replace("\u2019", "'")
        key = next(k for k in _HOLIDAYS if name.startswith(k.split("'")[0]))
        return _which(_holiday(key), m.group(1) or "", int(m.group(3)) if m.group(3) else None, now)
    if (m := find(_ZH_HOLIDAY)) is not None:
        year = int(m.group(2)) if m.group(2) else now.year + ZH_YEARS[m.group(1)] if m.group(1) else None
        return _which(_holiday(m.group(3)), "", year, now)
    return None


def _holiday(key: str) -> Callable[[int], Range]:
    """A holiday's days in a year, with two days of slack either side (plans and reports spill over)."""

    def spans(year: int) -> Range:
        fixed = _HOLIDAYS[key]
        if fixed is None:  # Thanksgiving: the fourth Thursday of November
            first = datetime(year, 11, 1)
            start, days = first + timedelta(days=(3 - first.weekday()) % 7 + 21), 1
        else:
            start, days = datetime(year, fixed[0], fixed[1]), fixed[2]
        return start - timedelta(days=2), start + timedelta(days=days + 2)

    return spans


def _fraction(r: Range, share: tuple[float, float]) -> Range:
    span = r[1] - r[0]
    start = day(r[0] + span * share[0])
    end = day(r[0] + span * share[1])
    return start, max(end, start + timedelta(days=1)) if share[1] < 1 else r[1]


def part(text: str, now: datetime, base: Base, at_start: bool = False) -> Range | None:
    """Part of a period: "mid-August 2023", "early 2022", "the end of last year", "towards the end of
    summer", "上个月中旬", "八月下旬", "去年年底", "月初"."""
    for m in _EN_PART.finditer(text):
        if at_start and m.start() != 0:
            break
        whole = base(text[m.end() :], now, True)
        if whole is not None:
            word = (m.group(2) or m.group(1)).lower()
            return _fraction(whole, _EN_PART_OF.get(word, _LATE))
    if not at_start and (found := _ZH_PART.search(text)) is not None:
        m = _ZH_XUN.search(text) or found
        token = m.group(0)
        rest = text[: m.start()] + text[m.end() :]
        unit = "year" if token.startswith("年") else "month"
        # "九月初", "2023年底": the token's 月/年 also ends the period before it
        before = text[: m.start() + (1 if token[0] in "年月" else 0)]
        whole = base(before, now, False) if before.strip() else None
        if whole is None or (unit == "year" and whole[1] - whole[0] < timedelta(days=300)):
            whole = base("this " + unit, now, False) if not _ZH_PART.search(rest) else None
        if whole is not None:
            return _fraction(whole, _ZH_PART_OF[token[-1] if token[-1] != "旬" else token[0]])
    return None


def bounded(text: str, now: datetime, base: Base) -> Range | None:
    """An open or two-sided range: "since June", "after the summer", "before July 2023", "until last
    week", "between May and July", "2023年5月以来", "去年之前", "从去年十月到今年三月"."""
    tomorrow = day(now) + timedelta(days=1)
    floor = FLOOR.replace(tzinfo=now.tzinfo)
    for between in (_EN_BETWEEN, _ZH_BETWEEN):  # "between May and July", "从去年十月到今年三月"
        if (m := between.search(text)) is not None:
            first, last = base(m.group(1), now, True), base(m.group(2), now, True)
            if first is not None and last is not None:
                return min(first[0], last[0]), max(first[1], last[1])
    for m in _EN_BOUND.finditer(text):
        period = base(text[m.end() :], now, True)
        if period is not None:
            word = m.group(1).lower()
            if word == "since":
                return period[0], max(tomorrow, period[1])
            if word == "after":
                return period[1], max(tomorrow, period[1] + timedelta(days=1))
            return floor, period[0] if word in ("before", "prior to") else period[1]
    for m in _ZH_BOUND.finditer(text):
        before = text[: m.start()].rstrip()
        before = re.sub(r"^.*?(?:自从|自|从)", "", before)
        period = _ending_at(before, now, base)
        if period is not None:
            marker = m.group(1)
            if marker in ("以来", "起", "开始"):
                return period[0], max(tomorrow, period[1])
            if marker in ("之后", "以后"):
                return period[1], max(tomorrow, period[1] + timedelta(days=1))
            return floor, period[0]
    return None


def _ending_at(text: str, now: datetime, base: Base) -> Range | None:
    """The period ``text`` ends with ("我2023年5月" -> May 2023): the longest tail that is one."""
    for start in range(max(0, len(text) - 16), len(text)):
        tail = text[start:]
        if tail[:1].isspace():
            continue
        found = base(tail, now, True)
        if found is not None:
            return found
    return None
