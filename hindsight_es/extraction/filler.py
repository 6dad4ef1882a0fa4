"""The write filter: a turn made only of pleasantries, acknowledgements and greetings (寒暄、确认) is no memory.

A turn is filler when every clause of it is: a run of filler phrases (``phrases.FILLER_EN`` /
``FILLER_ZH``), optionally addressed to someone by name ("Thanks, Caroline!", "你好，Lin"), or a
phatic question ("How are you?", "How can I help with the shop?", "有什么可以帮你的？"). Beside those
phrases a clause may be made of words that carry nothing alone (``phrases.LIGHT_*``: "that", "very",
"dear", "真", "就这样") and words of praise or thanks (``phrases.HEADS_*``: "kind", "helpful", "可爱"), so
"Thank you dear, that's very kind of you." is filler without being listed: the vocabulary composes, the
phrase list alone did not. A turn of light words only ("help me") is not filler; it needs one pleasantry.
Traditional Chinese is read as Simplified, and a letter held ("thank youuu", "soooo nice") as written once
or twice. One clause with anything else in it ("thanks — and book the 9:00 train") keeps the whole turn.
Filler stays in the log and in the session's working memory; only long-term memory leaves it out. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import phrases
from hindsight_es.text import CJK_RUN, EMOJI, simplified

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
# Phrases that are not a pleasantry by themselves beside light words: "you", "a lot", "please", particles.
_NOT_HEAD_EN = {"you", "all", "again", "earlier", "there", "everyone", "guys", "man", "mate", "dude", "so much",
                "very much", "a lot", "a ton", "a bunch", "a million", "heaps", "loads", "same", "please", "wait",
                "later"}  # fmt: skip
_NOT_HEAD_ZH = {"呢", "啦", "呀", "了", "吧", "的", "哈", "也是"}
_HEADS_EN = tuple(p for p in phrases.FILLER_EN if p not in _NOT_HEAD_EN) + phrases.HEADS_EN
_HEADS_ZH = tuple(p for p in phrases.FILLER_ZH if p not in _NOT_HEAD_ZH) + phrases.HEADS_ZH
_ANY_EN = re.compile(
    rf"(?:\s*(?>\b(?:{_longest_first(_HEADS_EN + tuple(_NOT_HEAD_EN) + phrases.LIGHT_EN)})\b))+\s*", re.I
)
_ANY_ZH = re.compile(rf"(?:\s*(?>{_longest_first(phrases.FILLER_ZH + phrases.HEADS_ZH + phrases.LIGHT_ZH)}))+\s*")
_HEAD = re.compile(rf"\b(?:{_longest_first(_HEADS_EN)})\b|{_longest_first(_HEADS_ZH)}", re.I)
_SCRIPTS = re.compile(r"(?<=[a-z0-9])(?=[^\x00-\x7f])|(?<=[^\x00-\x7f])(?=[a-z0-9])", re.I)
_ZH_CHARS = frozenset("".join(phrases.FILLER_ZH + phrases.HEADS_ZH + phrases.LIGHT_ZH))  # regex syntax is never CJK
_LATIN = re.compile(r"[a-z0-9]+", re.I)
# Every Latin word of a phrase, alternatives included ("no worries", "(?:good|fine)"): a superset
_EN_WORDS = frozenset(
    _LATIN.findall(
        " ".join(phrases.FILLER_EN + phrases.HEADS_EN + phrases.LIGHT_EN + phrases.HEADS_ZH + phrases.FILLER_ZH).lower()
    )
)
_HELD = re.compile(r"([a-z])\1{2,}", re.I)  # a letter three times or more: "youuu", "sooo"
_NAME = re.compile(r"[A-Z][a-z']+(?:\s+[A-Z][a-z']+)?")  # Latin names only: a CJK word could be anything


def _filler_clause(clause: str, first: bool) -> bool | None:
    """True: a pleasantry; None: only words that go with one (``_light``); False: content."""
    bare = EMOJI.sub(" ", clause).replace("’", "'").strip(" \t'\"“”‘’()[]*")
    if not bare:
        return True
    if _PHATIC.fullmatch(bare):
        return True
    words = bare.replace("'", "")
    if any(c not in _ZH_CHARS for run in CJK_RUN.findall(words) for c in run):
        return False  # a character no Chinese pleasantry has: content (most clauses, decided without a scan)
    plain = _unaccented(words)
    if any(not _known(w) and not w[0].isupper() for w in _LATIN.findall(plain)):
        return False  # a word no pleasantry has (a capitalized one may be a name someone is addressed by)
    if _EN.fullmatch(words) or _ZH.fullmatch(words) or _mixed(words):
        return True
    if not first and _vocative(bare):  # "Thanks, Caroline!": a name alone, after a filler clause
        return True
    return _light(_SCRIPTS.sub(" ", plain))  # "ok谢谢": a word boundary between the scripts


def _light(words: str) -> bool | None:
    """Whether a clause (unaccented, scripts apart) is made of pleasantries and light words: True with a
    pleasantry in it, None without one, False when any other word is there."""
    for text in _held(words):
        rest = _ANY_ZH.sub(" ", _ANY_EN.sub(" ", text))
        if not rest.strip():
            return True if _HEAD.search(text) else None
    return False


@lru_cache(maxsize=1 << 16)
def _known(word: str) -> bool:
    """Whether a Latin word (or, held, written twice or once) is one a pleasantry or a light word can be."""
    return any(w in _EN_WORDS or _ANY_EN.fullmatch(w) or _ANY_ZH.fullmatch(w) for w in _held(word.lower()))


def _held(text: str) -> tuple[str, ...]:
    """``text``, then with each letter held three times or more written twice, then once ("youuu": "youu",
    "you"), each form once."""
    return tuple(dict.fromkeys((text, _HELD.sub(r"\1\1", text), _HELD.sub(r"\1", text))))


def _unaccented(text: str) -> str:
    """Latin letters without their accents ("Touché"); other scripts as they are."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


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
    clauses = [c for c in _CLAUSES.split(simplified(text)) if c.strip()]
    if not clauses:
        return not any(ch.isalnum() for ch in text) and bool(text.strip())
    pleasantry = False
    for i, clause in enumerate(clauses):
        if (kind := _filler_clause(clause, i == 0)) is False:
            return False
        pleasantry = pleasantry or kind is True
    return pleasantry
