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

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.builders import Built
from hindsight_es.extraction.patterns import _JOBS_EN, _JOBS_ZH, _PET_EN, _PLACE_ZH, _REL_EN, _REL_ZH, ADV, ZADV, ZI

# fmt: off
_DIET_NAMED_EN = (
    r"keto|paleo|low[- ]carb|low[- ]fat|low[- ]sodium|whole30|carnivore|mediterranean|vegan|vegetarian|pescatarian"
    r"|gluten[- ]free|dairy[- ]free|plant[- ]based|intermittent\s+fasting|fodmap|low[- ]fodmap"
)
# "I'm on keto so low-carb please", "we're doing a low-FODMAP diet": a diet one is on
DIET_ON = (
    rf"\b(?:i|we)\s+(?:am|are|have\s+been)\s+{ADV}(?:on|doing|following|eating)\s+(?:an?\s+|the\s+|strict\s+)*"
    rf"(?P<v>{_DIET_NAMED_EN})(?:\s+diet)?\b(?!\s+(?:recipes?|meals?|food|snacks?|options?|friendly|version|substitutes?))",
)
# "my birthday is coming up on March 3rd" (``matching``: "birthday's" is "birthday is")
BIRTHDAY_COMING = (
    r"\bmy\s+(?:birthday|bday)\s+is\s+(?:coming\s+up\s+|next\s+week\s+|soon\s+)?on\s+(?:the\s+)?"
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
PET_CALLED = (
    rf"\b(?:my|our|the)\s+(?:(?:new|little|old|rescue|baby)\s+)?(?P<a>{_PET_EN})(?:'s|\s+is)\s+(?:now\s+)?(?:called|named)\s+"
    r"(?-i:(?P<v>[A-Z][a-z][\w'-]*))",
    rf"\b(?:my|our|the)\s+(?:(?:new|little|old|rescue|baby)\s+)?(?P<a>{_PET_EN})(?:'s|\s+is)\s+(?:now\s+)?(?:called|named)\s+"
    r"(?P<v>[a-z][\w'-]*)(?=\s+(?:now|these days|lol|haha)\b|\s*[.!,]|$)",
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
_RELATIVE_BEFORE = re.compile(rf"\bmy\s+({_REL_EN})\b[^.;!?]{{0,60}}$|^\s*(i)\s[^.;!?]{{0,60}}$", re.I)
# fmt: on


def relative(attr: str) -> Callable[[re.Match[str]], Built]:
    """A relative's attribute ("my mum has qualified as a dental nurse"), keyed by the relative's word."""

    def build(m: re.Match[str]) -> Built:
        relation = lx.RELATIONS.get(m["r"].lower())
        v = vx.clean(m["v"])
        return None if relation is None or vx.vague(v) else (f"{relation}/{attr}", v)

    return build


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
        return None if relation is None or vx.vague(v) else (f"{relation}/{attr}", v)

    return build
