"""A Traditional Chinese sentence as the rules read it, and a statement back in the script its speaker wrote.

The patterns, the lexicon and the keys are Simplified, so a Traditional sentence is matched in its Simplified
form (``plain``: "我們公司用 MySQL 當資料庫" reads as "我们公司用 MySQL 当数据库"), and gets the keys and values
the Simplified sentence gets: keys are identifiers, and supersession needs one key per attribute whatever the
script. What the memory says to the user is written back in theirs (``as_written``). Pure.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from hindsight_es.extraction.schema import Candidate
from hindsight_es.text import has_cjk, simplified

__all__ = ["as_written", "plain", "written"]


@cache
def _converter(config: str) -> Any:
    import opencc  # ships no type hints

    return opencc.OpenCC(config)


def plain(sentence: str) -> str:
    """``sentence`` in Simplified with Taiwan's words as the mainland says them (tw2sp: 資料庫 -> 数据库, 伺服器
    -> 服务器, 程式 -> 程序), so the category words the lexicon and the patterns know are found; a sentence
    with no Traditional character is returned as it is (the Simplified path never changes)."""
    if not has_cjk(sentence) or simplified(sentence) == sentence:
        return sentence
    return str(_converter("tw2sp").convert(sentence))


def as_written(text: str, original: str) -> str:
    """``text``, made from ``plain(original)``, in the script ``original`` is in: the words it shares with the
    sentence are the speaker's own (臺北 stays 臺北, not 台北; 資料庫 stays 資料庫, not 数据库), the rest is
    converted with s2tw (Taiwan's standard characters, one for one: it keeps the length, so the alignment holds,
    and changes no vocabulary, which s2twp does: 用户 -> 使用者, wrong in Hong Kong). A Simplified or neutral
    ``original`` leaves ``text`` as it is."""
    said = plain(original)
    if said == original:
        return text
    converted = str(_converter("s2tw").convert(text))
    if len(said) != len(original) or len(converted) != len(text):  # no alignment: converted alone
        return converted
    out = list(converted)
    i = 0
    while i < len(text):
        length, at = _longest_shared(text, i, said, original)
        if length:
            out[i : i + length] = original[at : at + length]
        i += length or 1
    return "".join(out)


def written(candidate: Candidate, original: str) -> Candidate:
    """A candidate drawn from ``plain(original)`` with its statement and quote in ``original``'s script."""
    if plain(original) == original:
        return candidate
    quote = as_written(candidate.quote, original) if candidate.quote else candidate.quote
    return candidate.model_copy(update={"text": as_written(candidate.text, original), "quote": quote})


def _longest_shared(text: str, i: int, said: str, original: str) -> tuple[int, int]:
    """The longest run of ``text`` from ``i`` that the plain sentence holds where the speaker's own words say
    exactly that run (their tw2sp is it), and where: 資料庫 for 数据库, but not 伺服 for the 服务 of 云服务, which
    only tw2sp's 伺服器 -> 服务器 put in the sentence; (0, 0) when there is none."""
    if not has_cjk(text[i]):
        return 0, 0
    length = 0
    while i + length < len(text) and text[i : i + length + 1] in said:
        length += 1
    for size in range(length, 0, -1):
        run = text[i : i + size]
        at = said.find(run)
        if _converter("tw2sp").convert(original[at : at + size]) == run:
            return size, at
    return 0, 0
