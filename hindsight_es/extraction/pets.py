"""Regex sources for a pet stated with its name: adopted, owned or named ("we adopted a cat named Miso", "我家养了
一只猫叫年糕"), and renamed ("we renamed the dog to Rex", "把猫改名叫团子"). The conventions of ``patterns``:
group "v" the name, "a" the kind of animal. Pets named in passing are ``casual``'s.
"""

from __future__ import annotations

from hindsight_es.extraction.patterns import _PET_EN, _PET_ZH, ZADV, ZI

PET = (
    rf"\b(?:i|we)\s+(?:have\s+|just\s+|recently\s+)*(?:adopted|got|have|own|rescued|bought)\s+(?:a|an|one)\s+"
    rf"(?:[a-z]+\s+){{0,2}}?(?P<a>{_PET_EN})\s+(?:named|called)\s+(?P<v>[A-Za-z][\w'-]*)",
    rf"\bmy\s+(?P<a>{_PET_EN})\s+is\s+(?:called|named)\s+(?P<v>[A-Za-z][\w'-]*)",
    rf"{ZI}家?{ZADV}(?:养了|有|领养了|收养了|买了)(?:一只|一条|只|条|个|一个)?(?:[\u4e00-\u9fff]{{1,2}}?)?(?P<a>{_PET_ZH})[，,]?(?:它)?"
    rf"(?:叫|名叫|名字叫|取名叫|取名)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    rf"{ZI}(?:家里?)?的?(?P<a>{_PET_ZH})(?:叫|名叫|的名字是|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    rf"\brenamed\s+(?:the|our|my)\s+(?P<a>{_PET_EN})\b(?:\s+to\s+|[^.;!?]*?\b(?:called|named)\s+)(?P<v>[A-Za-z][\w'-]*)",
    rf"\bchanged\s+(?:the|our|my)\s+(?P<a>{_PET_EN})'s\s+name\s+to\s+(?P<v>[A-Za-z][\w'-]*)",
    rf"(?:给|把)(?:我们的|我的)?(?P<a>{_PET_ZH})(?:的名字)?(?:改了名字|改了名|改名字|改名|换了名字|改成|改叫|改为)了?[，,]?(?:现在|以后)?(?:叫|改叫)?"
    rf"(?P<v>[^，。！？；,!?;\s了]{{1,8}})",
)
