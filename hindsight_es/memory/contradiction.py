"""Does one statement contradict another without a shared key? Lexical, bilingual and deterministic.

Two statements are about the same thing when their content words (English stems, Chinese character
bigrams; values left out) overlap:

    similarity = |shared content| / |content a ∪ content b|        (Jaccard)

and one contradicts the other when they are similar and a contradiction signal separates them: a
negation on one side only ("no", "cancelled", "ruled out", "不", "取消"), or values of one kind that
differ on both sides (numbers, times, weekdays, months, names). Similarity of 0.5 is enough with a
signal; 0.34 when the newer statement also says something changed ("moved to", "rescheduled", "改到").
A question asserts nothing and contradicts nothing. No vectors, so the bank state needs none.
"""

from __future__ import annotations

import re
from functools import lru_cache

from hindsight_es.text import MONTH_NAMES

_STOP = frozenset(
    "a an the and or but if of to in on at by for with from into onto as is are was were be been being am do does did "
    "have has had it its this that these those there here i me my mine we us our ours you your yours he him his she "
    "her they them their what which who whom when where why how all any some each every not no yes so than then too "
    "very can could will would shall should may might must just also only now new note fyi please reminder hi hello "
    "thanks thank ok okay per via about after before again still really actually user user's users i'm it's told said "
    "mentioned record recorded according going forward please right oh heard like one ones thing things everything "
    "anything something next last week".split()
)
_NEG_EN = re.compile(
    r"\b(?:not|no|never|none|nothing|nobody|neither|nor|without|cancel(?:l?ed|s)?|called off|ruled out|false|untrue"
    r"|no longer|isn'?t|aren'?t|wasn'?t|weren'?t|don'?t|doesn'?t|didn'?t|won'?t|can'?t|cannot|negative)\b"
)
_NEG_ZH = re.compile(r"不|没|无|非|未|别|取消|否|假的")
_CHANGE = re.compile(
    r"\b(?:moved?|rescheduled|changed?|switched|replaced|postponed|delayed|updated?|now|no longer|instead"
    r"|cancel(?:l?ed)?|relocated|renamed|merged|became|becomes)\b|改到|改为|改成|搬到|搬去|换成|换到|调整|变更|推迟|延期|取消|现在|已经|最新|合并"
    r"|提前|延后|延到|挪到|调到|改期|顺延"
)
_QUESTION = re.compile(r"[?？]\s*$|[吗呢]\s*[?？。!！]?\s*$")
_WEEKDAYS = re.compile(
    r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:days?)?\b|(?:周|星期|礼拜)[一二三四五六日天1-7]"
)
_MONTHS = re.compile(rf"\b(?:{MONTH_NAMES})\b|[一二三四五六七八九十]{{1,2}}月")
# A date written with digits is one value ("8月20号", "2024年3月"): split, two dates in one month shared the
# month's number and never differed, where "Aug 20" and "Aug 13" (a month name and a number) do.
_NUMBER = re.compile(
    r"(?:\d{2,4}年)?\d{1,2}月(?:\d{1,2}[号日])?|\d+(?:[.,:\-]\d+)*(?:\s?(?:am|pm|k|%|元|块|万|千|号|点|天|年|个|位|栋|楼|层))?|[零一二三四五六七八九十百千万两]{2,}"
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z0-9]+(?:\s+[A-Z][a-zA-Z0-9]+)*")
_IMPERATIVE = re.compile(r"^\W*(?:don'?t|do not|never|please don'?t|别|不要|千万别|请不要|不用)")
_VOCATIVE = re.compile(r"(?:^|,)\s*[A-Z][a-z]+\s*(?=[,!.?]|$)")  # "…, Luna!": a name addressed, not a value
_ASCII_WORD = re.compile(r"[a-z0-9][a-z0-9'+#-]*")
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_CJK_STOP = re.compile(r"[的了是在我你他她它们和与就都也很吗呢吧啊呀哦嗯这那]+")
_CJK_FILLER = re.compile(
    r"该用户|这位用户|用户|注意|提醒|通知|备注|据说|听说|其实|目前|已经|现在|最新|以此为准|以最新为准"
)


def _stem(word: str) -> str:
    """A crude stem: a common suffix off, then the first five letters ("allergies", "allergic": "aller")."""
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:5]


@lru_cache(maxsize=1 << 14)
def values(text: str) -> dict[str, frozenset[str]]:
    """Values by kind: what differs between two statements of the same frame."""
    low = text.lower()
    out = {
        "weekday": frozenset(m[0][:3] if m[0][0].isascii() else m[0][-1] for m in _WEEKDAYS.finditer(low)),
        "month": frozenset(m[0][:3] for m in _MONTHS.finditer(low)),
        "number": frozenset(re.sub(r"\s", "", m[0]) for m in _NUMBER.finditer(low)),
        "name": frozenset(m[0].lower() for m in _NAME.finditer(_VOCATIVE.sub(" ", text)) if m[0].lower() not in _STOP),
    }
    return {k: v for k, v in out.items() if v}


@lru_cache(maxsize=1 << 14)
def content(text: str) -> frozenset[str]:
    """Content tokens, values left out: English stems and Chinese character bigrams."""
    low = text.lower()
    taken = {w for vs in values(text).values() for v in vs for w in v.split()}
    words = {
        _stem(w.strip("'-"))
        for w in _ASCII_WORD.findall(re.sub(r"['’]s\b", "", _NEG_EN.sub(" ", low)))
        if w not in _STOP and len(w) >= 3 and not w[0].isdigit() and w not in taken and "'" not in w
    }
    grams: set[str] = set()
    for run in _CJK_RUN.findall(_CJK_FILLER.sub(" ", _CHANGE.sub(" ", _NEG_ZH.sub(" ", low)))):
        for part in _CJK_STOP.split(run):
            grams.update(a + b for a, b in zip(part, part[1:], strict=False))
            if len(part) == 1:
                grams.add(part)
    cjk_values = {v for v in taken if not v.isascii()}
    return frozenset((words | grams) - {g for g in grams if any(g in v or v in g for v in cjk_values)})


_IDIOMS = re.compile(
    r"\b(?:no problem|no worries|don'?t worry|not at all|no doubt|never mind|not bad|no wonder|why not|of course not)\b"
    r"|不错|不客气|没关系|没问题|不用谢|别担心|不要担心|不好意思|不过|不少|不断|不同|不仅|非常|无论|无法想象"
)


def negated(text: str) -> bool:
    low = _IDIOMS.sub(" ", text.lower())
    return bool(_NEG_EN.search(low) or _NEG_ZH.search(low))


def is_question(text: str) -> bool:
    return bool(_QUESTION.search(text.strip()))


def _negation_near(text: str, shared: frozenset[str]) -> bool:
    """A negation within a few words of a shared content word, in the same clause (not somewhere else in
    a long sentence)."""
    for clause in re.split(r"[,，;；]", _IDIOMS.sub(" ", text.lower())):
        negations = [m.start() for m in (*_NEG_EN.finditer(clause), *_NEG_ZH.finditer(clause))]
        spots = [m.start() for token in shared for m in re.finditer(re.escape(token), clause)]
        reach = 8 if _CJK_RUN.search(clause) else 30  # characters: a few Chinese words, a few English ones
        if any(abs(n - t) <= reach for n in negations for t in spots):
            return True
    return False


def contradicts(newer: str, older: str) -> str | None:
    """Why ``newer`` contradicts ``older`` (a short reason), or None."""
    if is_question(newer) or is_question(older):
        return None
    a, b = content(newer), content(older)
    shared = a & b
    if not shared or not a or not b:
        return None
    jaccard = len(shared) / len(a | b)
    about = len(shared) / len(a)  # how much of the newer statement is about the older one
    changed = sorted(k for k, v in values(newer).items() if (w := values(older).get(k)) and not v & w)
    negation = negated(newer) != negated(older)
    cue = bool(_CHANGE.search(newer.lower()))
    covered = len(shared) / len(b)  # how much of the older statement the newer one speaks of
    if changed and changed != ["name"]:  # another value in the same frame as (most of) the older statement
        found = (
            jaccard >= 0.5
            or (covered >= 0.5 and about >= (0.15 if cue else 0.25))
            or (about >= (0.34 if cue else 0.5) and covered >= 0.2)
        )
    elif changed:  # another name only (names are also listed, recommended, addressed): the same frame
        found = jaccard >= 0.5 or (cue and about >= 0.5)
    elif negation:  # a negation next to what both are about, which the newer covers most of
        negative = newer if negated(newer) else older
        if _IMPERATIVE.match(negative.lower()):
            return None  # "don't worry…", "别担心…": advice, not a claim
        near = _negation_near(negative, shared)
        found = near and (jaccard >= 0.5 or (about >= 0.3 and covered >= 0.5))
    else:
        return None
    if not found:
        return None
    signal = f"a changed {', '.join(changed)}" if changed else "a negation"
    return f"about the same ({', '.join(sorted(shared)[:4])}; similarity {jaccard:.2f}) with {signal}"


def anchors(text: str) -> frozenset[str]:
    """The tokens a bank indexes a memory under, to find what a new statement may contradict."""
    return content(text)
