"""Which script a text is in (one definition of CJK for the embedder, the projections and recall), and the
one-line forms of what is wrong with an input: a validation error, a control or bidirectional character."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError

# An English month, named or abbreviated, as a regex alternation (no group): memory, recall and extraction read
# the months of dates alike.
MONTH_NAMES = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")  # kana, CJK ideographs, hangul
CJK_RUN = re.compile(_CJK.pattern + "+")
_SPACE = re.compile(r"\s")
# Emoji and the joiners between them: pictures, not words (the write filter and the extractor's matching copy)
EMOJI = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\ufe0f\u200d]+")
# The C0 control characters but tab, newline and carriage return: never part of what someone said, so a text
# holding one is refused at every door (retain, publish, correct) before anything is written.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f"
# The bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) reorder how the text
# around them is shown: a memory could read one way in a prompt or the dashboard and say another ("Trojan
# Source"). Refused as the control characters are. The marks right-to-left text uses (U+200E LRM, U+200F RLM,
# U+061C ALM) only set the direction at their own place, and pass; so does Arabic or Hebrew without them.
BIDI = r"\u202a-\u202e\u2066-\u2069"
REFUSED = CONTROL + BIDI  # every character no text may hold, as a regex class body
_CONTROL = re.compile(f"[{CONTROL}]")
_REFUSED = re.compile(f"[{REFUSED}]")


# Two or more white-space characters in a row (one pass, linear: the run is taken whole where it starts).
_SPACE_RUN = re.compile(r"\s{2,}")


def flattened(text: str) -> str:
    """``text`` with every run of white space one character long: a run with a line break in it reads as
    that break, any other as one space, as the rules read a turn. A pattern that can split a run between two
    of its parts (``.+?`` then ``\\s*,?\\s+``) tries every split, and a run of thousands of spaces took it
    minutes; no rule tells one space from many."""
    return _SPACE_RUN.sub(lambda run: "\n" if "\n" in run[0] else " ", text)


def plural(count: int, one: str, many: str | None = None, *, grouped: bool = False) -> str:
    """``1 turn``, ``2 turns``: a count with its noun (``many`` where adding an s is wrong); ``grouped``:
    thousands separated (``1,200,000 events``)."""
    return f"{count:{',' if grouped else ''}} {one if count == 1 else (many or one + 's')}"


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


def control_character(text: str) -> str | None:
    """What is wrong with ``text`` as something said, as one line naming the character: its first control
    character other than tab, newline and carriage return (``CONTROL``) or bidirectional embedding, override
    or isolate (``BIDI``); None when it holds none."""
    found = _REFUSED.search(text)
    if found is None:
        return None
    where = f"(U+{ord(found.group()):04X}) at character {found.start()}"
    if _CONTROL.match(found.group()):
        return f"a control character {where}: only tab, newline and carriage return may be in a text"
    return (
        f"a bidirectional embedding, override or isolate {where}: it reorders how the text around it is shown; "
        "use the marks U+200E, U+200F or U+061C"
    )


# Where pydantic's ``loc`` says more than the field: the part of a request FastAPI puts first, and the
# member of a union it tried (``literal['a','b']``, ``function-after[...]``), which names no field.
_REQUEST_PARTS = frozenset({"body", "query", "path", "header", "cookie", "form"})


def first_error(
    errors: ValidationError | Sequence[Mapping[str, Any]], field: Callable[[str], str] | None = None
) -> str:
    """A validation error as one line, the same at every door: ``where: message``, where ``where`` is the
    dotted path to the first error's field (``memories.0.kind``; no path: the message alone). ``errors`` is
    a pydantic ``ValidationError`` or its ``errors()`` (FastAPI's too); ``field`` names the path as the
    caller knows it (the CLI's settings: ``HINDSIGHT_…``)."""
    found: Sequence[Mapping[str, Any]] = errors if isinstance(errors, Sequence) else errors.errors()
    if not found:
        return "invalid input"
    first = found[0]
    loc = list(first.get("loc", ()))
    if len(loc) > 1 and loc[0] in _REQUEST_PARTS:  # ("query",) alone is a field of that name
        loc = loc[1:]
    where = ".".join(str(p) for p in loc if not (isinstance(p, str) and "[" in p))
    message = str(first.get("msg", "invalid"))
    if where and field is not None:
        where = field(where)
    return f"{where}: {message}" if where else message
