"""Which keyed attribute a question asks for, and of whom; pure.

The extractor keys what it understands as a subject and an attribute (``user/name``, ``sister/location``,
``user/pet:cat``), and supersession keeps one active memory per key. So a question that asks for that
attribute of that subject ("我叫什么名字？", "where does my sister live?", "what's my dog called?") is
answered by the memory holding the key, whatever its words: "用户的名字：王小明" shares one bigram with
"我叫什么名字？" and its cosine is near the noise of a small bank, so by the words and the vector alone the
question got no answer at the floor. This is a third kind of evidence beside those two (``recall.search``):
the key's, for relevance only; it never reorders.

Only questions about the speaker (I, my, 我) or a relative of theirs (my sister, 我老婆) are read: a
question about someone by name ("What is Caroline's job?") is left to the words and the vector, as the
key's subject is the speaker, not a name. Only the question is read, not a dialogue before it
(``answertype.question``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction.patterns import _PET_EN, _PET_ZH, _REL_EN, _REL_ZH  # the kin and pets the extractor reads
from hindsight_es.recall.answertype import question
from hindsight_es.text import has_cjk

# Log-odds that a memory holding the asked key answers the question (relevance 0.73): one memory a key, so
# the odds are those of the question being read right, not one in the bank's size.
KEYED = 1.0


class Asked(NamedTuple):
    subject: str  # "user" or a relation of ``lx.RELATIONS``
    attr: str  # the key's attribute, without its facet
    facet: str | None = None  # ``pet:cat``'s cat, ``favorite:food``'s food; None: any


def _alternation(words: object) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))  # type: ignore[call-overload]


# Whose: "my sister's", "my older brother", "我老婆", "我的女儿"; else the speaker, if the question is about
# them at all (I, me, my, 我; "we"/"our"/我们 also asks about the team's choices).
_WHOSE_EN = re.compile(rf"\bmy\s+(?:(?:older|younger|big|little|eldest|youngest|oldest)\s+)?(?P<r>{_REL_EN})s?\b", re.I)
_WHOSE_ZH = re.compile(rf"我的?(?:大|小|二)?(?P<r>{_REL_ZH})")
# "what did I say my sister does?" asks what "what my sister does?" asks
_REPORTED = re.compile(
    r"\b(?:did|do)\s+i\s+(?:say|tell\s+you|mention)(?:\s+that)?\s+|\bremind\s+me\s+|\s+again\b", re.I
)
_EARLIER = re.compile(
    r"\b(?:before|used\s+to|previous(?:ly)?|former(?:ly)?|first(?!\s+name)|originally\s+(?!from)|old\s+(?:job|place|address))\b"
    r"|以前|之前|原来|从前|过去|当初|第一(?:个|份|家|只)|上一(?:个|份|家)",
    re.I,
)
# A question about what held first ("周会最早定在星期几？", "where was the offsite originally?", "what did I use to
# drive?"): what has since been superseded answers it, kept in history for this (``search.recall`` searches it).
_FIRST_HELD = re.compile(
    r"\b(?:originally|original|at\s+first|initially|previously|formerly|used\s+to)\b|最早|最初|一开始|起初|原本|本来|原先"
    # "改成夜跑以前我是几点跑？", "比原来多休几天？", "在大理原计划待几晚？"
    r"|以前|之前|原来|从前|当初|原计划|原定|原打算|早先|起先|最开始|刚开始"
    # "what was her portion before the vet changed it?": before a change the question names
    r"|\bbefore\s+(?:\w+\s+){0,4}?(?:changed?|switched|moved|cut|raised|lowered|updated|rescheduled|swapped)\b"
    # "what slot was I first given?", "when was the party first set for?": first after the verb's auxiliary
    r"|\b(?:was|were|had)\s+(?:\w+\s+){0,3}?(?<!the\s)first\s+(?:\w{2,}ed|given|set|told|meant|made|put|held|chosen"
    r"|taken|paid|sent|bought|quoted)\b",
    re.I,
)
_ME_EN = re.compile(r"\b(?:i|i'm|im|me|my|mine|myself)\b", re.I)
_US_EN = re.compile(r"\b(?:we|we're|our|us)\b", re.I)
_ME_ZH, _US_ZH = re.compile("[我咱]"), re.compile("我们|咱")

_MINE = rf"\b(?:my|our)\s+(?:(?:{_REL_EN})(?:'s|s')?\s+)?"  # "my ", "my sister's "
_WHO = r"(?:i|we|my\s+\w+(?:\s+\w+)?)"  # who a question's verb is of
# What: the attribute a question asks for. English is matched on the question lower-cased.
_EN: tuple[tuple[str, str], ...] = (
    (
        "name",
        rf"{_MINE}(?:(?:first|last|full|real|nick)\s*)?name\b|\bwhat\s+(?:am\s+i|is\s+my\s+\w+)\s+called\b|\bwho\s+am\s+i\b",
    ),
    ("age", r"\bhow\s+old\b|\bage\b|\bwhat\s+year\s+(?:was|were)\s+\w+(?:\s+\w+)?\s+born\b"),
    (
        "occupation",
        r"\b(?:job|occupation|profession|line\s+of\s+work)\b|\bdo\s+for\s+(?:a\s+)?(?:living|work)\b"
        rf"|\bwhat\s+(?:(?:do|does|did)\s+)?{_WHO}\s+(?:do|does)\b(?!\s+(?:on|at|in|with|about|to|when|if|last|next|this|to))"
        r"|\bwork\s+as\b",
    ),
    (
        "employer",
        rf"\bwhere\s+(?:(?:do|does|did)\s+)?{_WHO}\s+works?\b"
        r"|\bwho\s+(?:do|does)\s+\S+(?:\s+\S+)?\s+work\s+for\b|\b(?:employer|company|firm|workplace)\b",
    ),
    (
        "location",
        rf"\bwhere\s+(?:(?:do|does|did)\s+)?{_WHO}\s+(?:live|lives|living)\b"
        r"|\bwhere\s+(?:am\s+i|is\s+my\s+\w+|are\s+we)\s+(?:living|based|staying)\b|\bwhich\s+city\b|\bwhere\s+.*\bmove[ds]?\b",
    ),
    (
        "hometown",
        r"\bwhere\s+(?:am\s+i|is\s+my\s+\w+(?:\s+\w+)?|was\s+i|were\s+you)\s+(?:originally\s+)?from\b|\bhome\s*town\b"
        r"|\bgr[eo]w\s+up\b|\bwhere\s+(?:was|were)\s+\w+(?:\s+\w+)?\s+born\b",
    ),
    ("birthday", r"\b(?:birthday|bday|b-day|date\s+of\s+birth)\b|\bwhen\s+(?:was|is|were)\s+\w+(?:\s+\w+)?\s+born\b"),
    ("allergy", r"\ballerg"),
    (
        "diet",
        r"\bdiet(?:ary)?\b|\bvegetarian\b|\bvegan\b|\b(?:can'?t|cannot|don'?t|not|shouldn'?t)\s+(?:i\s+)?eat\b|\beat\s+meat\b",
    ),
    ("health", r"\bhealth\b|\bmedical\b|\bcondition\b|\bdiagnos|\bdiabet|\bc(?:o)?eliac\b"),
    ("email", r"\be-?mail\b"),
    ("phone", r"\bphone\s+number\b|\bmobile\s+number\b"),
    ("address", r"\baddress\b"),
    ("school", r"\bschool\b|\buniversity\b|\bcollege\b"),
)
_ZH: tuple[tuple[str, str], ...] = (
    ("name", rf"我的?(?:{_REL_ZH})?的?(?:中文|英文|全|真)?(?:叫什么|叫啥|名字|姓名|姓什么)"),
    ("age", r"多大|几岁|多少岁|年龄|岁数|哪年(?:出)?生|几几年"),
    (
        "occupation",
        r"(?:做|干|搞)(?:什么|啥|嘛)(?:工作|行业)?的?(?:来着)?[？?吗呢]*$|(?:做|干)哪行|(?:什么|啥)(?:工作|岗位)|职业|工作是"
        r"|从事|哪(?:个)?行业",
    ),
    ("employer", r"哪(?:个|家|间)?(?:公司|单位)|在哪(?:里|儿)?(?:上班|工作|高就)|什么公司|啥公司|哪上班"),
    ("location", r"住(?:在)?哪|在哪(?:里|儿)?住|哪个城市|(?:搬|去)(?:到)?哪(?:里|儿)?了|现在在哪(?:里|儿)?$"),
    (
        "hometown",
        r"老家|哪(?:里|儿|的)人|什么地方人|家乡|籍贯|(?:在)?哪(?:里|儿)?长大|(?:在)?哪(?:里|儿)?出生|出生在哪",
    ),
    ("birthday", r"生日|(?:哪天|几号|什么时候)出生"),
    ("allergy", r"过敏"),
    ("diet", r"吃素|忌口|(?:不|不能)(?:吃|喝)(?:什么|啥)|饮食"),
    ("health", r"(?:什么|啥)病|健康|身体(?:状况|情况)|诊断|不耐受"),
    ("email", r"邮箱|邮件地址"),
    ("phone", r"电话|手机号"),
    ("address", r"地址"),
    ("school", r"学校|哪(?:所|个)(?:大学|学校)|毕业于"),
)
_WHAT_EN = tuple((attr, re.compile(p, re.I)) for attr, p in _EN)
_WHAT_ZH = tuple((attr, re.compile(p)) for attr, p in _ZH)
_PET_ASKED_EN = re.compile(rf"\b(?:my|our)\s+(?:\w+\s+)?(?P<p>{_PET_EN}|pets?)\b", re.I)
_PET_ASKED_ZH = re.compile(rf"(?P<p>{_PET_ZH}|宠物)")
_FAVOURITE_EN = re.compile(r"\bfavou?rite\s*(?P<f>[a-z]+(?:\s+[a-z]+)?)?", re.I)
_FAVOURITE_ZH = re.compile(rf"最(?:喜欢|爱)(?:的)?(?:吃的|喝的)?(?P<f>{_alternation(lx.FAVORITES)})?")
# An attribute named as the extractor reads it in "my X is Y" ("what's my email?", "我们用的数据库是哪个？")
_NAMED = re.compile(
    rf"{_MINE}(?P<a>{_alternation(w for w in lx.ATTRIBUTES if w.isascii())})\b"
    rf"|我的?(?:{_REL_ZH})?的?(?P<z>{_alternation(w for w in lx.ATTRIBUTES if not w.isascii())})",
    re.I,
)


def asked(query: str) -> frozenset[Asked]:
    """The keys a question about the speaker or a relative of theirs asks for (none for any other)."""
    q = question(query).strip()
    zh = has_cjk(q)
    q = q if zh else _REPORTED.sub(" ", q)
    if _EARLIER.search(q):  # the key holds the current value: "what did I do before this job?" asks another
        return frozenset()
    whose = (_WHOSE_ZH if zh else _WHOSE_EN).search(q)
    if whose:
        subjects = {lx.RELATIONS[whose["r"].lower()]}
    else:
        me, us = (_ME_ZH, _US_ZH) if zh else (_ME_EN, _US_EN)
        subjects = ({"user"} if me.search(q) else set()) | ({"user", "team"} if us.search(q) else set())
    if not subjects:
        return frozenset()
    pet = (_PET_ASKED_ZH if zh else _PET_ASKED_EN).search(q)
    if pet:  # a pet's name or kind: the pet's key, not the speaker's name ("我的猫叫什么？")
        facet = lx.PETS.get(pet["p"].lower())
        return frozenset(Asked(s, "pet", facet) for s in subjects)
    wanted: list[tuple[str, str | None]] = [(attr, None) for attr, p in (_WHAT_ZH if zh else _WHAT_EN) if p.search(q)]
    if favourite := (_FAVOURITE_ZH if zh else _FAVOURITE_EN).search(q):
        said = (favourite["f"] or "").lower()
        facet = lx.FAVORITES.get(said) or lx.FAVORITES.get(said.split(" ")[0]) if said else None
        wanted = [("favorite", facet)]
    wanted += [(lx.ATTRIBUTES[(m["a"] or m["z"]).lower()], None) for m in _NAMED.finditer(q)]
    return frozenset(Asked(s, attr, facet) for s in subjects for attr, facet in wanted)


# Attributes that answer each other's questions: a job and where it is held ("where do I work?" and "用户的工作
# 是产品经理"), what one does not eat and is allergic to; one partner, however named (老公, 爱人, partner).
_AKIN = ({"occupation", "employer"}, {"diet", "allergy"}, {"age", "birth_year"})
# One way only: a condition answers what one cannot eat (celiac disease), not what one is allergic to.
_ALSO = {"diet": {"health"}, "health": {"diet", "allergy"}}
_PARTNERS = {"wife", "husband", "partner", "boyfriend", "girlfriend"}


def _kin(name: str, groups: tuple[set[str], ...]) -> set[str]:
    return next((g for g in groups if name in g), {name})


def answers(asks: frozenset[Asked], key: str | None) -> bool:
    """A memory keyed ``key`` holds what one of ``asks`` asks for, or a kindred attribute (a job for "where do
    I work?")."""
    if not asks or not key:
        return False
    subject, _, attribute = key.partition("/")
    attr, _, facet = attribute.partition(":")
    return any(
        subject in _kin(a.subject, (_PARTNERS,))
        and (attr in _kin(a.attr, _AKIN) or attr in _ALSO.get(a.attr, ()))
        and (a.facet is None or not facet or a.facet == facet)
        for a in asks
    )


def asks_first_held(query: str) -> bool:
    """The question asks what held before it was superseded ("周会最早定在星期几？")."""
    return _FIRST_HELD.search(question(query)) is not None
