"""A slip corrected in the next message: "My flight to Denver is on July 12." then "Sorry, make that July 14.".

The correction repeats no word of what it corrects, only a value under a cue ("sorry", "make that", "I meant",
"不对", "说错了", "更正一下"). Read alone it says nothing a search could find by the flight or Denver, and no key
says which memory it replaces when the first statement had none. ``corrected`` reads such a message as its
value: typed (a date, a time of day, a weekday, a number), given up by name ("Wednesdays, not Tuesdays"), or a
name or thing after a cue that alone says a slip is corrected. ``statement`` puts it in the place of the value
it corrects in the same speaker's message before (the one of its kind, of its unit, or the one named), which
gives the statement as corrected ("My flight to Denver is on July 14."); an untyped value with no place stands
beside it ("…（更正：北外）"). That is the memory stored for the correction, quoting the message, and it
supersedes what it corrects (``memory.revisions``). Pure.

Only the cue and the value are read (a reason may follow in another sentence or clause): "No, it's Bremen" and
"I mean July 14" stay with the key rules (``rules._BARE``) when what they correct had a key; a message that says
more is a statement of its own. Which value changed is never guessed: an earlier message with two of the kind
and none named, or an attribute it does not name ("说错了，起租是3月5号"), is left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from hindsight_es.text import MONTH_NAMES

Kind = Literal["date", "time", "weekday", "number"]

_MONTH = rf"(?:{MONTH_NAMES})"
_ZH_NUM = r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})"
# 四百二, 一万二, 三千五百, 三百五十一: numerals with their powers; a last digit ends one ("三百五一次": 350 a time)
_POWERED = r"[一二两三四五六七八九十]+[百千万](?:零?[一二两三四五六七八九][百千十])*(?:零?[一二两三四五六七八九])?"
# what a Chinese number counts (三楼, 六辆, 四百二块): a measure word, which is also its unit
_MEASURE = r"号楼|号线|公斤|平米|万|千|元|块|美元|岁|个|位|名|人|楼|层|班|辆|台|张|间|套|次|晚|天|斤|米|平|号"
_ORD = r"\d{1,2}(?:st|nd|rd|th)"
_SPANS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    (
        "date",
        re.compile(
            rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b"
            rf"|\b(?:the\s+)?{_ORD}\b|{_ZH_NUM}月{_ZH_NUM}[号日]|(?<![\d月一二三四五六七八九十]){_ZH_NUM}[号日](?![楼线房室栋层])",
            re.I,
        ),
    ),
    (
        "time",
        re.compile(
            r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b"
            r"|(?:早上|上午|中午|下午|傍晚|晚上|凌晨)?(?:\d{1,2}|(?<![好快慢多少早晚有差])[零一两二三四五六七八九十]{1,3})点"
            r"(?:半|一刻|三刻|钟|(?:\d{1,2}|[零一二三四五六七八九十]{1,3})分?)?",
            re.I,
        ),
    ),
    (
        "weekday",
        re.compile(
            r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:周|星期|礼拜)[一二三四五六日天]",
            re.I,
        ),
    ),
    (
        "number",
        re.compile(
            rf"[$€£¥]?\d[\d,]*(?:\.\d+)?(?:\s*(?:k|%|{_MEASURE}))?"
            # 三楼, 六辆, 八个人; 四百二 and 一万二 (a numeral with its power: 420, 12,000)
            rf"|{_POWERED}(?:{_MEASURE})?|[零一二两三四五六七八九十]+(?:{_MEASURE})",
            re.I,
        ),
    ),
)
# What opens a correction: an apology or a "no", then what the value is said with. The strong ones say that a
# slip is corrected whatever value follows; after the weak ones ("sorry", "wait", "actually") only a value of a
# kind the earlier message holds, or one it gives up by name, is read as a correction.
_STRONG = (
    r"correction|i meant|i mean|(?:it )?should (?:be|read|say)|should have said|i misspoke|typo|scratch that"
    r"|my bad|不对|说错了|我说错了|打错了|写错了|搞错了|记错了|我记错了|更正一下|更正|纠正一下|纠正|应该是|我是说"
)
# "make it" and "change that to" also ask for a draft to be redone ("make it less cheesy"): a value's kind decides
_WEAK = (
    r"sorry|oops|whoops|wait|no|nope|actually|make (?:that|it)|change (?:that|it) to"
    r"|it'?s|it is|that'?s|that is|其实|改成|是"
)
# "起租是3月5号", "the deposit is $500": the attribute named, then its value; the attribute must be the earlier
# message's, or the correction is of something else ("说错了，起租是3月5号" after the movers' quote)
_NAMED = re.compile(r"^(?P<attr>[^,，\s]{1,8}|\w+(?:\s\w+){0,2})\s*(?:是|为|is|was|are|were)\s*(?P<v>.+)$", re.I)
_CUE = re.compile(
    rf"^(?:(?:(?P<strong>{_STRONG})|{_WEAK})(?:\b|(?<=[\u4e00-\u9fff]))[\s,，:：;；.。!！—–-]*)+",
    re.I,
)
_SENTENCE = re.compile(r"[.!?](?:\s|$)|[。！？]")
_CLAUSE = re.compile(r"[，;；]|,\s(?!\d{3}\b)")
# "Wednesdays, not Tuesdays", "8pm, not 7", "not white: sage green", "是周日，不是周六", "不是周六，是周日"
_GIVEN_UP = (
    re.compile(r"^not\s+(?P<old>[^,:;，：]+?)\s*[,:;，：]\s*(?:it'?s\s+|but\s+)?(?P<new>.+)$", re.I),
    re.compile(r"^(?P<new>.+?)\s*,?\s+(?:not|instead of)\s+(?P<old>.+)$", re.I),
    re.compile(r"^不是(?P<old>[^，,]+)[，,]\s*(?:而)?是?(?P<new>.+)$"),
    re.compile(r"^(?P<new>[^，,]+?)[，,]?\s*(?:而)?不是(?P<old>.+)$"),
)
_SOFT = re.compile(
    r"^(?:on|at|for|by|in|the|到|在|是)\s*|\s*(?:instead|please|then|了|吧|哈|啊|呢|的|那(?:班|趟|个|次|家|天|间|辆))$",
    re.I,
)
# an untyped value is a name or a thing, not a clause about one ("Typo in my proposal, it should read $95")
_CLAUSAL = re.compile(r"^(?:my|your|our|his|her|their|its|i|we|you|it|this|that|我|你|他|她|我们|你们|他们)\b", re.I)
_UNIT = re.compile(rf"[$€£¥%]|am\b|pm\b|(?:{_MEASURE})$", re.I)
SHORT = 80  # characters: a correction of a slip is a short message
VALUE = 30  # characters of the value itself


@dataclass(frozen=True, slots=True)
class Slip:
    """What a message that corrects a slip says: the value, its kind (None: not a typed value), the value it
    gives up by name, if any, and whether its cue alone says it corrects ("说错了", "I meant")."""

    value: str
    kind: Kind | None
    old: str | None
    strong: bool
    attribute: str | None = None


def spans(text: str, kind: Kind) -> list[tuple[int, int]]:
    """Where ``text`` says a value of ``kind``; a value of an earlier kind in ``_SPANS`` claims its span first
    ("July 12" is a date, not the number 12)."""
    taken: list[tuple[int, int]] = []
    for k, pattern in _SPANS:
        found = [m.span() for m in pattern.finditer(text) if not any(s < m.end() and m.start() < e for s, e in taken)]
        if k == kind:
            return found
        taken += found
    return []


def corrected(text: str) -> Slip | None:
    """What a message that only corrects a slip gives ("Sorry, make that July 14." -> date "July 14"; "不对，是四点，
    三点我有课。" -> time "四点"; "Actually, not white: sage green." -> "sage green" for "white"), or None for any
    other message. Only the first sentence is read (a reason may follow), and in it the first clause, unless a later
    one is a typed value ("Typo in my proposal, it should read $95.")."""
    if len(text) > SHORT or (cue := _CUE.match(text.strip())) is None or not cue.group(0).strip():
        return None
    rest = text.strip()[cue.end() :]
    rest = rest[: m.start()] if (m := _SENTENCE.search(rest)) else rest
    old: str | None = None
    for pattern in _GIVEN_UP:
        if given := pattern.match(rest.strip()):
            rest, old = given["new"], _soft(given["old"])
            break
    else:  # the first clause, unless a later one of the sentence is the typed value ("Typo, it should read $95")
        clauses = [_uncued(c) for c in _CLAUSE.split(rest)[:3]]
        rest = next((c for c in clauses if _kind(_soft(c)) is not None), clauses[0])
    value, attribute = _soft(rest), None
    if (named := _NAMED.match(value)) and not old:
        value, attribute = _soft(named["v"]), named["attr"]
    if not value or len(value) > VALUE:
        return None
    kind = _kind(value)
    if kind is None and _CLAUSAL.match(value):
        return None
    return Slip(value, kind, old or None, cue.group("strong") is not None, attribute)


def _kind(value: str) -> Kind | None:
    return next((k for k, _ in _SPANS if value and spans(value, k) == [(0, len(value))]), None)


def _uncued(clause: str) -> str:
    return clause.strip()[cue.end() :] if (cue := _CUE.match(clause.strip())) else clause


def replaced(previous: str, slip: Slip) -> str | None:
    """The value of ``previous`` that ``slip`` corrects, as ``revise`` finds it, or None."""
    return previous[place[0] : place[1]] if (place := _place(previous, slip)) else None


def revise(previous: str, slip: Slip) -> str | None:
    """``previous`` with the value the slip corrects replaced by its value: the one it gives up by name, else the
    one value of its kind (of its unit: "$128,000" replaces "$118,000", not "10%"); None when that is not one
    value, or the same. A day alone ("the 14th", "14号") keeps the month ``previous`` named ("July 12" ->
    "July 14th"); a time without a part of the day keeps it ("下午三点" -> "下午四点")."""
    if (place := _place(previous, slip)) is None:
        return None
    start, end = place
    old = previous[start:end]
    new = re.sub(r"^the\s+", "", slip.value, flags=re.I)
    if slip.kind == "date" and not re.search(rf"{_MONTH}|月", new, re.I):
        month = re.search(rf"{_MONTH}\.?\s+|\d{{1,2}}月|[一二三四五六七八九十]{{1,3}}月", old, re.I)
        if month and old.startswith(month.group(0)):
            new = month.group(0) + new
    part = re.match(r"早上|上午|中午|下午|傍晚|晚上|凌晨", old) if slip.kind == "time" else None
    if part and not new.startswith(part[0]):
        new = part[0] + new
    if _norm(new) == _norm(old):
        return None
    return previous[:start] + new + previous[end:]


def _place(previous: str, slip: Slip) -> tuple[int, int] | None:
    found: list[tuple[int, int]] = []
    if slip.attribute and slip.attribute.casefold() not in previous.casefold():
        return None  # another attribute than the earlier message's
    if slip.old:
        found = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(slip.old)}(?:s|es)?(?!\w)", previous, re.I)]
        if not found and slip.old.lower().endswith("s"):
            found = [m.span() for m in re.finditer(rf"(?<!\w){re.escape(slip.old[:-1])}(?!\w)", previous, re.I)]
    if not found and slip.kind is None:  # "Pixel 9" for "Pixel 8": the same words before another number
        found = _aligned(previous, slip.value)
    if not found and slip.kind is not None:  # "8pm, not 7": the 7 said as "7pm"
        found = spans(previous, slip.kind)
        unit = {u.lower() for u in _UNIT.findall(slip.value)}
        same = [(s, e) for s, e in found if {u.lower() for u in _UNIT.findall(previous[s:e])} == unit]
        found = same if len(found) > 1 and len(same) == 1 else found
    return found[0] if len(found) == 1 else None


def _aligned(previous: str, value: str) -> list[tuple[int, int]]:
    """Where ``previous`` says ``value``'s words with another value of the same kind in its place ("getting a
    Pixel 8" for "Pixel 9", "两点那班" for "三点十分那班"): the words before the value, at least two letters or one
    Chinese character, then a value of its kind."""
    for kind, pattern in _SPANS:
        inner = spans(value, kind)
        if not inner or not (head := value[: inner[-1][0]].strip()) or len(head) < (1 if head[-1] > "~" else 2):
            continue
        said = re.finditer(rf"{re.escape(head)}\s*(?:{pattern.pattern})", previous, re.I)
        return [m.span() for m in said]
    return []


def statement(previous: str, slip: Slip) -> str | None:
    """The earlier statement as corrected: with the value replaced (``revise``); else, after a cue that alone says
    a slip is corrected, the earlier statement with the correction beside it ("考点选的是北京语言大学（更正：北外）"),
    which is what is known; else None."""
    if (revised := revise(previous, slip)) is not None:
        return revised
    if not slip.strong or slip.old or slip.kind is not None:
        return None
    if slip.attribute and slip.attribute.casefold() not in previous.casefold():
        return None
    said = previous.strip()
    if re.search(r"[\u4e00-\u9fff]", said):
        return f"{said.rstrip('。.！!')}（更正：{slip.value}）"
    return f"{said.rstrip('.!')} (corrected: {slip.value})."


def _soft(value: str) -> str:
    value = value.strip(" \t,，.。!！")
    while (bare := _SOFT.sub("", value)) != value:
        value = bare.strip(" \t,，.。!！")
    return value


def frame(text: str) -> str:
    """``text`` with every value ``spans`` finds taken out: what two statements that differ in a value share."""
    cut = sorted(span for kind, _ in _SPANS for span in spans(text, kind))
    out, at = [], 0
    for start, end in cut:
        out.append(text[at:start])
        at = end
    return "\x00".join([*out, text[at:]]).casefold()


def _norm(value: str) -> str:
    return re.sub(r"\s+|(?<=\d)(?:st|nd|rd|th)\b|^the\s*", "", value.lower())
