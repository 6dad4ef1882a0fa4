"""The rule extractor on phrasings ``rules/14`` added (each a class of sentence, zh and en), and the ones
they must leave alone. Given one turn, then these (key, value) pairs besides the episode."""

from __future__ import annotations

import pytest

from hindsight_es.extraction import extract
from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a request put as a question is the imperative it asks for
        ("Can you answer in Mandarin from now on?", [("user/reply_language", "chinese")]),
        ("Could you never call me after 9pm?", [("user/instruction:call_me_after_9pm", "never")]),
        ("Would you stop sending me newsletters?", [("user/instruction:send_me_newsletters", "never")]),
        ("你能不能以后用中文回答我？", [("user/reply_language", "chinese")]),
        ("你能帮我记住我对花生过敏吗？", [("user/allergy:花生", "花生")]),
        # ... not a question that asks for an answer, nor a statement that happens to start like one
        ("Could you tell me where I live?", []),
        ("Can you believe we moved to Lisbon?", []),
        ("Would you like to use FedEx?", []),
        ("你可以告诉我我住在哪里吗？", []),
        ("你可以叫我王佳。", [("user/name", "王佳")]),
    ],
)
def test_requests_put_as_questions(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a choice for one occasion is not the standing one
        ("Use DHL this time, please.", []),
        ("Please ship this order with UPS.", []),
        ("Use UPS just this once.", []),
        ("这一单用圆通寄吧。", []),
        ("这次用中通。", []),
        # "for now" is the standing choice for a while
        ("We use Postgres for now.", [("team/database", "postgresql")]),
        ("From now on use FedEx.", [("user/shipping_carrier", "fedex")]),
    ],
)
def test_a_one_off_choice_is_not_a_standing_one(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Home for me is Edinburgh.", [("user/location", "edinburgh")]),
        ("Lisbon is home now.", [("user/location", "lisbon")]),
        ("Home is where the heart is.", []),
        ("Actually, replies in English are easier for my team.", [("user/reply_language", "english")]),
        ("I'd prefer answers in French.", [("user/reply_language", "french")]),
        ("I got replies in English from the embassy.", []),
        ("We finished moving everything off AWS and onto Azure.", [("team/cloud_provider", "azure")]),
        ("We migrated our servers off GCP to AWS.", [("team/cloud_provider", "aws")]),
        # at a workplace, a word with a role's suffix is the role; a kind of workplace names no employer
        ("我在招商银行做柜员。", [("user/employer", "招商银行"), ("user/occupation", "柜员")]),
        ("我在银行当了十年柜员。", [("user/occupation", "柜员")]),
        ("我在公司当组长，挺累的。", [("user/occupation", "组长")]),
        ("我在家做饭。", []),
        ("我在学校做作业。", []),
        # a time said first is part of the instruction
        ("周末别给我发工作消息。", [("user/instruction:周末发工作消息", "never")]),
        ("晚上不要给我打电话。", [("user/instruction:晚上打电话", "never")]),
    ],
)
def test_more_places_languages_migrations_jobs_and_conditions(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # in a place "now"; not somewhere for a while
        ("We're in Utrecht now, the commute was killing me.", [("user/location", "utrecht")]),
        ("I'm now based in Porto.", [("user/location", "porto")]),
        ("I'm in London for a conference.", []),
        # a pet with any words before the animal; a household's pet
        ("We adopted a rescue dog called Pepper.", [("user/pet:dog", "pepper")]),
        ("我家养了一只橘猫，叫大黄。", [("user/pet:cat", "大黄")]),
        # the employer joined after one left
        ("我已经从京东离职，去了拼多多。", [("user/employer", "拼多多")]),
        ("我从华为辞职了，现在去了小米上班。", [("user/employer", "小米")]),
        # a relative working in a city lives there
        ("我老公在深圳上班。", [("husband/location", "深圳")]),
        # a diet since a time; a switch with no subject; an editor named like a noun, only capitalized
        ("我从去年开始吃素了。", [("user/diet", "vegetarian")]),
        ("现在换成Cursor了。", [("user/editor", "cursor")]),
        ("We switched to Cursor.", [("user/editor", "cursor")]),
        ("I moved the cursor to the left.", []),
        ("我早上习惯喝一杯美式。", [("user/drink", "americano")]),
        ("美式英语和英式英语不一样。", []),
        ("这一票先用顺丰发吧，客户急着要。", []),
    ],
)
def test_places_pets_jobs_diets_and_switches_said_another_way(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live just outside Manchester.", [("user/location", "manchester")]),
        ("I've started a new job at Zalando.", [("user/employer", "zalando")]),
        ("Switch your replies back to English please.", [("user/reply_language", "english")]),
        ("你回答我的时候用英语吧。", [("user/reply_language", "english")]),
        ("My husband works as a pilot.", [("husband/occupation", "pilot")]),
        ("My daughter can't have dairy.", [("daughter/diet:dairy", "not:dairy")]),
        ("I can't have gluten.", [("user/diet:gluten", "not:gluten")]),
        ("I wiped it and put Fedora on instead.", [("user/os", "fedora")]),
        ("I put the milk in the fridge instead.", []),
        ("我不当老师了，现在做自由撰稿人。", [("user/occupation", "自由撰稿人")]),
        # 爱喝 is the drink, as a habit; 喜欢喝 stays a liking
        ("我平时爱喝绿茶。", [("user/drink", "green tea")]),
        ("我喜欢喝奶茶。", [("user/preference:milk_tea", "milk tea")]),
        # ages in Chinese numerals are counts; 我妈, 我爸; a pet by its breed
        ("我儿子今年八岁。", [("son/age", "8")]),
        ("我今年二十八岁。", [("user/age", "28")]),
        ("我妈对青霉素过敏。", [("mother/allergy:青霉素", "青霉素")]),
        ("我们家有条金毛，叫可乐。", [("user/pet:dog", "可乐")]),
        ("We have a corgi named Biscuit.", [("user/pet:dog", "biscuit")]),
    ],
)
def test_a_fourth_round_of_phrasings(text, expected):
    assert pairs(text) == expected


@pytest.mark.parametrize("text", ["Lovely, thank you!", "辛苦啦", "辛苦您了", "Brilliant, thanks!"])
def test_more_pleasantries_are_filler(text):
    assert extract(text, speaker="Pat") == []
