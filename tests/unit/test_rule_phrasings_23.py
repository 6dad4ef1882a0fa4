"""The rule extractor on phrasings ``rules/23`` added (facts said in passing), and the ones they must leave alone."""

from __future__ import annotations

import pytest

from hindsight_es.extraction.filler import is_filler
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a job with its aspect or duration, or from a wider list of trades
        ("I've been working as a bartender for three years.", [("user/occupation", "bartender")]),
        ("I have been a midwife since 2015.", [("user/occupation", "midwife")]),
        ("I'm officially an actuary now.", [("user/occupation", "actuary")]),
        ("I worked as a waiter in college, now I'm a developer.", [("user/occupation", "developer")]),
        ("My colleague has been working as a nurse for years.", []),
        ("I have been a bit tired since monday.", []),
        ("我做了八年会计。", [("user/occupation", "会计")]),
        ("我妈当了三十年小学老师。", [("mother/occupation", "小学老师")]),
        ("我现在是京东的产品经理。", [("user/employer", "京东"), ("user/occupation", "产品经理")]),
        ("我是一名资深的工程师。", [("user/occupation", "工程师")]),
        ("I'm retired now.", [("user/occupation", "retired")]),
        # a diet with a degree; a name one goes by; 本人
        ("I'm strictly vegan these days.", [("user/diet", "vegan")]),
        ("I usually go by Kat.", [("user/name", "kat")]),
        ("本人王思雨，多多关照。", [("user/name", "王思雨")]),
        # an allergy whose allergen is elsewhere in the sentence, or said before 过敏
        ("Shrimp is a no-go, I'm badly allergic to it.", [("user/allergy:shrimp", "shrimp")]),
        ("Nothing with sesame please, I'm allergic.", [("user/allergy:sesame", "sesame")]),
        ("I'm allergic to them, is that normal?", []),
        ("My daughter has a nut allergy.", []),
        ("我芒果过敏。", [("user/allergy:芒果", "芒果")]),
        ("我皮肤过敏。", []),
        ("我妈海鲜过敏。", []),
        # a pet named beside its kind, or before it
        ("my hamster Biscuit escaped again", [("user/pet:hamster", "biscuit")]),
        ("We rescued a greyhound in May, her name is Pepper.", [("user/pet:dog", "pepper")]),
        ("I met a dog named Rex at the park.", []),
        ("我养了一只叫团子的兔子。", [("user/pet:rabbit", "团子")]),
        ("我同事养了一只叫豆豆的狗。", []),
        # no subject after the first clause; origin said as belonging; where one is now
        ("I'm 29, born and raised in Cork.", [("user/age", "29"), ("user/hometown", "cork")]),
        ("living in Valencia now, loving it", [("user/location", "valencia")]),
        ("living in fear of the next deadline", []),
        ("老家大理的，现在一个人在外面。", [("user/hometown", "大理")]),
        ("我是东北人，现在在深圳。", [("user/hometown", "东北"), ("user/location", "深圳")]),
        ("他是东北人。", []),
        ("我现在在开会。", []),
        # a budget for a thing; a birthday; a daily drink; a relative's clause; replies' language and output
        ("My budget for a used car is $8,000.", [("user/budget", "$8,000")]),
        ("我是正月十五生的。", [("user/birthday", "正月十五")]),
        ("每天上班路上都要来杯拿铁。", [("user/drink", "latte")]),
        ("Looking for ideas for my sister, who lives out in Perth.", [("sister/location", "perth")]),
        ("以后回英文就行。", [("user/reply_language", "english")]),
        ("Please stop using bullet points in your replies.", [("user/instruction:use_bullet_points", "never")]),
        # a subject left out; a question or a supposition beside a statement; a time to come in another clause
        ("Been a pharmacist at Boots for six years.", [("user/employer", "boots"), ("user/occupation", "pharmacist")]),
        ("帮我看看这个菜单，我对芒果过敏的，有没有要避开的", [("user/allergy:芒果", "芒果")]),
        ("我不记得自己是不是对青霉素过敏了", []),
        ("I can't recall if I'm allergic to latex.", []),
        ("帮我写个请假条，我是小学老师，下周要请两天假", [("user/occupation", "小学老师")]),
        ("下个月我就30岁了", []),
        # a story asked for; a request for one message only
        ("Write me a poem about a baker called Tom who lives in Rye.", []),
        ("这条先用英文回我", []),
        # a city, not its district; a kind of workplace is no employer; 做X的
        ("我住在杭州西湖区那边", [("user/location", "杭州")]),
        ("我老婆在幼儿园当老师", [("wife/occupation", "老师")]),
        ("我是做会计的", [("user/occupation", "会计")]),
        # a quote holds someone else's words, even with a sentence end inside it
        ('My client wrote "I am allergic to soy, is that ok?" and I need to reply.', []),
        # surname and given name; born and bred; a pet renamed; a while at an employer; a drink one loves
        ("我姓司马，单名一个玲字。", [("user/name", "司马玲")]),
        ("我是土生土长的绍兴人。", [("user/hometown", "绍兴")]),
        ("仓鼠改名了，现在叫布丁。", [("user/pet:hamster", "布丁")]),
        ("在网易干了快两年了。", [("user/employer", "网易")]),
        ("我是咖啡重度爱好者。", [("user/drink", "coffee")]),
        ("我都52了。", [("user/age", "52")]),
        ("As a 63-year-old retiree I have a lot of free time.", [("user/age", "63")]),
        ("this is Ingrid btw, we spoke yesterday", [("user/name", "ingrid")]),
        (
            "My dad sold his shop last year, he is a driving instructor now.",
            [("father/occupation", "driving instructor")],
        ),
        ("From now on, I read everything on my phone.", []),
        # a clause-opening she/he (她/他) is the relative said just before it, if it agrees and nobody came between
        ("Gift ideas for my dad? He works at Siemens and loves trains.", [("father/employer", "siemens")]),
        ("我姐去年结婚了，她现在住在成都。", [("sister/location", "成都")]),
        ("My wife is great. He works at Google.", []),
        ("My brother and Tom are in Rome, he lives in Paris.", []),
        ("他们说他住在北京。", []),
        # work as after "and", freelance; "I eat vegan"; a self-introduction before a dash; living on one's own
        ("I quit the agency and now work as a copywriter.", [("user/occupation", "copywriter")]),
        ("i work freelance as a translator", [("user/occupation", "translator")]),
        ("I eat vegan at home.", [("user/diet", "vegan")]),
        ("oh and I'm Priya — should have said earlier", [("user/name", "priya")]),
        ("My gran lives on her own in Bath.", [("grandmother/location", "bath")]),
        ("news about my son: he quit the bank and works as a chef now", [("son/occupation", "chef")]),
        # 本人X一枚, 全名, an allergen without 我 inside it, a plan asked for is none
        ("本人产品经理一枚。", [("user/occupation", "产品经理")]),
        ("我姓林，全名林书瑶。", [("user/name", "林书瑶")]),
        ("对了我对青霉素过敏", [("user/allergy:青霉素", "青霉素")]),
        ("帮我规划下周末的路线", []),
        # trades by suffix; nights as; a relative in a place; "…, but I would like …" is no new value
        ("I'm a cardiologist, if that matters.", [("user/occupation", "cardiologist")]),
        ("I work nights as a paramedic.", [("user/occupation", "paramedic")]),
        ("My brother in Glasgow sent me this.", [("brother/location", "glasgow")]),
        ("I've lived in Leeds about ten years.", [("user/location", "leeds")]),
        # 开X的, 姓X名Y, 六十五, 农历 birthdays, 生酮, 搬回, 现在住
        ("我是开出租的。", [("user/occupation", "出租车司机")]),
        ("姓周名宁，多多关照。", [("user/name", "周宁")]),
        ("我都七十了。", [("user/age", "70")]),
        ("我生日是农历正月初八。", [("user/birthday", "农历正月初八")]),
        ("最近改成生酮饮食了。", [("user/diet", "keto")]),
        ("我爸搬回成都了。", [("father/location", "成都")]),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "filler"),
    [
        ("lol ok fair", True),
        ("thank u sm 🙏", True),
        ("hmm let me think about it", True),
        ("稍等我想想", True),
        ("哈哈行吧", True),
        ("算了 没事了", True),
        ("wait, I moved to Paris last week", False),
        ("稍等，我现在住在上海", False),
    ],
)
def test_pleasantries(text, filler):
    assert is_filler(text) is filler
