"""Whether a Chinese clause opens with a person's name, and whether a word is one. "王伟的团队把支付系统迁到了
PostgreSQL", "谢梓轩每天下午都喝普洱茶" are about 王伟's team and 谢梓轩, not the speaker, who in Chinese often
goes unsaid ("每天下午都喝普洱茶" is the speaker's own habit); "我是许晴" introduces the speaker. Names have no
capital letters here, so jieba's part-of-speech tagger decides (tags ``nr*``: a person's name, from its
dictionary and its HMM for unseen names). Its dictionary loads on first use (about 2 s), which only a clause
with a choice keyed on the speaker and no pronoun, or a "我是…" that may be a self-introduction, asks for."""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from hindsight_es.text import CJK_RUN

_LOCK = threading.Lock()
_TAGGER: Any = None


def tagger() -> Any:
    global _TAGGER
    with _LOCK:
        if _TAGGER is None:
            import jieba
            import jieba.posseg

            jieba.setLogLevel(logging.WARNING)
            _TAGGER = jieba.posseg
        return _TAGGER


@lru_cache(maxsize=4096)
def opens_with_a_name(clause: str) -> bool:
    """The clause's first word is a person's name of two or more characters (小王, 王伟, 曹桂英)."""
    text = clause.lstrip()
    first = CJK_RUN.match(text)
    if first is None or first[0][0] in "我咱你":  # a pronoun opens it: no tagger needed
        return False
    for pair in tagger().cut(first[0]):
        return bool(pair.flag.startswith("nr") and len(pair.word) >= 2)
    return False


@lru_cache(maxsize=4096)
def is_person_name(word: str) -> bool:
    """``word`` is a person's name alone ("许晴", "小王", "周明远"), not a role or an origin ("老师", "上海人")."""
    tokens = list(tagger().cut(word))
    if not tokens or not tokens[0].flag.startswith("nr"):
        return False
    return len(tokens) == 1 and len(word) >= 2 or len(tokens[0].word) == 1 and len(word) in (2, 3)
