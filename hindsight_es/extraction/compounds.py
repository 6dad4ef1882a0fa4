"""A drink said with the words that make it one kind of its kind: "喝珍珠奶茶" is bubble tea (the lexicon knows
it), "喝港式奶茶" is 港式奶茶, not just milk tea. The modifiers are the Chinese words between the verb or the
measure word that takes the drink as its object and the drink the lexicon knows; in English, a word before the
drink that says which kind of it is ("black coffee", "decaf lattes"). Pure."""

from __future__ import annotations

import re

from hindsight_es.extraction import values as vx

__all__ = ["modified", "singular"]

# Only after what takes the drink as its object ("喝", "来一杯", "一杯"): the words there are the drink's.
# Words that are not part of a drink's name end the modifiers, and with them the compound: a particle or
# an adverb ("喝了奶茶", "喝的是奶茶", "都喝奶茶"), a count or an amount ("喝点奶茶", "喝很多奶茶"), a verb.
_NOT_A_MODIFIER = (
    "了的地得都也还就只要是在和跟与或把被给从向对为以及着过"
    + "个杯瓶罐壶碗口些点每常多少很太最再又才先不没别"
    + "去来喝吃爱用想会能该天年月次回遍"
)
_MODIFIERS = re.compile(rf"(?:喝|[一两几半]?[杯瓶罐壶碗])(?P<mod>[^\W\d_A-Za-z{_NOT_A_MODIFIER}]{{1,4}})$")
# How a cup is made or served is not which drink it is ("现磨豆浆" is soy milk, "冰拿铁" a latte, as the lexicon
# has "热美式" an americano): these open no compound, and what follows them may.
_AS_SERVED = re.compile(r"^(?:现[磨煮泡做榨打冲]|鲜榨|自制|自己打的|手工|手作|新鲜|冰镇|常温|热|冰|温)")
# The English words that make a drink one kind of its kind (how strong or sweet it is makes none: "strong coffee").
_KIND_EN = re.compile(r"\b(?P<mod>black|decaf|decaffeinated|iced)\s+$", re.I)


def modified(text: str, at: int, said: str, category: str) -> tuple[int, str] | None:
    """Where the drink ``said`` at ``at`` starts with its modifiers, and the whole as said ("喝港式奶茶" ->
    "港式奶茶"); None when nothing modifies it. A modifier that is itself a drink is left to the head rule
    (``updates.mentions``: "燕麦奶拿铁" is a latte, made with oat milk), how it is served is no kind of it
    (``_AS_SERVED``), and English drinks keep their head alone ("I drink oat milk lattes" is a latte, as the
    labelled sets have it) unless a word of ``_KIND_EN`` says which kind ("decaf lattes" -> "decaf latte")."""
    if category != "drink":
        return None
    if said.isascii():
        kind = _KIND_EN.search(text, 0, at)
        return (kind.start(), f"{kind['mod'].lower()} {singular(said)}") if kind else None
    found = _MODIFIERS.search(text, 0, at)
    if found is None or vx.ALIAS_RE.search(found["mod"]):
        return None
    served = _AS_SERVED.match(found["mod"])
    mod = found["mod"][served.end() :] if served else found["mod"]
    return (at - len(mod), mod + said) if mod else None


def singular(said: str) -> str:
    """An English drink as said, lowercased and in the singular when the lexicon knows that ("lattes" -> "latte")."""
    low = said.lower()
    one = low[:-2] if low.endswith("es") and low[:-2] in vx.ALIASES else low[:-1] if low.endswith("s") else low
    return one if one in vx.ALIASES else low
