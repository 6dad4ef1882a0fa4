"""Whether the words after "my"/"我的" name an attribute of the speaker ("my car is a Tesla": ``car``), and
whether what a sentence says of that attribute is the speaker's statement of it. Pure."""

from __future__ import annotations

import re

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import values as vx

__all__ = ["named", "not_stated"]

# Nouns of talk, not attributes of the speaker: "my point is …", "我的意思是…".
_NOT_ATTRIBUTES = frozenset(
    "point question guess problem issue concern worry bet idea hope feeling sense impression opinion view take thought"
    " plan plans goal answer reason excuse fault bad pleasure turn mistake understanding experience advice"
    " suggestion request mind"
    " 意思 问题 想法 看法 意见 感觉 建议 要求 观点 理解 经验 原因 错 天 计划 打算 安排".split()
)
_NOUN_EN = re.compile(r"[a-z]+(?: [a-z]+){0,2}")
_NOUN_ZH = re.compile(r"[\u4e00-\u9fff]{1,4}")


def named(raw: str, span: str) -> str | None:
    """An attribute named by its noun after "my"/"我的" ("my car is a Tesla": ``car``); not talk, nor others'."""
    words = raw.split()
    # The speaker's own things only: "our office is at …" is a team's, whose disputes link the episode.
    possessed = re.match(r"my\s", span, re.I) or re.match(r"我(?:现在|目前|如今)?的", span)
    if not possessed or not words or raw in _NOT_ATTRIBUTES or words[-1] in _NOT_ATTRIBUTES:
        return None
    if not (_NOUN_EN.fullmatch(raw) or _NOUN_ZH.fullmatch(raw)) or words[0] in lx.EN_STOPWORDS | set(lx.RELATIONS):
        return None
    return None if raw.startswith(vx.ZH_KIN) else vx.slug(raw)  # nor a relative named ("我的同事王芳是律师")


# "my kids are driving me crazy", "my parents are chipping in": what they are doing, not what an attribute is;
# "my GP says my cholesterol is borderline": someone else's word
_DOING = re.compile(r"\s+are\s+(?-i:[a-z]+ing)\s+\w", re.I)
_THEIR_WORD = re.compile(r"\b(?:says|said|thinks|reckons|told\s+me)\s+(?:that\s+)?$", re.I)


def not_stated(m: re.Match[str]) -> bool:
    """Whether an attribute's match (groups ``a`` and ``v``) says no value of it: what its holders are doing, or
    someone else's word about it."""
    return _DOING.match(m.string, m.end("a")) is not None or _THEIR_WORD.search(m.string, 0, m.start()) is not None
