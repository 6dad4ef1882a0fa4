"""The rule extractor on phrasings ``rules/28`` added: a condition one has that sets what one eats (celiac
disease, diabetes, 乳糖不耐受, 痛风), a key of its own per condition, said of oneself only; a pet named when it
came ("… and named her Mochi", "取名叫团团", "给新买的狗起名叫豆豆"). My own sentences."""

from __future__ import annotations

import pytest

from hindsight_es.recall.asked import answers, asked
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have celiac disease, so no wheat for me.", [("user/health:celiac_disease", "celiac disease")]),
        ("I'm coeliac, any ideas for a picnic?", [("user/health:celiac_disease", "celiac disease")]),
        ("I've got celiac so strictly gluten-free", [("user/health:celiac_disease", "celiac disease")]),
        ("doc says my A1C is creeping up, I'm type 2", [("user/health:type_2_diabetes", "type 2 diabetes")]),
        ("I was diagnosed with diabetes last year.", [("user/health:diabetes", "diabetes")]),
        ("I'm prediabetic, so cutting sugar.", [("user/health:prediabetes", "prediabetes")]),
        ("I have pre-diabetes.", [("user/health:prediabetes", "prediabetes")]),  # one key, however spelt
        ("我乳糖不耐受，早上能喝点啥", [("user/health:乳糖不耐受", "乳糖不耐受")]),
        ("我有糖尿病，早饭吃啥好", [("user/health:糖尿病", "糖尿病")]),
        ("我去年查出了痛风", [("user/health:痛风", "痛风")]),
        # not said of oneself, negated, or a question about such a condition
        ("I'm not diabetic.", []),
        ("My husband is diabetic.", []),
        ("Is this recipe diabetic-friendly?", []),
        ("I'm making a diabetic friendly cake for my dad.", []),
        ("我妈有糖尿病", []),
        ("我没有糖尿病", []),
        ("对了，糖尿病人能吃西瓜吗？", []),
        ("帮我查查糖尿病人早饭吃啥好", []),
        # a condition one does not have (was "The user does not eat celiac"), beside what one does not eat
        ("I don't have celiac.", [("user/health:celiac_disease", "not:celiac disease")]),
        ("I don't have diabetes.", [("user/health:diabetes", "not:diabetes")]),
        ("I don't eat pork.", [("user/diet:pork", "not:pork")]),
        # a pet named when it came
        ("I got a kitten and named her Mochi.", [("user/pet:cat", "mochi")]),
        ("We got a cat from the shelter and called her Luna.", [("user/pet:cat", "luna")]),
        ("我们新养了一只猫，取名叫团团。", [("user/pet:cat", "团团")]),
        ("我给新买的狗起名叫豆豆", [("user/pet:dog", "豆豆")]),
        ("我妹妹养了只猫，取名叫咪咪", [("sister/pet:cat", "咪咪")]),
        ("We got a new car and named it Bessie.", []),
    ],
)
def test_phrasing(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "question",
    [
        "What can't I eat?",
        "Do I have any dietary restrictions?",
        "what health thing do I have to watch?",
        "我喝东西有啥忌口",
    ],
)
def test_a_question_about_what_one_can_eat_is_answered_by_a_condition(question):
    assert answers(asked(question), "user/health:celiac_disease")


def test_a_condition_is_no_answer_to_an_unrelated_question_nor_to_what_one_is_allergic_to():
    assert not answers(asked("Where do I live?"), "user/health:celiac_disease")
    assert not answers(asked("What am I allergic to?"), "user/health:celiac_disease")
    assert not answers(asked("我对什么过敏？"), "user/health:乳糖不耐受")
