"""Which script a text is in: one definition of CJK for the embedder, the projections and recall."""

from __future__ import annotations

import re
from functools import lru_cache

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")  # kana, CJK ideographs, hangul
CJK_RUN = re.compile(_CJK.pattern + "+")
_SPACE = re.compile(r"\s")
# Emoji and the joiners between them: pictures, not words (the write filter and the extractor's matching copy)
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d]+")


def plural(count: int, one: str, many: str | None = None) -> str:
    """``1 turn``, ``2 turns``: a count with its noun (``many`` where adding an s is wrong)."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def has_cjk(text: str) -> bool:
    """Whether the text has any CJK character."""
    return bool(_CJK.search(text))


def is_cjk(text: str, share: float = 0.2) -> bool:
    """Whether CJK characters make up at least ``share`` of the non-space characters (regex counts: the
    projection asks this of every memory it retains, a rebuild of hundreds of thousands)."""
    if not _CJK.search(text):
        return False
    chars = len(text) - len(_SPACE.findall(text))
    return len(_CJK.findall(text)) / chars >= share


def simplified(text: str) -> str:
    """``text`` with Traditional Chinese written in Simplified (陳醫生 -> 陈医生); other text as it is."""
    return str(_t2s().convert(text)) if _CJK.search(text) else text


@lru_cache(maxsize=1)
def _t2s():  # type: ignore[no-untyped-def]  # opencc ships no type hints
    import opencc

    return opencc.OpenCC("t2s")
