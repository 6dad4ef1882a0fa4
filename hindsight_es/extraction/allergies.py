"""Allergies said without naming the allergen where the pattern expects it: "peanuts put me in hospital once,
I'm seriously allergic to them", "I can't have sesame, I'm allergic", "shellfish allergy here", "我花粉过敏".

The allergen is then a word of the sentence that names one (``ALLERGENS``): a pronoun or nothing after
"allergic" carries no memory by itself, and a bare "我X过敏" is only an allergy when X is an allergen
("我皮肤过敏" says where, not to what). The conventions of ``patterns``: group "v" the value, "n" a negation.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import values as vx
from hindsight_es.extraction.builders import Built, KeyValue
from hindsight_es.extraction.patterns import ADV, ZADV, V

# fmt: off
_EN = (
    "peanuts peanut nuts tree nuts cashews almonds walnuts hazelnuts pistachios shellfish shrimp prawns crab"
    " lobster fish seafood eggs egg milk dairy lactose gluten wheat soy soya sesame mustard celery penicillin"
    " amoxicillin aspirin ibuprofen sulfa latex pollen hay fever dust dust mites mold mould cats cat dander dogs"
    " bees bee stings wasps strawberries kiwi mango pineapple"
).split()
_EN_PHRASES = ("tree nuts", "dust mites", "bee stings", "hay fever", "cat dander")
_ZH = (
    "花生 坚果 腰果 核桃 杏仁 海鲜 虾 螃蟹 蟹 鱼 鸡蛋 蛋 牛奶 奶制品 乳制品 乳糖"
    " 麸质 小麦 大豆 黄豆 芝麻 芒果 菠萝 猕猴桃 草莓 桃子 青霉素 头孢 阿莫西林"
    " 阿司匹林 布洛芬 磺胺 乳胶 花粉 尘螨 灰尘 霉菌 猫毛 狗毛 宠物毛 酒精 蜂蜜 蜜蜂"
    " 柳絮 杨絮 紫外线"
).split()
# fmt: on
_ALLERGEN_EN = "|".join(sorted({*_EN, *_EN_PHRASES}, key=len, reverse=True))
_ALLERGEN_ZH = "|".join(sorted(set(_ZH), key=len, reverse=True))
_IN_SENTENCE = re.compile(rf"\b(?:{_ALLERGEN_EN})\b|{_ALLERGEN_ZH}", re.I)
_DEGREE_EN = r"(?:(?:very|severely|seriously|highly|deathly|extremely|super|really|quite|badly|mildly|slightly)\s+)*"

ALLERGY_BARE = (
    # "… I'm seriously allergic to them", "… I'm allergic." (the allergen is elsewhere in the sentence)
    rf"\bi\s+am\s+{ADV}(?P<n>not\s+|no longer\s+)?{_DEGREE_EN}allergic"
    r"(?:\s+to\s+(?:them|it|those|these|that|the\s+stuff))?"
    r"(?=\s*(?:[,.;!?—–(-]|$|\s+(?:and|but|so|too|as\s+well|btw)\b))",
    # "shellfish allergy here", "my peanut allergy", "severe nut allergy, so …"
    rf"(?:^|\bmy\s+|\bi\s+have\s+(?:a|an)\s+)(?:severe\s+|serious\s+|bad\s+|mild\s+)?(?P<v>{_ALLERGEN_EN})\s+allerg(?:y|ies)\b(?P<n>(?!))?",
    # "allergic to cats, sadly": no subject, at the start
    rf"^(?:(?:also|and|very|severely|seriously|super|deathly)\s+)*allergic\s+to\s+{V}(?P<n>(?!))?",
    # "我花粉过敏", "我海鲜也过敏", "我有花生过敏" (对X过敏 is ``patterns.ALLERGY``)
    rf"(?:我|本人){ZADV}有?(?P<v>{_ALLERGEN_ZH})(?:也|还|都|特别|有点|比较|非常|很|严重)*(?P<n>不)?过敏",
)


# Allergens listed after the first ("allergic to peanuts, cashews and shellfish"): the value pattern stops at
# "and" and ",", since most words after them start another clause ("I'm allergic to peanuts and I'd like …"),
# so only allergens of the list above continue it, and only where the list goes on or ends after them
# ("peanuts, tree nuts are fine though" says tree nuts are not an allergy).
_MORE_EN = re.compile(
    rf"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+)(?P<a>{_ALLERGEN_EN})\b"
    r"(?=\s*(?:[,;.!?)]|$)|\s+(?:and|or|&|too|as\s+well|so|but|which|btw)\b)",
    re.I,
)


def allergy(m: re.Match[str]) -> Built:
    """The allergen said, or else the one the sentence names; none named, no memory."""
    said = m.groupdict().get("v")
    if said is None:
        named = _IN_SENTENCE.search(m.string[: m.start()]) or _IN_SENTENCE.search(m.string)
        if named is None:
            return None
        said = named[0]
        return vx.allergen(said, negated=bool(m.groupdict().get("n")))
    return listed(m)


def listed(m: re.Match[str]) -> Built:
    """The allergy to the value said, and to each allergen listed after it, one memory each ("peanuts and
    cashews": ``allergy:peanuts`` and ``allergy:cashews``)."""
    negated = bool(m.groupdict().get("n"))
    first = vx.allergen(m["v"], negated=negated)
    if first is None or not m["v"].isascii():
        return first
    found: list[KeyValue] = [first]
    at = m.end()
    while more := _MORE_EN.match(m.string, at):
        if (also := vx.allergen(more["a"], negated=negated)) is not None and also not in found:
            found.append(also)
        at = more.end()
    return found if len(found) > 1 else first
