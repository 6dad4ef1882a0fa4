"""Regex sources for more facts said in passing (``rules/24``): a diet one is on ("I'm on keto so low-carb
please"), a birthday coming up ("my birthday's coming up on March 3rd"), a job one qualified or retrained as
("Mum's just qualified as a dental nurse"), a pet by its kind and what it is called ("the bunny's called
Mochi now"), a job after what kind of one it is ("我是个跑长途的货车司机"), an employer one reported to
("这周一刚去小米报到"), a city one went to work in ("女儿毕业后去广州工作了").

The conventions of ``patterns``: group "v" the value, "a" the attribute (an animal here), "r" a relative.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hindsight_es.extraction import builders as b
from hindsight_es.extraction import casual
from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.builders import Built, KeyValue
from hindsight_es.extraction.patterns import (
    _BODY_EN,
    _JOBS_EN,
    _JOBS_ZH,
    _NAMED_E,
    _PET_EN,
    _PLACE_ZH,
    _REL_EN,
    _REL_ZH,
    _STOP_EN,
    _STOP_ZH,
    _TIME_ZH,
    ADV,
    MONTHS_EN,
    ZADV,
    ZI,
    V,
)

# fmt: off
_DIET_NAMED_EN = (
    r"keto|paleo|low[- ]carb|low[- ]fat|low[- ]sodium|whole30|carnivore|mediterranean|vegan|vegetarian|pescatarian"
    r"|gluten[- ]free|dairy[- ]free|plant[- ]based|intermittent\s+fasting|fodmap|low[- ]fodmap"
)
_NOT_A_DIET = r"(?!\s+(?:recipes?|meals?|food|snacks?|options?|friendly|version|substitutes?))"
# "I'm on keto so low-carb please", "we're doing a low-FODMAP diet", "I do keto": a diet one is on
DIET_ON = (
    rf"\b(?:i|we)\s+(?:am|are|have\s+been)\s+{ADV}(?:on|doing|following|eating)\s+(?:an?\s+|the\s+|strict\s+)*"
    rf"(?P<v>{_DIET_NAMED_EN})(?:\s+diet)?\b{_NOT_A_DIET}",
    rf"\b(?:i|we)\s+{ADV}(?:do|follow)\s+(?:an?\s+|strict\s+)*(?P<v>{_DIET_NAMED_EN})(?:\s+diet)?\b{_NOT_A_DIET}",
)
# "my birthday is coming up on March 3rd" (``matching``: "birthday's" is "birthday is")
BIRTHDAY_COMING = (
    r"\bmy\s+(?:birthday|bday)\s+(?:is|falls)\s+(?:coming\s+up\s+|next\s+week\s+|soon\s+)?on\s+(?:the\s+)?"
    r"(?P<v>(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]+|[a-z]+\s+\d{1,2}(?:st|nd|rd|th)?))\b",
)
# "I qualified as an electrician last year", "Mum's just qualified as a dental nurse" (a relative: ``kin``)
QUALIFIED = (
    rf"\bi\s+(?:have\s+)?{ADV}(?:qualified|retrained|requalified|trained\s+up|got\s+certified)\s+as\s+(?:an?\s+)?"
    rf"(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
)
RELATIVE_QUALIFIED = (
    rf"(?:\bmy\s+|^)(?P<r>[a-z]+)(?:'s|\s+has|\s+is)\s+{ADV}(?:qualified|retrained|requalified)\s+as\s+(?:an?\s+)?"
    rf"(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
)
# "the bunny's called Mochi now", "our dog is named Rex"
_PET_IS_CALLED = (
    rf"\b(?:my|our|the)\s+(?:(?:new|little|old|rescue|baby)\s+)?(?P<a>{_PET_EN})(?:'s|\s+is)\s+(?:now\s+)?"
    r"(?:called|named)\s+"
)
PET_CALLED = (
    rf"{_PET_IS_CALLED}(?-i:(?P<v>[A-Z][a-z][\w'-]*))",
    rf"{_PET_IS_CALLED}(?P<v>[a-z][\w'-]*)(?=\s+(?:now|these days|lol|haha)\b|\s*[.!,]|$)",  # in lower case: ends there
)
# A name changed, said with the old one ("we've renamed Pumpkin to Marmalade", "we changed Clover's name to
# Rocket", "Pepper is officially Waffles now"): the new side of an update whose key is the held old name's
# (``anchors``: the old name is given up, ``updates.is_old``)
RENAMED = (
    rf"\brenamed\s+(?!(?:him|her|it|them)\b)[\w' -]{{1,30}}?\s+(?:to|as)\s+{V}",
    rf"\bchanged\s+[\w' -]{{1,30}}?'s\s+name\s+to\s+{V}",
    r"\b(?:is|are)\s+(?:now\s+)?officially\s+(?:called\s+|named\s+)?(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
)
# "the cat's name is officially Mochi now"
PET_NAME_IS = (
    rf"\b(?:my|our|the)\s+(?P<a>{_PET_EN})(?:'s|\s+is)\s+name\s+is\s+(?:now\s+|officially\s+|still\s+)*"
    r"(?-i:(?P<v>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?))",
)
# "I've swapped coffee for matcha": what one took instead (``builders.choice``: a value the lexicon knows)
SWAPPED = (
    rf"\b(?:i|we)\s+(?:have\s+)?{ADV}(?:swapped|traded|exchanged|replaced)\s+(?:my\s+)?[\w-]+(?:\s+[\w-]+)?\s+"
    rf"(?:for|with)\s+{V}",
)
# "I teach Year 7 maths at Hollins Park Academy": where one teaches is the employer
TEACH_AT = (
    rf"\bi\s+(?:have\s+)?{ADV}teach(?:ing)?\b[^.;!?]{{0,40}}?\bat\s+"
    r"(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,4}))",
)
_EMPLOYER = b.place("employer")


def workplace_taught(m: re.Match[str]) -> Built:
    """Where one works, as ``builders.place``; where one teaches, with the subject taught ("I teach Year 7 maths at
    Hollins Park Academy": the employer, and a maths teacher, as ``casual.TEACHES`` reads it alone)."""
    found = _EMPLOYER(m)
    taught = casual.taught(m[0]) if m.re.pattern in TEACH_AT else None
    return [*([found] if isinstance(found, tuple) else found or []), taught] if taught else found


# "自从跳到字节跳动", "上个月跳槽去了美团": the speaker's new employer
JUMPED_ZH = (
    rf"(?:{ZI}{ZADV}|^|自从|(?<=[，,]))(?:跳槽到了|跳槽到|跳槽去了|跳槽去|跳到了|跳到)(?P<v>[^，。！？；,!?;\s了]{{2,10}}?)"
    r"(?=[，。！？；,!?;\s]|$|了|以后|之后|后|这边|那边)",
)
# "我姐调到广州那边的医院了": a relative moved to a city (for work or not) lives there
RELATIVE_MOVED_ZH = (
    rf"(?:我的?)?(?P<r>{_REL_ZH}){ZADV}(?:调到了|调到|调去了|调去|搬到了|搬到|搬去了|搬去)(?P<v>{_PLACE_ZH})",
)
# "给它改名叫可乐了": a new name for something named before in the bank (``builders.updated``: resolved against it)
RENAMED_ZH = (
    r"(?:给它|把它|它|给他|给她)?(?:改名叫|改名为|改名成|改叫|改成叫)(?P<v>[^，。！？；,!?;\s了哈啊呀吧]{1,6})",
)
# "I'm Declan, 34, from Cork": a count right after the name one gives is one's age
# (the span is the count alone: the name is the name rule's; ``age_after_name`` looks for it before)
AGE_AFTER_NAME = (r"(?<=,)\s*(?P<v>[1-9]\d?)\s*(?=,|\.|\s+and\b|$)",)
_NAMED_BEFORE = re.compile(r"\bi\s+am\s+(?-i:[A-Z][a-z]+)\s*,$", re.I)
# "我是95年的", "我九五年的", "I was born in 1990": the year one was born
BIRTH_YEAR = (
    r"(?:^|(?<=[，,])|我)(?:是|是在)?(?P<v>(?:19|20)?\d{2}|[零〇一二三四五六七八九]{2})年(?:的|生的?|出生的?)(?=[人，,。！？；;\s]|$)",
    r"\bi\s+was\s+born\s+in\s+(?P<v>(?:19|20)\d{2})\b",
)
# "I've accepted an offer at the Delta Water Authority as a project engineer": the employer, and the job if said
OFFER = (
    rf"\bi\s+(?:have\s+)?{ADV}(?:accepted|took|taken|signed)\s+(?:an?\s+|the\s+)?(?:job\s+)?offers?\s+"
    rf"(?:at|from|with)\s+(?:the\s+)?{_NAMED_E}(?:\s+as\s+(?:an?\s+)?(?P<v>{_BODY_EN}+?))?{_STOP_EN}",
)
# "今年28，老家…", "我叫李华，今年28岁": an age said as this year's count, opening its clause (the clause's
# left-out subject is resolved as any other's: "我儿子叫小宝，今年5岁" is the son's)
AGE_THIS_YEAR_ZH = (
    r"(?:^|(?<=[，,]))(?:我)?今年(?P<v>[1-9]\d|[二三四五六七八九]十[一二三四五六七八九]?)岁?了?(?=[，,。！？；;\s]|$)",
)
# "下周三要去一家外企面试", "明年三月我要考雅思": a time, then what one is to do
PLAN_ZH = (
    rf"^{_TIME_ZH}(?:[一二三四五六七八九十\d]+月(?:份|初|底|中旬)?)?{ZI}?{ZADV}(?:要|得|准备)(?!下雨|降温|刮风|变天|放假)"
    rf"(?P<v>[^，。！？；,!?;\n]{{2,20}}?){_STOP_ZH}",
    # "下个月我们全家去杭州旅游", "我下周去上海出差", "我们下周五去医院体检": a time still to come, then going somewhere
    rf"^{ZI}?{_TIME_ZH}(?:[一二三四五六七八九十\d]+月(?:份|初|底|中旬)?)?{ZI}?(?:全家|一家人?|俩|几个)?(?!一般|通常|经常|常常|总|都|每)"
    rf"(?P<v>[去回](?!过|了)[^，。！？；,!?;\n了]{{2,14}}?){_STOP_ZH}",  # not "周末去爬山了": gone already
)
# A reminder that comes back is a standing instruction: "Please remind me to call my parents every Sunday",
# "Remind me every morning to take my meds", "每周日提醒我给爸妈打电话" (one reminder, "remind me to buy milk", is a
# task, not kept)
_EVERY_EN = r"(?:every|each)\s+(?:\w+\s+)?(?:day|morning|afternoon|evening|night|week|weekend|month|year|\w+day)s?\b"
REMIND = (
    rf"^(?:please\s+)?(?:(?:can|could|would)\s+you\s+)?(?P<v>remind\s+me\s+(?:to|about)\s+[^.;!?]{{2,60}}?)[\s,]+{_EVERY_EN}",
    rf"^(?:please\s+)?(?P<g>remind\s+me\s+){_EVERY_EN}[\s,]+(?P<v>(?:to|about)\s+[^.;!?]{{2,60}}?){_STOP_EN}",
    rf"^(?:please\s+)?{_EVERY_EN}[\s,]+(?:please\s+)?(?P<v>remind\s+me\s+(?:to|about)\s+[^.;!?]{{2,60}}?){_STOP_EN}",
    rf"^(?:以后|今后)?(?:请你?)?每(?:天|晚|周[一二三四五六日天]?|个?星期[一二三四五六日天]?|个?月|年|次)[^，。！？；,!?;\n]{{0,6}}?"
    rf"(?:都|记得|要)?(?P<v>提醒我[^，。！？；,!?;\n]{{2,20}}?){_STOP_ZH}",
)
# "We've booked Kyoto for the first week of April": a trip booked for a time
BOOKED = (
    rf"\b(?:i|we)\s+(?:have\s+)?(?:just\s+)?booked\s+(?P<v>[^.;!?]{{2,40}}?\s+for\s+(?:the\s+)?(?:(?:first|second|third|last)"
    rf"\s+(?:week|weekend)\s+of\s+)?(?:{MONTHS_EN}|next\s+\w+|this\s+\w+))\b",
)
# "我是个跑长途的货车司机", "我是一名开出租的司机": the job after what kind of one it is
JOB_KIND_ZH = (
    rf"{ZI}{ZADV}是(?:个|一个|一名|一位|名)[^，。！？；,!?;\n的]{{1,8}}的(?P<v>[^，。！？；,!?;\s的]{{0,4}}?(?:{_JOBS_ZH}))"
    r"(?=[，。！？；,!?;\s]|$)",
)
# "这周一刚去小米报到", "下个月去腾讯入职" is a plan: only what has happened (了, 刚, 已经)
REPORTED_ZH = (
    rf"(?:{ZI}{ZADV}|^|(?<=[，,]))(?:刚|已经|前天|昨天|[上这]周[一二三四五六日天]?|上个?月|今天)*(?:刚|已经)?(?:去|到)"
    r"(?P<v>[^，。！？；,!?;\s]{2,10}?)(?:报到|报道|入职)(?:了|啦)?(?=[，。！？；,!?;\s]|$)",
)
# "女儿毕业后去广州工作了": a relative who went to a city to work lives there
RELATIVE_WENT_ZH = (
    rf"(?:我的?)?(?P<r>{_REL_ZH})[^，。！？；,!?;\n]{{0,8}}?(?:去|到|调到|搬到)(?P<v>{_PLACE_ZH})(?:工作|上班|发展|定居)了",
)
# "My daughter lives in Chicago now and works for Deloitte": a second verb of the relative's
_NAMED = r"(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3}))"
# (the span is the second verb's alone: the first is another rule's; the relative is found before it)
AND_WORKS = (rf"\band\s+(?:now\s+)?works?\s+(?:for|at)\s+{_NAMED}",)
AND_LIVES = (rf"\band\s+(?:now\s+)?lives?\s+in\s+{_NAMED}",)
AND_WORKS_AS = (rf"\band\s+(?:now\s+)?works\s+as\s+(?:an?\s+)?(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",)
_RELATIVE_BEFORE = re.compile(rf"\bmy\s+({_REL_EN})\b[^.;!?]{{0,60}}$|^\s*(i)\s[^.;!?]{{0,60}}$", re.I)
# fmt: on


def relative_and(attr: str) -> Callable[[re.Match[str]], Built]:
    """A second verb of a relative's ("my daughter lives in Chicago now and works for Deloitte"), or of the
    speaker's ("I live in Leeds and work for Arup"): the verb's form must agree."""

    def build(m: re.Match[str]) -> Built:
        said = _RELATIVE_BEFORE.search(m.string, 0, m.start())
        third = re.search(r"\b(?:works|lives)\b", m[0], re.I) is not None
        if said is None or third != (said[2] is None):
            return None
        relation = "user" if said[2] else lx.RELATIONS.get(said[1].lower())
        v = vx.clean(vx.PLACE_CUT.sub("", m["v"]))
        v = vx.job(v) if attr == "occupation" else v
        return None if relation is None or vx.vague(v) else (f"{relation}/{attr}", v)

    return build


def offer(m: re.Match[str]) -> Built:
    """An offer accepted: where, and the job when it is said."""
    out: list[KeyValue] = [where] if (where := vx.workplace(m["e"])) else []
    role = vx.job(vx.clean(m["v"] or ""))
    return out + ([] if vx.vague(role) else [("user/occupation", role)]) or None


def birth_year(m: re.Match[str]) -> Built:
    """The year, in four digits: "95" and "九五" are 1995, "05" is 2005."""
    year = "".join(
        str("零一二三四五六七八九".index(c)) if c in "零一二三四五六七八九" else c for c in m["v"].replace("〇", "零")
    )
    return "user/birth_year", year if len(year) == 4 else f"{'19' if int(year) >= 30 else '20'}{year}"


def age_after_name(m: re.Match[str]) -> Built:
    """ "I'm Declan, 34, from Cork": the count after the name the speaker gives."""
    return ("user/age", m["v"]) if _NAMED_BEFORE.search(m.string, 0, m.start()) else None


# fmt: off
# A condition one has that sets what one eats (``rules/28``): "I'm celiac", "I have celiac disease", "doc says
# my A1C is creeping up, I'm type 2", "I was diagnosed with diabetes", "我乳糖不耐受", "我有糖尿病". A key of its
# own per condition (``user/health:celiac_disease``): several hold at once and none replaces a diet (vegan and
# celiac together); ``recall.asked`` counts it as answering what one cannot eat.
_CONDITION_EN = r"c(?:o)?eliac|pre-?diabet(?:ic|es)|type[\s-]*(?:1|2|one|two)(?:\s+diabet(?:ic|es))?|diabet(?:ic|es)"
_HAS_EN = (
    r"(?:have|'ve\s+got|have\s+got|got|live\s+with|suffer\s+from|was\s+diagnosed\s+with"
    r"|(?:'ve|have)\s+been\s+diagnosed\s+with)"
)
_CONDITION_ZH = r"乳糖不耐受?|麸质不耐受|糖尿病|乳糜泻|痛风"
_HAS_ZH = r"(?:有|得了|患有|患上了?|查出(?:了|来)?|被诊断(?:出|为)?|确诊(?:了|为)?)"
HEALTH = (
    rf"\bi(?:'m|\s+am)\s+{ADV}(?:an?\s+)?(?P<v>{_CONDITION_EN})\b(?!\s*-?\s*friendly)",
    rf"\bi\s*{_HAS_EN}\s+{ADV}(?P<v>{_CONDITION_EN})(?:\s+disease)?\b",
    rf"{ZI}{ZADV}{_HAS_ZH}?(?P<v>{_CONDITION_ZH})(?!人|患者|的|吗)",  # not "糖尿病人能吃西瓜吗"
    rf"(?:^|(?<=[，,；;]))(?:而且|还|也|另外)?{_HAS_ZH}(?P<v>{_CONDITION_ZH})(?!人|患者|的|吗)",
)
# fmt: on
_CONDITION_NAMES = {  # by the name said, hyphens out ("pre-diabetes", "pre-diabetic" and "prediabetes": one key)
    "celiac": "celiac disease",
    "coeliac": "celiac disease",
    "diabetic": "diabetes",
    "prediabetic": "prediabetes",
    "prediabetes": "prediabetes",
    "乳糖不耐": "乳糖不耐受",
}


def _health(said: str, negated: bool = False) -> KeyValue:
    """A condition's key and value by one name ("coeliac" is celiac disease, "type 2" and "type two diabetic"
    type 2 diabetes); ``negated``: one does not have it."""
    v = " ".join(said.lower().split())
    if typed := re.match(r"type[\s-]*(1|2|one|two)", v):
        v = f"type {'1' if typed[1] in ('1', 'one') else '2'} diabetes"
    v = _CONDITION_NAMES.get(v.replace("-", ""), v)
    return f"user/health:{vx.slug(v)}", f"not:{v}" if negated else v


_AVOID_DIET = b.avoid("diet")


def diet_avoid(m: re.Match[str]) -> Built:
    """What one does not eat ("I don't have dairy"), or a condition one does not have ("I don't have celiac"):
    not "does not eat celiac"."""
    v = vx.object_of(m["v"])
    said = re.fullmatch(rf"(?P<c>{_CONDITION_EN})(?:\s+disease)?", v, re.I)
    return _AVOID_DIET(m) if said is None else _health(said["c"], negated=True)


def condition(m: re.Match[str]) -> Built:
    """A condition one has (``_health``)."""
    return _health(vx.clean(m["v"]))
