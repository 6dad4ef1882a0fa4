"""The write filter: a turn made only of pleasantries, acknowledgements and greetings (寒暄、确认) is no memory.

A turn is filler when every clause of it is: a run of filler phrases (``phrases.FILLER_EN`` /
``FILLER_ZH``), optionally addressed to someone by name ("Thanks, Caroline!", "你好，Lin"), or a
phatic question ("How are you?", "How can I help with the shop?", "有什么可以帮你的？"). One clause
with anything else in it ("thanks — and book the 9:00 train") keeps the whole turn. Filler stays in
the log and in the session's working memory; only long-term memory leaves it out. Pure.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import phrases
from hindsight_es.text import EMOJI

# Clauses: split at sentence and clause punctuation, dashes and ellipses.
_CLAUSES = re.compile(r"[,.!?;:，。！？；：、…~～\n]+|\s+[-–—]+\s*|[-–—]{2,}")
# Atomic groups: "哈哈哈…" or "hahaha" must not be re-split into every partition (exponential backtracking).


def _longest_first(phrases: tuple[str, ...]) -> str:
    """An atomic group keeps the first alternative that matches, so "sure thing" must come before "sure"
    and "谢谢提醒" before "谢谢你?": phrases by the length of their text without regex syntax."""
    return "|".join(sorted(phrases, key=lambda p: -len(re.sub(r"[\\()?+*:|\[\]]", "", p))))


_EN = re.compile(rf"(?:\s*(?>\b(?:{_longest_first(phrases.FILLER_EN)})\b))+\s*", re.I)
_ZH = re.compile(rf"(?:\s*(?>{_longest_first(phrases.FILLER_ZH)}))+\s*")
_PHATIC = re.compile("|".join(phrases.PHATIC_QUESTIONS), re.I)
_NAME = re.compile(r"[A-Z][a-z']+(?:\s+[A-Z][a-z']+)?")  # Latin names only: a CJK word could be anything


def _filler_clause(clause: str, first: bool) -> bool:
    bare = EMOJI.sub(" ", clause).replace("’", "'").strip(" \t'\"“”‘’()[]*")
    if not bare:
        return True
    if _PHATIC.fullmatch(bare):
        return True
    words = bare.replace("'", "")
    if _EN.fullmatch(words) or _ZH.fullmatch(words) or _mixed(words):
        return True
    return not first and _vocative(bare)  # "Thanks, Caroline!": a name alone, after a filler clause


def _vocative(text: str) -> bool:
    """A name someone is addressed by ("Caroline", "Mel"): capitalized Latin words, none a common word."""
    return _NAME.fullmatch(text) is not None and not any(w.lower() in lx.EN_STOPWORDS for w in text.split())


def _mixed(text: str) -> bool:
    """Filler phrases of both languages in one clause ("好的 thanks"), or a greeting and a name ("Hey Mel")."""
    rest = _ZH.sub(" ", _EN.sub(" ", text)).strip()
    if not rest:
        return True
    head = _EN.match(text) or _ZH.match(text)
    return head is not None and head.end() > 0 and _vocative(text[head.end() :].strip())


def is_filler(text: str) -> bool:
    """Whether the turn says nothing worth remembering (see the module)."""
    clauses = [c for c in _CLAUSES.split(text) if c.strip()]
    if not clauses:
        return not any(ch.isalnum() for ch in text) and bool(text.strip())
    return all(_filler_clause(c, i == 0) for i, c in enumerate(clauses))
