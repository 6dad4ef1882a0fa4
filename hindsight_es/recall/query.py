"""Query parsing: time range, names and script of a recall query (no model, no LLM)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from hindsight_es.extraction.scripts import plain
from hindsight_es.recall.amounts import asks_amounts
from hindsight_es.recall.answertype import asks_current, asks_when, question
from hindsight_es.recall.mentions import mentions_latin, word_names
from hindsight_es.recall.timeparse import parse_time_range
from hindsight_es.text import has_cjk

_NAME = re.compile(r"\b([A-Z][a-z]+(?:['’]s)?)\b")
_NOT_NAMES = {
    "What",
    "When",
    "Where",
    "Who",
    "Why",
    "How",
    "Which",
    "Did",
    "Does",
    "Do",
    "Is",
    "Are",
    "Was",
    "Were",
    "The",
    "A",
    "An",
    "In",
    "On",
    "At",
    "Has",
    "Have",
    "Had",
    "Can",
    "Could",
    "Would",
    "Will",
    "Should",
    "I",
    "My",
    "Our",
    "We",
    "You",
    "Your",
    "It",
    "This",
    "That",
    "Last",
    "Next",
    "If",
    "And",
    "Or",
    "But",
}


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str
    cjk: bool
    since: datetime | None
    until: datetime | None
    names: frozenset[str]  # lower-cased capitalised words that may be speakers or entities
    asks_when: bool = False  # the query asks for a time or a span (``recall.answertype``)
    asks_current: bool = False  # the query asks how things stand now (``recall.answertype``)
    asks_amounts: frozenset[str] = frozenset()  # money, age (``recall.amounts``)


def parse_query(text: str, now: datetime | None = None) -> ParsedQuery:
    now = now or datetime.now(UTC)
    found = parse_time_range(text, now)
    # \b does not part "Lin" from "喜欢" (both are word characters): in Chinese a name ends at its last letter
    capitalised = (_ENTITY_IN_CJK if has_cjk(text) else _NAME).findall(text)
    names = frozenset(
        m.removesuffix("'s").removesuffix("’s").lower()
        for m in capitalised
        if m.removesuffix("'s").removesuffix("’s") not in _NOT_NAMES
    )
    return ParsedQuery(
        text=text,
        cjk=has_cjk(text),
        since=found[0] if found else None,
        until=found[1] if found else None,
        names=names,
        asks_when=asks_when(text),
        asks_current=asks_current(text),
        asks_amounts=asks_amounts(question(text)),
    )


# Capitalised words that name a time or a language, not someone or something a memory must mention.
_NOT_ENTITIES = {
    *("january february march april may june july august september october november december".split()),
    *("monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday".split()),
    *("christmas easter halloween thanksgiving".split()),
    *("english chinese mandarin cantonese".split()),
    # people everyone has, whom a memory calls by a role ("妈妈", "my mother"), not by this word
    *("mom mum mommy mummy dad daddy mama papa grandma grandpa granny grandad".split()),
}
# After a space or tab, not at a sentence's or a line's start, nor after a speaker's "Bart: "
_ENTITY = re.compile(r"(?<![.!?。！？:：]\s)(?<=[ \t])([A-Z][a-z]+)(?:['’]s)?\b")
# In Chinese a capital opens no sentence: a capitalised Latin word anywhere is a name ("Caroline喜欢什么？")
_ENTITY_IN_CJK = re.compile(r"(?<![A-Za-z])([A-Z][a-z]+)(?:['’]s)?(?![a-z])")


def entities(text: str) -> frozenset[str]:
    """The lower-cased capitalised words of ``text`` inside a sentence (the first word of a sentence is
    capitalised whatever it is), other than question words and names of times: the people, places and
    things a question is about."""
    found = (_ENTITY_IN_CJK if has_cjk(text) else _ENTITY).findall(text)
    return frozenset(w.lower() for w in found if w not in _NOT_NAMES and w.lower() not in _NOT_ENTITIES)


def unmentioned(names: frozenset[str], rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The ``names`` that no row mentions: not its speaker's name (or a short form of it), not a word of
    its text (or the start of one: "Postgres" in "PostgreSQL"); in a Chinese text, not in its Latin words
    or in pinyin (``recall.mentions``)."""
    left = set(names)
    for row in rows:
        if not left:
            break
        speaker = (row.get("speaker") or "").split()
        text = str(row.get("text") or "")
        cjk = has_cjk(text)
        words = [] if cjk else _WORD.findall(text.lower())
        if speaker:
            words.append(speaker[0].lower())
        left = {n for n in left if not any(word_names(w, n) for w in words)}
        if left and cjk:
            left = {n for n in left if not mentions_latin(n, row)}
    return sorted(left)


_WORD = re.compile(r"[^\W\d_]+")


def without_names(text: str, names: frozenset[str]) -> str:
    """``text`` without the words ``names`` holds (lower-cased, possessive or not), spaces collapsed."""

    def keep(match: re.Match[str]) -> str:
        return "" if match.group(1).removesuffix("'s").removesuffix("’s").lower() in names else match.group(0)

    return " ".join(_NAME.sub(keep, text).split())


def in_both_scripts(query: str) -> str:
    """``query``, and after it its Simplified form when that differs (a question in Traditional Chinese), with
    Taiwan's words as the mainland says them (opencc tw2sp, ``extraction.scripts.plain``: 資料庫 -> 数据库): what
    recall searches the n-grams with and embeds. The embedder reads Simplified far better than Traditional
    (数据库 and 數據庫 are 0.42 and 0.03 from "团队的数据库：PostgreSQL"), and the query as written still matches
    memories written in Traditional; one text, so still one model call."""
    said = plain(query)
    return query if said == query else f"{query} {said}"
