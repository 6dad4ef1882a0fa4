"""The guard's matching copy of a text, built so that obfuscation cannot step around the rules.

``normalize_for_scan(text)`` returns what the rules read, and what was hidden or encoded in it:

- markup is parsed (``html.parser``), not regexed: comments and the text of hidden elements
  (``display:none``, ``hidden``, ``aria-hidden``, zero font size, white text, scripts and styles) are
  taken out of the visible text and scanned on their own, as are markdown comments (``[//]: # (…)``);
- Unicode tag characters (U+E0000–E007F, "ASCII smuggling") are decoded into hidden text and removed;
  invisible and bidi characters and supplementary variation selectors are removed and counted;
- NFKC and case folding, then Traditional → Simplified Chinese (``opencc``), then the TR39 confusable
  skeleton (``confusable-homoglyphs``' data) maps Cyrillic, Greek and other look-alike letters to Latin;
- a leetspeak reading ("1gn0r3") is kept beside the text, not instead of it (keys and codes have digits);
- payloads that look encoded (base64, hex, percent-encoding, and ROT13 next to a decode hint) are
  decoded and kept as hidden text when they decode to readable text.

Pure and deterministic: the same text always gives the same copy, so replays reach the same verdicts.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import html
import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from importlib import resources
from urllib.parse import unquote

from hindsight_es.text import simplified

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_INVISIBLE = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\u00ad\u180e\u034f]")
_SPLITTERS = "[\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\u180e]"  # not the soft hyphen
_TAGS = re.compile("[\U000e0000-\U000e007f]+")
_VARIATION = re.compile("[\U000e0100-\U000e01ef]")
_B64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9a-zA-Z])(?:[0-9a-fA-F]{2}[ :]?){8,}(?![0-9a-fA-F])")
_PERCENT = re.compile(r"(?:%[0-9a-fA-F]{2}){4,}")
_DECODE_HINT = re.compile(
    r"rot-?13|caesar|decode|decoded|decipher|decrypt|base-?64|unscramble|reverse (?:it|this)|解码|解密|译码|凯撒|编码"
)
_MD_COMMENT = re.compile(r"^[^\S\n]*\[(?://|comment|hidden)\]:\s*#\s*[(\"'](.*?)[)\"']\s*$", re.M | re.I)
_HIDDEN_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])"
    r"|color\s*:\s*(?:white|#fff(?:fff)?)\b"
)
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "|": "l"})
_LEET_WORD = re.compile(r"(?<![a-z0-9@$|])[a-z0-9@$|]*[a-z][a-z0-9@$|]*")  # from a run's start: linear
_VOID = {"br", "img", "hr", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"}


@dataclass(frozen=True, slots=True)
class Normalized:
    """``text``: the visible text as the rules read it; ``plain``: the same text only case-folded (what a
    naive matcher would see, to tell what normalization revealed); ``leet``: a leetspeak reading of
    ``text`` when it differs; ``hidden``: normalized hidden or decoded segments; ``flags``: what was found."""

    text: str
    plain: str
    leet: str | None = None
    hidden: tuple[str, ...] = ()
    flags: dict[str, int] = field(default_factory=dict)


def normalize_for_scan(text: str) -> Normalized:
    flags: dict[str, int] = {}
    hidden: list[str] = []
    raw = text
    tags = _TAGS.findall(raw)
    if tags:
        flags["tag_characters"] = sum(len(t) for t in tags)
        hidden += [s for t in tags if len(s := _untag(t).strip()) >= 3]
        raw = _TAGS.sub("", raw)
    if n := len(_VARIATION.findall(raw)):
        flags["variation_selectors"] = n
        raw = _VARIATION.sub("", raw)
    visible, markup = _markup(raw)
    hidden += markup
    if markup:
        flags["hidden_markup"] = len(markup)
    if inside := _split_words(visible):
        flags["invisible_in_words"] = inside
    if n := len(_INVISIBLE.findall(visible)):
        flags["invisible"] = n
    plain = _fold(visible)
    folded = _fold(_INVISIBLE.sub("", visible))
    skeleton, confusable = _skeleton(folded)
    if confusable:
        flags["confusable_words"] = confusable
    decoded = _decoded(visible)
    if decoded:
        flags["encoded_payloads"] = len(decoded)
        hidden += decoded
    leet = _LEET_WORD.sub(_deleet, skeleton)
    return Normalized(
        text=skeleton,
        plain=plain,
        leet=leet if leet != skeleton else None,
        hidden=tuple(dict.fromkeys(_skeleton(_fold(_INVISIBLE.sub("", h)))[0] for h in hidden if h.strip())),
        flags=flags,
    )


def _fold(text: str) -> str:
    """NFKC, case folding, Traditional -> Simplified, one space."""
    return " ".join(simplified(unicodedata.normalize("NFKC", text).casefold()).split())


@lru_cache(maxsize=1)
def _to_latin() -> dict[str, str]:
    """Non-ASCII letters whose TR39 confusables include an ASCII letter or digit -> that character.

    CJK characters and full-width forms (NFKC maps those already) are left alone.
    """
    data = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii() or _CJK.match(char) or not char.isalpha():
            continue
        latin = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalnum()]
        letters = [c for c in latin if c.isalpha()]
        if letters or latin:
            out[char] = (letters or latin)[0].lower()
    return out


def _skeleton(text: str) -> tuple[str, int]:
    """Look-alike letters mapped to Latin inside words that have Latin letters (a Cyrillic "о" in "ignоre"),
    and in words made only of look-alikes when the text around them is Latin; returns the count of words
    changed. Words of real Cyrillic or Greek text among Latin ones are left alone unless every letter maps."""
    if text.isascii() or all(c.isascii() or not c.isalpha() or _CJK.match(c) for c in text):
        return text, 0  # no letter the table maps (it leaves CJK out): its load (0.2-0.5 s) is not needed
    table = _to_latin()
    changed = 0
    latin_text = sum(c.isascii() and c.isalpha() for c in text) > len(text) / 3

    def fix(match: re.Match[str]) -> str:
        nonlocal changed
        word = match[0]
        if word.isascii():
            return word
        has_latin = any(c.isascii() and c.isalpha() for c in word)
        mappable = [c for c in word if not c.isascii() and c.isalpha()]
        if not mappable or not (has_latin or (latin_text and all(c in table for c in mappable))):
            return word
        out = "".join(table.get(c, c) for c in word)
        if out != word:
            changed += 1
        return out

    return re.sub(r"[^\W\d_]+", fix, text), changed


def _deleet(match: re.Match[str]) -> str:
    word = match[0]
    if sum(c.isalpha() for c in word) < 2 or word.isalpha():
        return word
    return word.translate(_LEET)


def _split_words(text: str) -> int:
    """Invisible characters between two letters: a word split so a matcher does not see it."""
    return len(re.findall(rf"\w{_SPLITTERS}+\w", text))


def _untag(run: str) -> str:
    """Tag characters carry ASCII: U+E0041 is "A". A flag sequence's tags are a region code, not text."""
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


class _Markup(HTMLParser):
    """Comments and the text of hidden elements, apart from what a reader sees."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.visible: list[str] = []
        self.hidden: list[str] = []
        self._stack: list[bool] = []  # per open element: is it hidden

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            return
        values = {k: (v or "") for k, v in attrs}
        concealed = (
            tag in ("script", "style", "template")
            or "hidden" in values
            or values.get("aria-hidden", "").lower() == "true"
            or bool(_HIDDEN_STYLE.search(values.get("style", "").lower()))
        )
        self._stack.append(concealed or bool(self._stack and self._stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag not in _VOID and self._stack:
            self._stack.pop()

    def handle_comment(self, data: str) -> None:
        self.hidden.append(data)

    def handle_data(self, data: str) -> None:
        (self.hidden if self._stack and self._stack[-1] else self.visible).append(data)


def _markup(text: str) -> tuple[str, list[str]]:
    """(visible text, hidden segments). Text without markup is returned as it is (entities decoded)."""
    hidden = [m[1] for m in _MD_COMMENT.finditer(text)]
    text = _MD_COMMENT.sub(" ", text)
    if "<" not in text:
        return (html.unescape(text) if "&" in text else text), hidden
    head, sep, tail = text.partition("<!--")
    if sep and "-->" not in tail:  # an unterminated comment hides everything after it
        hidden.append(tail)
        text = head
    parser = _Markup()
    parser.feed(text)
    parser.close()
    # Tags are kept in the visible text as written (a "<tool_call>" or "<system>" is itself a signal); only
    # comments and the text of hidden elements leave it.
    kept = text
    for segment in (*(f"<!--{c}-->" for c in parser.hidden), *parser.hidden):
        kept = kept.replace(segment, " ", 1)
    return html.unescape(kept), hidden + [h for h in parser.hidden if h.strip()]


def _readable(data: bytes) -> str | None:
    """The text a decoded payload holds, if it is text: UTF-8, mostly printable, with words in it."""
    try:
        out = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\t" for c in out)
    words = re.findall(r"[^\W\d_]{3,}|[\u4e00-\u9fff]{2,}", out)
    return out if out and printable / len(out) > 0.9 and len(words) >= 2 else None


def _decoded(text: str) -> list[str]:
    found: list[str] = []
    for match in _B64.finditer(text):
        blob = match[0]
        if blob.isalpha() and (blob.islower() or blob.isupper()):
            continue  # a plain long word, not base64
        core = blob.rstrip("=")
        padded = core + "=" * (-len(core) % 4)
        try:
            data = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            continue
        if (out := _readable(data)) is not None:
            found.append(out)
    for match in _HEX.finditer(text):
        try:
            data = bytes.fromhex(re.sub(r"[ :]", "", match[0]))
        except ValueError:
            continue
        if (out := _readable(data)) is not None:
            found.append(out)
    for match in _PERCENT.finditer(text):
        if (out := _readable(unquote(match[0]).encode("utf-8", "surrogatepass"))) is not None:
            found.append(out)
    if _DECODE_HINT.search(text.lower()):
        found.append(codecs.decode(text, "rot13"))
    return found
