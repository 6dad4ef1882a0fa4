"""The rule extractor on phrasings ``rules/25`` added (a relative named beside the kin word, a name said with
its "my" left out, an age after a name in Chinese), and the ones they must leave alone. My own sentences."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a relative named beside the kin word: the name and what is said of them
        ("My sister Emma lives in Toronto.", [("sister/location", "toronto"), ("sister/name", "emma")]),
        ("My husband Raj works at Infosys.", [("husband/employer", "infosys"), ("husband/name", "raj")]),
        ("My son Arjun just turned 7.", [("son/age", "7"), ("son/name", "arjun")]),
        # many friends and colleagues: a second one named would supersede the first's name
        ("My friend Tom and I went hiking.", []),
        ("I met my colleague Sarah for lunch.", []),
        # a name said with its "my" left out; a capitalised name ends at the first word that is not
        ("Name's Tom by the way, Tom Alvarez.", [("user/name", "tom")]),
        ("My name is Tom by the way.", [("user/name", "tom")]),
        ("My name is Ludwig van Beethoven.", [("user/name", "ludwig van beethoven")]),
        ("name's not important", []),
        ("I live in Leeds by the way.", [("user/location", "leeds")]),
        # an age after the name, in Chinese; a month of this year is no age
        (
            "我叫王小明，今年32岁，在杭州做产品经理。",
            [("user/age", "32"), ("user/location", "杭州"), ("user/name", "王小明"), ("user/occupation", "产品经理")],
        ),
        ("我儿子叫小宝，今年15岁了。", [("son/age", "15"), ("son/name", "小宝")]),
        ("今年3月我去了北京。", []),
        ("我九五年的，今年二十九，想在杭州买房。", [("user/age", "29"), ("user/birth_year", "1995")]),
        ("今年十月我要去北京。", []),
        # 爱人, 媳妇, 闺女: kin however named; a relative's age without 岁
        ("我爱人在华为上班。", [("partner/employer", "华为")]),
        ("我闺女今年12岁了。", [("daughter/age", "12")]),
        ("我妈今年60了，退休在家。", [("mother/age", "60")]),
        ("我妈12点到。", []),
        # a relative named in Chinese, when the tagger reads the name as a person's
        ("我妹马丽娟在兰州开了个花店。", [("sister/name", "马丽娟")]),
        ("我老公张伟是医生。", [("husband/name", "张伟"), ("husband/occupation", "医生")]),
        # the year one was born, in four digits; a year is no hometown
        ("我是95年的。", [("user/birth_year", "1995")]),
        ("我九五年的，今年想买房。", [("user/birth_year", "1995")]),
        ("I was born in 1990.", [("user/birth_year", "1990")]),
        ("I was born in Leeds.", [("user/hometown", "leeds")]),
        ("我们是2020年结婚的。", []),
        ("这是05年的酒。", []),
        # more pets
        ("We got a guinea pig called Pancake.", [("user/pet:guinea_pig", "pancake")]),
        # a Chinese city is where one works, not for whom; a company is an employer; a word holding a city's name
        ("我在兰州上班。", [("user/location", "兰州")]),
        ("我妹妹在兰州上班。", [("sister/location", "兰州")]),
        ("我在京东上班。", [("user/employer", "京东")]),
        ("我老家湖南衡阳的。", [("user/hometown", "衡阳")]),
        ("我吃了个三明治。", []),
        # a job taken by an offer accepted; an offer received is not a job taken
        (
            "Quick update: I've accepted an offer at the Delta Water Authority as a project engineer.",
            [("user/employer", "delta water authority"), ("user/occupation", "project engineer")],
        ),
        ("I got an offer from Google!", []),
        # a drink's name inside a capitalised name is no drink
        ("I work at the Delta Water Authority.", [("user/employer", "delta water authority")]),
        ("I switched to Green Tea.", [("user/drink", "green tea")]),
        # a job said by its Latin abbreviation, a left-out subject
        (
            "跟你说，我跳槽了！现在在启航新能源做HRBP，工作更忙了。",
            [("user/employer", "启航新能源"), ("user/occupation", "hrbp")],
        ),
        ("我在腾讯做PM。", [("user/employer", "腾讯"), ("user/occupation", "pm")]),
        # a clause where a relative's employer would be is where they live
        ("我闺女在深圳读完研就留那工作了。", [("daughter/location", "深圳")]),
        # a relative named is no attribute of the speaker's
        ("我的同事王芳是一名律师。", []),
        ("我的爱好是爬山。", [("user/爱好", "爬山")]),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected
