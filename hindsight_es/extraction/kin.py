"""Regex sources of the rule extractor's patterns about the speaker's relatives and friends ("my sister lives
in Chengdu", "我妈妈对花粉过敏"): a relative's attribute is keyed on the relative (``sister/location``).

The same conventions as ``patterns``: group "r" the relative as said, "v" the value, "a" an attribute.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import builders as b
from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction.builders import Built
from hindsight_es.extraction.names_zh import is_person_name
from hindsight_es.extraction.patterns import (
    _DIETS,
    _JOBS_EN,
    _JOBS_ZH,
    _PET_EN,
    _PET_ZH,
    _PLACE_ZH,
    _REL_EN,
    _REL_ZH,
    _STOP_ZH,
    ADV,
    VZ,
    ZADV,
    V,
)

# fmt: off
RELATIVE = (
    # "my brother, who lives up in Halifax, …": a relative's clause says it too
    rf"\bmy\s+(?P<r>{_REL_EN})(?:,?\s+(?:who|she|he))?\s+{ADV}(?:lives|is living|is based|lived|has lived"
    rf"|has been living|has moved|moved|(?:got|was|has been)\s+(?:transferred|posted|relocated)|relocated)\s+"
    rf"(?:(?:on\s+(?:her|his|their)\s+own|alone|by\s+(?:her|him)self)\s+)?(?:(?:up|down|over|out|back)\s+)?(?:in|to)\s+{V}",
    rf"\bmy\s+(?P<r>{_REL_EN})(?:,?\s+who)?\s+{ADV}(?:works|is working|worked|has worked)\s+(?:at|for)\s+{V}",
    rf"\bmy\s+(?P<r>{_REL_EN})\s+{ADV}(?:goes to|attends|is at|studies at)\s+{V}",
    # "my dad is still up in Norwich" (a place named as one), "my dad sold the house and moved to Brighton"
    rf"\bmy\s+(?P<r>{_REL_EN})\s+is\s+{ADV}(?:(?:up|down|over|out|back)\s+)?in\s+(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:[a-z]+\s+){{1,5}}?and\s+(?:then\s+|finally\s+)?(?:moved|relocated)\s+(?:back\s+)?to\s+{V}",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:一个人|自己|独自)?(?:住在|生活在|搬到了|搬到|搬回了|搬回到|搬回|搬去了|搬去|定居在){VZ}",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}在(?P<v>[^，。！？；,!?;\n]{{1,20}}?)(?:工作|上班|任职|打工)",
    # "我哥前阵子从深圳回长沙了": back to a place the lexicon knows
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:从[^，。！？；,!?;\n]{{1,8}}?)?(?:回到了|回到|回了|回)(?P<v>{_PLACE_ZH})(?=[了，。！？；,!?;\s]|$)",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}在(?P<v>[^，。！？；,!?;\n]{{1,20}}?(?:学校|小学|中学|大学|幼儿园))(?:上学|读书)",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}在(?P<v>[^，。！？；,!?;\n]{{1,12}}?)(?:读|上)(?:大学|中学|小学|高中|初中|研究生|研|博士|书|学)",
    # "我妹妹毕业后去了西安工作": gone to a city (one the lexicon knows, or named as one) to work, study or live
    rf"我的?(?P<r>{_REL_ZH})[^，。！？；,!?;\n]{{0,6}}?(?:去了|去|搬去了?|调到了?|调去了?|回了|回到了?)"
    rf"(?P<v>{_PLACE_ZH}|[\u4e00-\u9fff]{{1,4}}[市省县])(?:工作|上班|读书|上学|定居|生活|发展)",
)
# "我老公跳槽去小米了": a relative's new employer
RELATIVE_JOINED = (
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:跳槽去了|跳槽去|跳槽到了|跳槽到|入职了|入职|跳到了|跳到)(?P<v>[^，。！？；,!?;\n了]{{1,12}}?)"
    rf"(?:工作|上班)?了?(?=[，。！？；,!?;\s]|$)",
)
# "My sister in Vancouver keeps mailing me …": a relative named with the place they are in
RELATIVE_NAMED_IN = (
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:(?:up|down|over|out|back)\s+)?in\s+"
    r"(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
)
RELATIVE_IN = (rf"我的?(?P<r>{_REL_ZH}){ZADV}在(?P<v>[^，。！？；,!?;\n]{{2,6}}?){_STOP_ZH}",)
RELATIVE_LIKE = (
    rf"\bmy\s+(?P<r>{_REL_EN})\s+{ADV}(?:likes|loves|enjoys|adores|is\s+(?:really\s+)?into)\s+{V}",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:喜欢|热爱|喜爱|爱)(?!喝|吃){VZ}",
)
# (a job after "and" is ``passing.AND_WORKS_AS``: its span is the second verb's, so what comes before is kept)
RELATIVE_JOB = (
    rf"\bmy\s+(?P<r>{_REL_EN})\b[^.;!?]{{0,60}}?,\s*(?:and\s+)?(?:she|he)\s+is\s+(?:now\s+)?(?:an?\s+)"
    rf"(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
    rf"\bmy\s+(?P<r>{_REL_EN})(?:,?\s+who)?\s+(?:is|was|has\s+been|been)\s+{ADV}(?:an?\s+)"
    rf"(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
    rf"\bmy\s+(?P<r>{_REL_EN})\s+{ADV}works\s+as\s+(?:an?\s+)?(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:是|当了|做了|干了|当|做|干)(?:[\d一二三四五六七八九十两几]+多?年多?的?)?(?:一名|一位|一个|名)?(?P<v>[^，。！？；,!?;\s]{{0,6}}?(?:{_JOBS_ZH}))",
)
# "我哥哥在成都当医生", "my brother is a doctor in Chengdu": the job, and where (``builders.relation_job_at``)
RELATIVE_JOB_AT = (
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?P<at>在)(?P<p>[^，。！？；,!?;\n做当干]{{1,12}}?)(?:做|当|担任|干)了?(?:一名|一位|一个|名)?"
    rf"(?P<v>[^，。！？；,!?;\s]{{0,6}}?(?:{_JOBS_ZH})|开发|测试|运营|研发|产品|设计|行政|财务|人事|客服|市场|销售|前端|后端)",
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:is|works\s+as)\s+{ADV}(?:an?\s+)?(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))"
    r"\s+(?P<at>in|at)\s+(?P<p>[A-Z][\w'-]*(?:\.(?=\s+[A-Z]))?(?:\s+[A-Z][\w'-]*(?:\.(?=\s+[A-Z]))?){0,3})",
)
RELATIVE_AVOID = (
    rf"\bmy\s+(?P<r>{_REL_EN})\s+{ADV}(?:does\s+not|cannot|can\s+not|never|no\s+longer|is\s+not\s+allowed\s+to)\s+"
    rf"(?:eat|drink|have)\s+{V}",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:不能吃|不可以吃|不吃|不能喝|不喝|忌口){VZ}",
)
RELATIVE_AGE = (
    r"\bmy\s+(?P<r>" + _REL_EN + r")\s+(?:is|just turned|turned)\s+(?:now\s+)?(?P<v>\d{1,3})"
    r"(?=\s*(?:years?\s+old)?\s*(?:[,.!;]|$|now\b|(?:yesterday|today|this|last|on|in|recently)\b))",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:今年)?(?P<v>\d{{1,3}}|[一二三四五六七八九十]{{1,3}})(?:周)?岁",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:今年)?(?P<v>[1-9]\d)了?(?=[，,。！？；;\s]|$)",  # "我妈今年60了", no 岁
)
# A relative's diet and allergies: "my flatmate is vegetarian", "my mom is allergic to penicillin", "我爸爸对海鲜过敏"
RELATIVE_DIET = (
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:is|has\s+been|went|became|has\s+gone|turned)\s+{ADV}(?:an?\s+)?(?:strict\s+|fully\s+)?"
    rf"(?P<v>{_DIETS})\b",
)
RELATIVE_ALLERGY = (
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:is|has\s+(?:always\s+)?been)\s+{ADV}(?:very\s+|severely\s+|highly\s+|deathly\s+)?"
    rf"allergic\s+to\s+{V}",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}对(?P<v>[^，。！？；,!?;\n我]{{1,20}}?)(?:也|还|都|特别|有点|比较|非常|很|严重)*过敏",
)
RELATIVE_PET = (
    rf"\bmy\s+(?P<r>{_REL_EN})'s\s+(?P<a>{_PET_EN})\s+is\s+(?:called|named)\s+(?P<v>[A-Za-z][\w'-]*)",
    rf"我的?(?P<r>{_REL_ZH})(?:家)?的(?P<a>{_PET_ZH})(?:叫|名叫|的名字是|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    rf"\bmy\s+(?P<r>{_REL_EN})\s+(?:has|had|got|adopted|owns)\s+(?:a|an)\s+(?:new\s+|little\s+)?(?P<a>{_PET_EN})\s+"
    r"(?:named|called)\s+(?P<v>[A-Za-z][\w'-]*)",
    rf"我的?(?P<r>{_REL_ZH}){ZADV}(?:养了|有|领养了|收养了|买了)(?:一只|一条|只|条|个|一个)?(?P<a>{_PET_ZH})[，,]?(?:它)?"
    rf"(?:叫|名叫|名字叫|取名叫|取名)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
)
RELATIVE_NAME = (
    rf"\bmy\s+(?P<r>{_REL_EN})(?:'s name is|\s+is called|\s+is named)\s+{V}",
    rf"我的?(?P<r>{_REL_ZH})(?:叫|名叫|的名字是|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
)
# "my manager is Priya now", "my wife is Maria", "我的领导是王总", "我的新领导是李姐": a name said with "is" (a
# capitalised name in English, a person's name in Chinese), so the next one said the same way updates it
RELATIVE_IS_NAMED = (
    rf"\bmy\s+(?:new\s+)?(?P<r>{_REL_EN})\s+is\s+(?:now\s+)?(?-i:(?P<v>[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)?))"
    r"(?=\s*(?:[,.;!?)]|$)|\s+(?:now|and|but|btw)\b)",
    rf"我的?(?:新)?(?P<r>{_REL_ZH})(?:现在|已经)?(?:是|换成了?|变成了?)(?P<v>[\u4e00-\u9fff]{{2,4}}?)了?(?=[，。！？；,!?;\s]|$)",
)
# fmt: on
# Capitalised words that say what someone is, not who: "my boss is German", "my wife is Catholic".
_NOT_A_NAME = frozenset(
    """american british english scottish welsh irish french german italian spanish portuguese dutch swiss
    austrian belgian polish russian ukrainian czech greek turkish swedish norwegian danish finnish icelandic
    canadian mexican brazilian argentinian chilean colombian peruvian cuban australian kiwi chinese japanese
    korean vietnamese thai filipino indonesian malaysian singaporean indian pakistani bangladeshi iranian iraqi
    israeli arab egyptian moroccan nigerian kenyan african asian european latino latina hispanic catholic
    protestant christian jewish muslim hindu buddhist sikh mormon orthodox anglican baptist methodist atheist
    agnostic vegan vegetarian gay lesbian bi trans deaf blind autistic dyslexic pregnant retired""".split()
)


# Whom one has one of at a time: a second name said for them is a change ("my manager is Priya now"). Of a
# friend, a sister or a child, a second name is a second person, so "my friend is Sam" is left to the episode.
_ONE_AT_A_TIME = frozenset({"boss", "wife", "husband", "partner", "boyfriend", "girlfriend", "mother", "father"})


def relation_is_named(m: re.Match[str]) -> Built:
    """A relative's name said with "is": a capitalised word that is no nationality, faith or condition; in
    Chinese, a word the tagger reads as a person's name ("王总", "李姐"). Only of whom one has one at a time."""
    v = m["v"]
    if lx.RELATIONS.get(m["r"].lower()) not in _ONE_AT_A_TIME:
        return None
    if v.isascii() and v.split()[0].lower() in _NOT_A_NAME:
        return None
    if not v.isascii() and not is_person_name(v):
        return None
    return b.relation("name")(m)
