"""What kind of answer a query asks for, and whether a memory's text can give it; pure.

A question that asks *when* ("When did…", "How long has…", "什么时候", "多久") is answered by a memory
that says when: a date, a month, a weekday, or a time relative to when it was said ("yesterday",
"two weekends ago", "last year", "上周", "三天前"). The memory's own time (``valid_from``) is when it
was *said*; what it says happened may lie before or after, and only its words tell. A candidate that
names no time at all can still be the answer (the event may be dated by the session alone), so this
only reorders candidates the searches found (``recall.scoring``), never adds or removes one.

Only the question is read for what it asks: of a query of several lines (a dialogue so far), its last
line; "你上次是什么时候去的" said three turns earlier does not make the dialogue ask when. (Asking
*where*, boosting memories that name a place, was tried and dropped: docs/benchmarks.md.)

A question about how things stand now ("what do I use now?", "最后定的是哪天？", "现在几点开始？") is
answered by the latest word on its topic, which is most often a memory that says what changed ("改到周日了",
"switched to the 8:15 train", "记错了，是8号线"). Said the first time, a plan or a setting holds until such a
memory revises it; the revision names the new value and seldom repeats all the words of the first one, so
it ranks below it on words and meaning alone.
"""

from __future__ import annotations

import re

# The question asks for a time: a point ("when did…", "what year", "which month", "what date"), a span
# ("how long", "how many days/weeks/months/years", "since when") or, in Chinese, 什么时候 / 何时 /
# 哪年 / 哪一年 / 几月 / 哪个月 / 哪天 / 几号 / 多久 / 多长时间 / 几年 / 几天. "When" asks only as a
# question word (first, or before an auxiliary), not as a conjunction ("who helps her when she…").
_AUX = r"did|does|do|is|was|were|will|are|am|has|have|had|can|could|should|would|shall|may|might"
_ASKS_WHEN = re.compile(
    rf"^\W*when\b|\bwhen\s+(?:{_AUX})\b|\bhow\s+long\b|\bsince\s+when\b|\bhow\s+many\s+(?:days|weeks|weekends|months|years)\b"
    r"|\b(?:what|which)\s+(?:year|month|day|date|time|week|season)\b"
    r"|什么时候|何时|哪(?:一)?年|几月|哪个月|哪(?:一)?天|几号|多久|多长时间|几年|几天|几个月|几周",
    re.I,
)

_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|march|apr(?:il)?|june|july|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?"
    r"|nov(?:ember)?|dec(?:ember)?"
)  # "may" and "mar" left out: mostly not months in running text
_UNIT = r"(?:days?|nights?|weeks?|weekends?|months?|years?|decades?|hours?|minutes?)"
_NUM = (
    r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|few|several|couple(?:\s+of)?)"
)
# The text says when: an absolute date or year, a named month, weekday or season, a time relative to
# when it was said, or a span. English words are whole words; Chinese expressions are matched as written.
_SAYS_WHEN = re.compile(
    rf"\b(?:{_MONTH})\b"
    r"|\b(?:19|20)\d{2}\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:spring|summer|autumn|fall|winter)\b"
    r"|\b(?:yesterday|today|tonight|tomorrow|recently|lately|earlier|ago|since|until|anniversary|birthday)\b"
    rf"|\b(?:last|next|this|past|coming|previous|every|each)\s+(?:{_UNIT}|{_MONTH}|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b"
    rf"|\b{_NUM}\s+{_UNIT}\b|\b(?:in|for|over)\s+the\s+past\b|\bback\s+in\b|\bas\s+a\s+(?:kid|child|teen(?:ager)?)\b"
    r"|\b(?:morning|afternoon|evening|weekend)\b"
    r"|[昨今明前后去]天|[昨今明]晚|[上下这本每]\s*(?:周|个?星期|个?礼拜|个?月)|[去今明前]年|年[初底末中]|月[初底末中]"
    r"|[上中下]旬|\d+\s*[年月日号]|[\d一二三四五六七八九十百两几半]+\s*(?:个多|多个|个)?\s*(?:小时|钟头|分钟|天|周|星期|礼拜|月|年)"
    r"|(?:[两二三四五六七八九]|十[一二]?|\d{1,2})\s*点|[上下中]午|晚上|早上|凌晨|傍晚"  # not 一点: "a little"
    r"|星期[一二三四五六日天]|周[一二三四五六日末]|礼拜[一二三四五六日天]|[春夏秋冬][天季]|暑假|寒假|最近|以前|小时候|那时",
    re.I,
)


# The question asks how things stand now, or how they ended: "now", "currently", "these days", "in the
# end", "ended up", "final", "at this point", "after all"; 现在 / 目前 / 如今 / 眼下 / 最终 / 最后 / 当前 / 还在,
# and 到底 / 究竟 (the settled answer, after what was said before).
_ASKS_CURRENT = re.compile(
    r"\b(?:now|currently|current|these\s+days|nowadays|at\s+the\s+moment|any\s*more|latest|in\s+the\s+end"
    r"|ended\s+up|eventually|final(?:ly)?|at\s+this\s+point|as\s+it\s+stands|after\s+all)\b"
    r"|现在|目前|如今|眼下|当前|最终|最后|终于|还在|仍然|最新|到底|究竟",
    re.I,
)
# The text says something changed: a change of plan, setting or choice, or a correction of what was said.
_SAYS_CHANGE = re.compile(
    r"\b(?:chang(?:e|ed|ing)\s+(?:it|them|that|the|my|our|to)|switch(?:ed|ing)?\s+(?:to|over)|mov(?:ed|ing)\s+(?:it|to)"
    r"|reschedul\w*|postpon\w*|push(?:ed)?\s+(?:it\s+)?back|brought\s+(?:it\s+)?forward|instead|no\s+longer"
    r"|not\s+\w+\s+any\s*more|any\s*more|actually|turns\s+out|ended\s+up|went\s+with|settled\s+on|swapp?ed"
    r"|replac(?:ed|ing)|upgraded|downgraded|cancel+ed|called\s+off|decided|changed\s+my\s+mind|i\s+was\s+wrong"
    r"|correction|now\s+(?:it's|it\s+is|we|i|they|the)"
    # a value moved up or down, a plan that fell through, a thing renamed or redone
    r"|(?:talked|knocked|haggled|beat)\s+(?:\w+\s+){0,2}down"
    r"|(?:went|gone|going|goes|bumped|dropped|raised|lowered|reduced|increased|cut)\s+(?:[\w']+\s+){0,3}?"
    r"(?:to|by)\s+[$£€¥]?\d[\d,.]*\w*|(?:price|rent|cost|fee|rate|quote)s?\s+(?:\w+\s+){0,2}?(?:went|gone|going|goes)\s+(?:up|down)"
    r"|renam(?:e|ed|ing)|re-?did|redone"
    r"|revised|update\s+on|change\s+of\s+plans?|fell\s+through|backed\s+out|pulled\s+out|(?:is|are)\s+off\s+now"
    r"|can(?:'t|not)\s+make\s+it)\b"
    r"|改[成到为在用了回掉期名]|换[成到了回用掉]|调整|调到|推迟|推到|推后|挪到|往后[挪推]|往前[挪推]|延期|延后|延长|缩短"
    r"|提前到|提前了|取消了|不再|改主意|记错|搞错|更名|重新[定约订选]"
    r"|后来|最后|最终|变成|变了|减[成到少]|加到|降到|降了|降价|升到|涨到|涨了|涨价|砍到|砍价|砍了|搬到|搬去|转到|定下来"
    r"|敲定|决定|[去来买要订]不了了|不[去来买要订]了",
    re.I,
)

_SPEAKER = re.compile(r"^[^:：\n]{1,40}[:：]\s*")  # "Bart: …", a dialogue line's speaker


def question(query: str) -> str:
    """What a query asks: of a query of several lines (a dialogue so far), its last line without its speaker."""
    lines = query.strip().splitlines()
    return _SPEAKER.sub("", lines[-1], count=1) if len(lines) > 1 else query


def asks_when(query: str) -> bool:
    """The query asks for a time or a span of time."""
    return _ASKS_WHEN.search(question(query)) is not None


def says_when(text: str) -> bool:
    """The text names a time: a date, month, weekday, season, or a time relative to when it was said."""
    return _SAYS_WHEN.search(text) is not None


def asks_current(query: str) -> bool:
    """The query asks how things stand now or how they ended ("now", "currently", "最终", "现在")."""
    return _ASKS_CURRENT.search(question(query)) is not None


def says_change(text: str) -> bool:
    """The text says that something changed or was corrected ("改到周日了", "switched to", "记错了")."""
    return _SAYS_CHANGE.search(text) is not None
